package freon

import (
	"bytes"
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
		{"req", mod(func(o *Options) { o.PayloadReqKB = -1; o.NumberOfTests = 0 }), MsgPayloadReqNegative},
		{"resp", mod(func(o *Options) { o.PayloadRespKB = -1 }), MsgPayloadRespNegative},
		{"zero duration", mod(func(o *Options) { o.Duration = "0s" }), MsgInvalidDuration},
		{"negative duration", mod(func(o *Options) { o.Duration = "-5m" }), MsgInvalidDuration},
		{"sub-second duration", mod(func(o *Options) { o.Duration = "500ms" }), MsgInvalidDuration},
		{"bad duration", mod(func(o *Options) { o.Duration = "abcs" }), `invalid --duration: duration "abcs": want an integer with an optional ns/us/ms/s/m/h/d suffix`},
		{"testNo", mod(func(o *Options) { o.NumberOfTests = 0 }), MsgInvalidTestNo},
		{"testNo with duration", mod(func(o *Options) { o.NumberOfTests = -1; o.Duration = "1m" }), MsgInvalidTestNo},
		{"threads", mod(func(o *Options) { o.Threads = 0 }), "invalid --threads 0: must be a positive integer"},
		{"clients", mod(func(o *Options) { o.Clients = 0 }), "invalid --clients 0: must be a positive integer"},
	}
	for _, tt := range tests {
		err := tt.o.Validate()
		if (err == nil) != (tt.want == "") || (err != nil && err.Error() != tt.want) {
			t.Errorf("%s: Validate() = %v, want %q", tt.name, err, tt.want)
		}
	}
	if MsgInvalidTestNo != "Invalid command, the testNo must be a positive integer" ||
		MsgPayloadReqNegative != "OM echo request payload size should be positive value or zero." ||
		MsgInvalidDuration != "Incomplete command, the runtime must be given, and must not be negative" {
		t.Error("freon's messages changed")
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"30s": 30 * time.Second, "5m": 5 * time.Minute, "1h": time.Hour, "7d": 7 * 24 * time.Hour,
		"90": 90 * time.Second, " 2M ": 2 * time.Minute, "1500ms": time.Second, "999ms": 0, "+3s": 3 * time.Second,
	} {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "1.5s", "s", "10 s", "99999999999999d"} {
		if _, err := ParseDuration(in); err == nil {
			t.Errorf("ParseDuration(%q) accepted", in)
		}
	}
}

func TestRunConfig(t *testing.T) {
	o := DefaultOptions()
	o.Duration, o.FailAtEnd, o.Threads = "2m", true, 3
	cfg, err := o.RunConfig()
	if err != nil || cfg.Threads != 3 || cfg.NumberOfTests != 1000 || cfg.Duration != 2*time.Minute || !cfg.FailAtEnd {
		t.Errorf("RunConfig = %+v, %v", cfg, err)
	}
	o.Threads = 0
	if _, err := o.RunConfig(); err == nil {
		t.Error("invalid options accepted")
	}
}

func TestEffectiveReadOnly(t *testing.T) {
	for _, tt := range []struct{ readOnly, ratis, wantRO, wantWarn bool }{
		{false, false, true, true}, {true, false, true, false}, {false, true, false, false}, {true, true, true, false},
	} {
		o := Options{ReadOnly: tt.readOnly, Ratis: tt.ratis}
		if ro, warn := o.EffectiveReadOnly(); ro != tt.wantRO || warn != tt.wantWarn {
			t.Errorf("%+v: got %v %v", tt, ro, warn)
		}
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

func TestPayloads(t *testing.T) {
	seed := bytes.Repeat([]byte{1, 2, 3, 4}, 256)
	if p := RequestPayloadFromSeed(seed, 3); len(p) != 3072 || !bytes.Equal(p[2048:], seed) {
		t.Errorf("request payload len %d", len(p))
	}
	if p := RequestPayloadFromSeed(seed, 0); len(p) != 0 || p == nil {
		t.Error("zero payload must be empty, not nil")
	}
	if a, b := RequestPayload(2), RequestPayload(1); len(a) != 2048 || !bytes.Equal(a[:1024], b) || !bytes.Equal(a[1024:], b) {
		t.Error("the process seed must be reused")
	}
	for _, tt := range []struct {
		kb       int
		uncapped bool
		want     int32
	}{{0, false, 0}, {-1, false, 0}, {1, false, 1024}, {2048, false, 2097151}, {2048, true, 2097152}, {1 << 30, true, 1<<31 - 1}} {
		if got := ResponseSize(tt.kb, tt.uncapped); got != tt.want {
			t.Errorf("ResponseSize(%d, %v) = %d, want %d", tt.kb, tt.uncapped, got, tt.want)
		}
	}
}
