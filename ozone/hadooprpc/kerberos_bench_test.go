package hadooprpc_test

import (
	"context"
	"testing"
)

// Kerberos costs once per connection (ticket, AP-REQ/AP-REP, security layer), then each call only
// its wrap tokens. BenchmarkKerberosCall times calls on one established connection,
// BenchmarkKerberosConnect a new connection per call; compare the two per protection.
func BenchmarkKerberosCall(b *testing.B) { benchKerberos(b, false) }

func BenchmarkKerberosConnect(b *testing.B) { benchKerberos(b, true) }

func benchKerberos(b *testing.B, reconnect bool) {
	r := newSecureRealmB(b)
	for _, q := range []qop{authentication, integrity, privacy} {
		b.Run(q.String(), func(b *testing.B) {
			addr := r.serverB(b, q)
			ctx := context.Background()
			c := r.clientB(b, addr, q)
			if _, err := echo(ctx, c, "warm-up", ""); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if reconnect {
					c.Close()
					c = r.clientB(b, addr, q)
				}
				if _, err := echo(ctx, c, "container 1", ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
