package om_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/minicluster/krbacceptor"
	"github.com/dnecho/dnecho/minicluster/omsim"
	"github.com/dnecho/dnecho/minicluster/rpcserver"
	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/ozone/kerberos"
	"github.com/dnecho/dnecho/ozone/om"
	"github.com/dnecho/dnecho/proto/ompb"
	"github.com/dnecho/dnecho/testsupport/testkdc"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func caPEM(t testing.TB, name string) []byte {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name}, IsCA: true,
		BasicConstraintsValid: true, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// A follower answers OMNotLeaderException and the client moves on to the leader.
func TestCACertificatesWithFailover(t *testing.T) {
	ca := append(caPEM(t, "root"), caPEM(t, "sub")...)
	g, err := omsim.Start(omsim.Config{Nodes: 3, CAPEM: ca})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	g.SetLeader(2)
	c, err := om.New(om.Options{Addresses: g.Addrs(), RPC: hadooprpc.Options{User: "hadoop"}, RetryWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got, err := c.CACertificates(ctx(t))
	if err != nil || !bytes.Equal(got, ca) {
		t.Fatalf("got %q, %v", got, err)
	}
}

// Over Kerberos the OM lists TOKEN first; the client skips it and authenticates with GSSAPI.
func TestCACertificatesOverKerberos(t *testing.T) {
	k := testkdc.Start(t)
	k.AddPrincipals(t, "alice", "om/localhost")
	userKT, omKT := k.Keytab(t, "alice.keytab", "alice"), k.Keytab(t, "om.keytab", "om/localhost")
	acc, err := krbacceptor.New(omKT, "om/localhost@"+testkdc.Realm)
	if err != nil {
		t.Fatal(err)
	}
	ca := caPEM(t, "root")
	g, err := omsim.Start(omsim.Config{CAPEM: ca, RPC: rpcserver.Options{Kerberos: acc, Protection: []hadooprpc.QOP{hadooprpc.QOPPrivacy}}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	cred, err := kerberos.Login(kerberos.LoginOptions{Config: k.Config, Principal: "alice", Keytab: userKT})
	if err != nil {
		t.Fatal(err)
	}
	defer cred.Close()
	c, err := om.New(om.Options{Addresses: g.Addrs(), MaxFailovers: 1, RetryWait: time.Millisecond, RPC: hadooprpc.Options{User: cred.Principal(),
		Authenticator: &hadooprpc.Kerberos{Credentials: cred, Protection: []hadooprpc.QOP{hadooprpc.QOPPrivacy},
			Principal: hadooprpc.ServerPrincipal{Key: "ozone.om.kerberos.principal", Configured: "om/_HOST@" + testkdc.Realm}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got, err := c.CACertificates(ctx(t))
	if err != nil || !bytes.Equal(got, ca) {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestCAFromResponseErrors(t *testing.T) {
	for name, resp := range map[string]*ompb.OMResponse{
		"status":  {CmdType: proto.Int32(51), Status: proto.Int32(14), Message: proto.String("denied")},
		"none":    {CmdType: proto.Int32(51), Status: proto.Int32(1), ServiceListResponse: &ompb.ServiceListResponse{}},
		"not PEM": {CmdType: proto.Int32(51), Status: proto.Int32(1), ServiceListResponse: &ompb.ServiceListResponse{CaCerts: []string{"x"}}},
	} {
		if _, err := om.CAFromResponse(resp); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// FuzzServiceListResponse feeds arbitrary bytes as an OM reply to the decoder and the CA checks.
func FuzzServiceListResponse(f *testing.F) {
	ca := caPEM(f, "root")
	good, _ := proto.Marshal(&ompb.OMResponse{CmdType: proto.Int32(51), Status: proto.Int32(1),
		ServiceListResponse: &ompb.ServiceListResponse{CaCerts: []string{string(ca)}, CaCertificate: proto.String(string(ca))}})
	f.Add(good)
	f.Add([]byte{0x08, 0x33, 0x28, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		var resp ompb.OMResponse
		if proto.Unmarshal(b, &resp) != nil {
			return
		}
		if out, err := om.CAFromResponse(&resp); err == nil && len(out) == 0 {
			t.Fatal("no certificates and no error")
		}
	})
}
