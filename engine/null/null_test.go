package null

import (
	"encoding/json"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	cases := []struct {
		in   string
		want time.Duration
		err  bool
	}{
		{"30s", 30 * time.Second, false},
		{"1m30s", 90 * time.Second, false},
		{"1.5s", 1500 * time.Millisecond, false},
		{"2d", 48 * time.Hour, false},
		{"1d12h30m", 36*time.Hour + 30*time.Minute, false},
		{"-1d2h", -26 * time.Hour, false},
		{"1500", 0, true}, // a string needs its unit; only a JSON number is ms
		{"0", 0, false},
		{"1.5d", 0, true},
		{"d", 0, true},
		{"1d-2h", 0, true},
		{"10", 0, true},
		{"abc", 0, true},
		{"5", 0, true},
		{"106752d", 0, true}, // beyond time.Duration
	}
	for _, c := range cases {
		got, err := ParseDuration(c.in)
		if (err != nil) != c.err || (!c.err && got != c.want) {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v, err=%v", c.in, got, err, c.want, c.err)
		}
	}
}

func TestDurationJSON(t *testing.T) {
	cases := []struct {
		in    string
		want  Value[time.Duration]
		isErr bool
	}{
		{`"10s"`, From(10 * time.Second), false},
		{`1500`, From(1500 * time.Millisecond), false},
		{`0.5`, From(500 * time.Microsecond), false},
		{`null`, Value[time.Duration]{}, false},
		{`"1d"`, From(24 * time.Hour), false},
		{`true`, Value[time.Duration]{}, true},
		{`"x"`, Value[time.Duration]{}, true},
		{`1e30`, Value[time.Duration]{}, true},
	}
	for _, c := range cases {
		var d Value[time.Duration]
		err := json.Unmarshal([]byte(c.in), &d)
		if (err != nil) != c.isErr || (!c.isErr && d != c.want) {
			t.Errorf("unmarshal %s = %+v, %v; want %+v err=%v", c.in, d, err, c.want, c.isErr)
		}
	}
	out, _ := json.Marshal(struct{ A, B Value[time.Duration] }{From(90 * time.Second), Value[time.Duration]{}})
	if string(out) != `{"A":"1m30s","B":null}` {
		t.Errorf("marshal = %s", out)
	}
}

func TestIntJSON(t *testing.T) {
	for in, want := range map[string]Value[int64]{`5`: From[int64](5), `1e3`: From[int64](1000), `null`: {}, `-2`: From[int64](-2), ` 7 `: From[int64](7)} {
		var n Value[int64]
		if err := json.Unmarshal([]byte(in), &n); err != nil || n != want {
			t.Errorf("unmarshal %s = %+v, %v", in, n, err)
		}
	}
	for in, msg := range map[string]string{
		`1.5`: "expected an integer, got 1.5", `"5"`: `expected an integer, got the string "5"`,
		`true`: "expected an integer, got true", `{}`: "expected an integer, got {}",
	} {
		var n Value[int64]
		if err := json.Unmarshal([]byte(in), &n); err == nil || err.Error() != msg {
			t.Errorf("unmarshal %s: error %v, want %q", in, err, msg)
		}
	}
	if b, _ := json.Marshal(From[int64](12)); string(b) != "12" {
		t.Errorf("marshal = %s", b)
	}
}

func TestStringAndBoolJSON(t *testing.T) {
	var s Value[string]
	if err := json.Unmarshal([]byte(`"x"`), &s); err != nil || s != From("x") {
		t.Errorf("string = %+v, %v", s, err)
	}
	if err := json.Unmarshal([]byte(`5`), &s); err == nil || err.Error() != "expected a string, got 5" {
		t.Errorf("string from a number: %v", err)
	}
	var b Value[bool]
	if err := json.Unmarshal([]byte(`true`), &b); err != nil || b != From(true) {
		t.Errorf("bool = %+v, %v", b, err)
	}
	if err := json.Unmarshal([]byte(`null`), &b); err != nil || b.Valid {
		t.Errorf("null bool = %+v, %v", b, err)
	}
	if b, _ := json.Marshal(struct{ A, B Value[bool] }{From(false), Value[bool]{}}); string(b) != `{"A":false,"B":null}` {
		t.Errorf("marshal = %s", b)
	}
}

func TestValueOr(t *testing.T) {
	if got := (Value[int64]{}).ValueOr(3); got != 3 {
		t.Errorf("unset ValueOr = %d", got)
	}
	if got := From[int64](0).ValueOr(3); got != 0 {
		t.Errorf("explicit 0 ValueOr = %d", got)
	}
}
