package hostport

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for addr, want := range map[string]string{
		"agg.example.com:6566": "",
		"10.0.0.5:1":           "",
		"[::1]:65535":          "",
		"notanaddr":            "want host:port",
		"a:b:c":                "want host:port",
		"host:":                `port ""`,
		"host:0":               `port "0"`,
		"host:99999":           `port "99999"`,
		"host:http":            `port "http"`,
		":6566":                "has no host",
		"http://host:4317":     "without a scheme",
		"":                     "want host:port",
	} {
		err := Check(addr)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("Check(%q) = %v, want %q", addr, err, want)
		}
	}
}
