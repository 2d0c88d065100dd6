package loader

import (
	"testing"
)

func TestVLQRoundTrip(t *testing.T) {
	for _, m := range []string{
		"",
		";;AAAA,SAAS;AACT,gBAA6B,CAAC",
		"AAAA;;;ACAA,IAAIA,GAAG,CAAC;AACR",
		"A,C;gBAAgB",
	} {
		segs, err := decodeMappings(m)
		if err != nil {
			t.Fatalf("%q: %v", m, err)
		}
		if got := encodeMappings(segs); got != trimTrailingSemicolons(m) {
			t.Fatalf("round trip %q -> %q", m, got)
		}
	}
	for _, bad := range []string{"!", "AA", "g"} {
		if _, err := decodeMappings(bad); err == nil {
			t.Fatalf("%q decoded", bad)
		}
	}
}

func trimTrailingSemicolons(s string) string {
	for len(s) > 0 && s[len(s)-1] == ';' {
		s = s[:len(s)-1]
	}
	return s
}

func TestAdjustedLookup(t *testing.T) {
	// One segment: generated 0:4 -> source 2:6 (0-based).
	sm, err := adjustSourceMap([]byte(`{"version":3,"sources":["a.js"],"mappings":"IAEM"}`))
	if err != nil {
		t.Fatal(err)
	}
	// After adjustment the wrapped code's line 2 (1-based) column 5 (1-based) is that segment.
	if l, c, ok := sm.lookup(2, 5); !ok || l != 3 || c != 7 {
		t.Fatalf("lookup = %d:%d %v", l, c, ok)
	}
	if _, _, ok := sm.lookup(1, 5); ok {
		t.Fatal("the wrapper header line mapped to the source")
	}
}
