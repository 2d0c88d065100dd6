package kerberos

import (
	"errors"
	"testing"

	"github.com/dnecho/dnecho/testsupport/testkdc"
)

const testService = "scm/localhost"

// realm starts a KDC with a user and a service and returns the user's keytab.
func realm(t *testing.T) (k *testkdc.KDC, userKT string) {
	k = testkdc.Start(t)
	k.AddPrincipals(t, "alice", testService)
	return k, k.Keytab(t, "alice.keytab", "alice")
}

func TestLoginErrors(t *testing.T) {
	k, userKT := realm(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		o    LoginOptions
		want error
	}{
		{"no cache", LoginOptions{CCache: dir + "/none"}, ErrNoTicket},
		{"unknown principal", LoginOptions{Principal: "mallory", Keytab: userKT}, ErrLogin},
		{"keytab of another principal", LoginOptions{Principal: testService, Keytab: userKT}, ErrLogin},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Config = k.Config
			c, err := Login(tc.o)
			if err == nil {
				c.Close()
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}
