package realsecure

import (
	"fmt"
	"testing"

	"github.com/dnecho/dnecho/testsupport/realkit"
)

// bothTransports runs the same freon calls with --transport grpc and h2 over TLS (the CA from the
// real OM, the DataNodes' certificates, container tokens in the requests): both succeed with
// the same counts.
func bothTransports(t *testing.T, base []string, freon func(args ...string) realkit.Result) {
	for _, extra := range [][]string{
		{"-n", "200"},
		{"-n", "200", "--stream", "reuse"},
		{"-n", "10", "--payload-resp", "1024"},
	} {
		var got [2]string
		for i, tr := range []string{"grpc", "h2"} {
			r := freon(append(append(append([]string(nil), base...), extra...), "--transport", tr)...)
			rep := realkit.ParseReport(t, r)
			got[i] = fmt.Sprintf("exit %d, %d successful, %d failures", r.Code, rep.Successful, rep.Failures)
			if r.Code != 0 {
				t.Errorf("%v --transport %s: %s:\n%s", extra, tr, got[i], realkit.Tail(r.Out, 15))
			}
		}
		if want := fmt.Sprintf("exit 0, %s successful, 0 failures", extra[1]); got[0] != want || got[1] != want {
			t.Errorf("%v: grpc %s, h2 %s; want %s", extra, got[0], got[1], want)
		}
	}
}
