package datanode

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"

	"google.golang.org/grpc/credentials"
)

// TransportCredentials trusts the given CAs and nothing else, and presents no
// client certificate (docs/ozone-echo.md#tls). The server name checked is the dial
// authority: the member's IP (an IP SAN) or "localhost" with TestCert.
func TransportCredentials(o *TLSOptions) (credentials.TransportCredentials, error) {
	conf, err := tlsConfig(o)
	if err != nil {
		return nil, err
	}
	return credentials.NewTLS(conf), nil
}

// tlsConfig is the TLS client configuration of both transports; the server name is set per
// DataNode (grpc-go sets it from the authority).
func tlsConfig(o *TLSOptions) (*tls.Config, error) {
	pool := x509.NewCertPool()
	for _, f := range o.CAFiles {
		pem, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("datanode: option TLS.CAFiles: %w", err)
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("datanode: option TLS.CAFiles: no PEM certificate in %s", f)
		}
	}
	if len(o.CAPEM) > 0 && !pool.AppendCertsFromPEM(o.CAPEM) {
		return nil, fmt.Errorf("datanode: option TLS.CAPEM: no PEM certificate")
	}
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
}
