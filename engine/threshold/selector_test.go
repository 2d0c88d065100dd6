package threshold

import (
	"strings"
	"testing"
)

func TestParseKey(t *testing.T) {
	for _, tc := range []struct {
		in, metric, name string
		tags             map[string]string
	}{
		{"http_req_duration", "http_req_duration", "http_req_duration", nil},
		{" iterations ", "iterations", "iterations", nil},
		{"m{a:b}", "m", "m{a:b}", map[string]string{"a": "b"}},
		{"m{ a : 'b' }", "m", "m{a:b}", map[string]string{"a": "b"}},
		{`m{a:"b",c:d}`, "m", "m{a:b,c:d}", map[string]string{"a": "b", "c": "d"}},
		{"m{a:b:c}", "m", "m{a:b:c}", map[string]string{"a": "b:c"}},
		{"http_req_duration{name:http://${}.com}", "http_req_duration", "http_req_duration{name:http://${}.com}",
			map[string]string{"name": "http://${}.com"}},
		{`m{"x y":" z "}`, "m", "m{x y: z }", map[string]string{"x y": " z "}},
	} {
		sel, err := parseKey(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if sel.metric != tc.metric || sel.name() != tc.name {
			t.Errorf("%q: metric %q name %q", tc.in, sel.metric, sel.name())
		}
		if got := sel.tags.Map(); len(got) != len(tc.tags) {
			t.Errorf("%q: tags %v, want %v", tc.in, got, tc.tags)
		} else {
			for k, v := range tc.tags {
				if got[k] != v {
					t.Errorf("%q: tags %v, want %v", tc.in, got, tc.tags)
				}
			}
		}
	}
}

func TestParseKeyErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"m{a:b", "sub-metric selector must end with '}'"},
		{"m{a:b}x", "sub-metric selector must end with '}'"},
		{"m}", "sub-metric selector has a '}' but no '{'"},
		{"m{}", "sub-metric selector has no tags"},
		{"m{  }", "sub-metric selector has no tags"},
		{"m{a}", `sub-metric selector entry "a" is not of the form key:value`},
		{"m{a:b,}", `sub-metric selector entry "" is not of the form key:value`},
		{"m{:b}", `sub-metric selector entry ":b" has an empty key`},
		{"m{a:}", `sub-metric selector entry "a:" has an empty value`},
		{"m{a:''}", `sub-metric selector entry "a:''" has an empty value`},
	} {
		_, err := parseKey(tc.in)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: got %v, want %s", tc.in, err, tc.want)
		}
	}
}

func FuzzParseKey(f *testing.F) {
	for _, s := range []string{"m{a:b}", "m{name:http://${}.com}", "{", "}", "m{a:'b',c:\"d\"}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := parseKey(s)
		if err != nil || sel.suffix == "" {
			return
		}
		// Every pair written counts, not only the tags that remain: a key given twice keeps its
		// first value in the canonical name ({0:" ",0:0}).
		for _, part := range strings.Split(sel.suffix, ",") {
			k, v, _ := strings.Cut(part, ":")
			if clean(k) != k || clean(v) != v {
				return // edge spaces or quotes inside quotes do not survive a second cleaning
			}
		}
		// The canonical name parses back to the same selector.
		again, err := parseKey(sel.name())
		if err != nil {
			t.Fatalf("%q: canonical name %q does not parse: %v", s, sel.name(), err)
		}
		if again.metric != sel.metric || again.tags.Key() != sel.tags.Key() || again.name() != sel.name() {
			t.Errorf("%q: reparse of %q gave %q", s, sel.name(), again.name())
		}
	})
}
