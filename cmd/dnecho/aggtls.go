package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"

	"github.com/dnecho/dnecho/internal/exitcode"
)

// envAggregatorCA is the environment form of `dnecho run --aggregator-ca`.
const envAggregatorCA = "DNECHO_AGGREGATOR_CA"

// listenTLS wraps the aggregator's listener in TLS when --tls-cert and --tls-key are given.
func listenTLS(ln net.Listener, cert, key string) (net.Listener, error) {
	if cert == "" && key == "" {
		return ln, nil
	}
	if cert == "" || key == "" {
		return nil, withCode(exitcode.InvalidConfig, errors.New("--tls-cert and --tls-key go together"))
	}
	pair, err := tls.LoadX509KeyPair(cert, key)
	if err != nil {
		return nil, withCode(exitcode.InvalidConfig, fmt.Errorf("--tls-cert %s / --tls-key %s: %w", cert, key, err))
	}
	return tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}), nil
}

// aggregatorTLS is the TLS configuration that trusts the CA certificates in file (PEM), for a
// runner whose aggregator serves TLS; nil without a file.
func aggregatorTLS(file, source string) (*tls.Config, error) {
	if file == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, withCode(exitcode.InvalidConfig, fmt.Errorf("%s: %w", source, err))
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, withCode(exitcode.InvalidConfig, fmt.Errorf("%s %s: no PEM certificate in it", source, file))
	}
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
}
