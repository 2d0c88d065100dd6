package xdnecho

import (
	"testing"

	"github.com/dop251/goja"
)

func TestParseSize(t *testing.T) {
	rt := goja.New()
	cases := []struct {
		in   any
		want int64
		ok   bool
	}{
		{nil, 0, true},
		{0, 0, true},
		{1024, 1024, true},
		{1024.0, 1024, true},
		{"512", 512, true},
		{"512B", 512, true},
		{"512 b", 512, true},
		{"4KB", 4096, true},
		{"4KiB", 4096, true},
		{"4kb", 4096, true},
		{"4K", 4096, true},
		{" 2MB ", 2 << 20, true},
		{"2MiB", 2 << 20, true},
		{"1GB", 1 << 30, true},
		{-1, 0, false},
		{1.5, 0, false},
		{"1.5KB", 0, false},
		{"KB", 0, false},
		{"", 0, false},
		{"4TB", 0, false},
		{"99999999999999999999", 0, false},
		{"9999999999999GB", 0, false},
		{true, 0, false},
		{map[string]any{}, 0, false},
	}
	for _, tc := range cases {
		v := goja.Undefined()
		if tc.in != nil {
			v = rt.ToValue(tc.in)
		}
		got, err := parseSize("payloadResp", v)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseSize(%#v) = %d, %v; want %d, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestResponseSizeCap(t *testing.T) {
	for _, tc := range []struct {
		n        int64
		uncapped bool
		want     int32
		ok       bool
	}{
		{0, false, 0, true},
		{2097151, false, 2097151, true},
		{2097152, false, 2097151, true}, // freon: min(bytes, 2097151)
		{1 << 40, false, 2097151, true},
		{2097152, true, 2097152, true},
		{1<<31 - 1, true, 1<<31 - 1, true},
		{1 << 31, true, 0, false},
	} {
		got, ok := responseSize(tc.n, tc.uncapped)
		if got != tc.want || ok != tc.ok {
			t.Errorf("responseSize(%d, %v) = %d, %v; want %d, %v", tc.n, tc.uncapped, got, ok, tc.want, tc.ok)
		}
	}
}
