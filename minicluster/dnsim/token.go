package dnsim

import "github.com/dnecho/dnecho/ozone/token"

// decodeToken applies the DataNode's first token step: the string must decode
// as a Hadoop token Writable (lenient base64; docs/ozone-echo.md#token-checks).
// Echo needs neither a block nor a container token, so nothing is verified
// after decoding.
func decodeToken(s string) error {
	_, err := token.Decode(s)
	return err
}
