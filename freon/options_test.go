package freon

import (
	"testing"
	"time"
)

func TestValidate(t *testing.T) {
	mod := func(f func(*Options)) Options { o := DefaultOptions(); f(&o); return o }
	tests := []struct {
		name string
		o    Options
		want string
	}{
		{"defaults", DefaultOptions(), ""},
		{"zero duration", mod(func(o *Options) { o.Duration = "0s" }), MsgInvalidDuration},
		{"bare zero", mod(func(o *Options) { o.Duration = "0" }), MsgInvalidDuration},
		{"negative duration", mod(func(o *Options) { o.Duration = "-5m" }), MsgInvalidDuration},
		{"sub-second duration", mod(func(o *Options) { o.Duration = "500ms" }), MsgInvalidDuration},
		{"bad duration", mod(func(o *Options) { o.Duration = "abcs" }), `invalid --duration: duration "abcs": want an integer with an optional ns/us/ms/s/m/h/d suffix`},
		{"testNo", mod(func(o *Options) { o.NumberOfTests = 0 }), MsgInvalidTestNo},
		{"testNo with duration", mod(func(o *Options) { o.NumberOfTests = -1; o.Duration = "1m" }), MsgInvalidTestNo},
		{"threads", mod(func(o *Options) { o.Threads = 0 }), "invalid --threads 0: want 1 to 10000 (each thread keeps one call in flight; for more concurrency run several processes)"},
		{"too many threads", mod(func(o *Options) { o.Threads = 100000000 }), "invalid --threads 100000000: want 1 to 10000 (each thread keeps one call in flight; for more concurrency run several processes)"},
	}
	for _, tt := range tests {
		err := tt.o.Validate()
		if (err == nil) != (tt.want == "") || (err != nil && err.Error() != tt.want) {
			t.Errorf("%s: Validate() = %v, want %q", tt.name, err, tt.want)
		}
	}
	if MsgInvalidTestNo != "Invalid command, the testNo must be a positive integer" ||
		MsgInvalidDuration != "Incomplete command, the runtime must be given, and must not be negative" {
		t.Error("freon's messages changed")
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"30s": 30 * time.Second, "5m": 5 * time.Minute, "1h": time.Hour, "7d": 7 * 24 * time.Hour,
		"90": 90 * time.Second, " 2M ": 2 * time.Minute, "1500ms": time.Second, "999ms": 0, "+3s": 3 * time.Second,
	} {
		if got, err := parseDuration(in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "1.5s", "s", "10 s", "99999999999999d"} {
		if _, err := parseDuration(in); err == nil {
			t.Errorf("ParseDuration(%q) accepted", in)
		}
	}
}

func TestRunConfig(t *testing.T) {
	o := DefaultOptions()
	o.Duration, o.FailAtEnd, o.Threads = "2m", true, 3
	cfg, err := o.runConfig()
	if err != nil || cfg.Threads != 3 || cfg.NumberOfTests != 1000 || cfg.Duration != 2*time.Minute || !cfg.FailAtEnd {
		t.Errorf("RunConfig = %+v, %v", cfg, err)
	}
	o.Threads = 0
	if _, err := o.runConfig(); err == nil {
		t.Error("invalid options accepted")
	}
}

func TestResolvePrefix(t *testing.T) {
	env := map[string]string{"HOST": "dn1"}
	getenv := func(k string) string { return env[k] }
	i := 0
	seq := func(n int) int { i++; return (i * 7) % n }
	if got := ResolvePrefix("", getenv, seq); len(got) != 10 || got != "hov29gnu18" {
		t.Errorf("random prefix %q", got)
	}
	if got := ResolvePrefix("run-__HOST__-__NOPE__x", getenv, seq); got != "run-dn1-x" {
		t.Errorf("env prefix %q", got)
	}
}

func TestLength(t *testing.T) {
	mod := func(f func(*Options)) Options { o := DefaultOptions(); f(&o); return o }
	tests := []struct {
		o    Options
		want time.Duration
	}{
		{DefaultOptions(), 0},
		{mod(func(o *Options) { o.Duration = "8s" }), 8 * time.Second},
		{mod(func(o *Options) { o.Duration = "2m"; o.Rate = "100" }), 2 * time.Minute},
		{mod(func(o *Options) { o.NumberOfTests = 5000; o.Rate = "500/s" }), 10 * time.Second},
		{mod(func(o *Options) { o.NumberOfTests = 30; o.Rate = "60/m" }), 30 * time.Second},
	}
	for _, tt := range tests {
		if got := tt.o.Length(); got != tt.want {
			t.Errorf("%+v: Length() = %s, want %s", tt.o, got, tt.want)
		}
	}
}
