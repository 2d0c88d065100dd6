package aggregate_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/aggregate"
	"github.com/dnecho/dnecho/engine/aggregate/stream"
	"github.com/dnecho/dnecho/engine/aggregate/wire"
)

// selfSigned is a certificate for 127.0.0.1 and the pool that trusts it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "aggregator"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}

// TestTLS: an instance that trusts the aggregator's certificate joins over TLS with its token.
func TestTLS(t *testing.T) {
	cert, pool := selfSigned(t)
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := tls.NewListener(raw, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan *aggregate.Report, 1)
	go func() {
		r, _ := aggregate.New(aggregate.Options{Listener: ln, Instances: 1, Token: "s3cret"}).Run(ctx)
		done <- r
	}()
	// An instance that does not trust the certificate does not connect (while the aggregator
	// listens), nor does one without TLS join.
	untrusting := stream.New(stream.Options{Addr: raw.Addr().String(), DialTimeout: time.Millisecond,
		TLS: &tls.Config{RootCAs: x509.NewCertPool(), MinVersion: tls.VersionTLS12}})
	if err := untrusting.Begin(ctx, wire.Hello{}, nil, nil); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("a TLS client that does not trust the certificate: %v", err)
	}
	s := stream.New(stream.Options{Addr: raw.Addr().String(), Token: "s3cret", DialTimeout: 10 * time.Second,
		TLS: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}})
	if err := s.Begin(ctx, wire.Hello{Instance: "tls", Segment: "0:1", Sequence: "0,1"}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Finish(ctx, wire.Final{}); err != nil {
		t.Fatalf("verdict over TLS: %v", err)
	}
	if res := <-done; len(res.Instances) != 1 || res.Instances[0].Name != "tls" || res.Instances[0].Lost {
		t.Errorf("instances %+v", res.Instances)
	}
}
