package freon

import (
	"math"
	"testing"
)

// Expected strings were printed by Temurin JDK 25 (Double.toString and
// String.format(Locale.US, "%.2f")). JDK 17 differs only where its older algorithm was not
// shortest (1e23 → 9.999999999999999E22); we follow JDK 19+.
func TestFormatJavaDouble(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{0, "0.0"}, {math.Copysign(0, -1), "-0.0"}, {1, "1.0"}, {-2.5, "-2.5"},
		{0.001, "0.001"}, {0.00099, "9.9E-4"}, {1e-4, "1.0E-4"}, {1e7, "1.0E7"},
		{9999999.999, "9999999.999"}, {812.3456, "812.3456"}, {0.52, "0.52"},
		{1183.4127, "1183.4127"}, {2e-3, "0.002"}, {1e23, "1.0E23"}, {123456789, "1.23456789E8"},
		{1.0 / 3, "0.3333333333333333"}, {100, "100.0"}, {tenth + fifth, "0.30000000000000004"},
		{5e-324, "4.9E-324"}, {math.MaxFloat64, "1.7976931348623157E308"}, {12345678.9, "1.23456789E7"},
		{1e-6, "1.0E-6"}, {math.NaN(), "NaN"}, {math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"},
	}
	for _, tt := range tests {
		if got := formatJavaDouble(tt.v); got != tt.want {
			t.Errorf("FormatJavaDouble(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestFormatJavaFixed(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{0, "0.00"}, {math.Copysign(0, -1), "-0.00"}, {1, "1.00"}, {0.001, "0.00"}, {1e-4, "0.00"},
		{1e7, "10000000.00"}, {9999999.999, "10000000.00"}, {812.3456, "812.35"}, {0.52, "0.52"},
		{1183.4127, "1183.41"}, {1e23, "100000000000000000000000.00"}, {1.0 / 3, "0.33"},
		{tenth + fifth, "0.30"}, {5e-324, "0.00"},
		// Half up on the shortest decimal, where Go's fmt would round the binary value.
		{0.125, "0.13"}, {1.005, "1.01"}, {2.675, "2.68"}, {0.005, "0.01"}, {0.015, "0.02"},
		{9.995, "10.00"}, {12345678.9, "12345678.90"}, {-1.005, "-1.01"}, {99.995, "100.00"},
	}
	for _, tt := range tests {
		if got := formatJavaFixed(tt.v, 2); got != tt.want {
			t.Errorf("FormatJavaFixed(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
	if got := formatJavaFixed(2.5, 0); got != "3" {
		t.Errorf("FormatJavaFixed(2.5, 0) = %q", got)
	}
}

// Variables, not constants: Go folds 0.1 + 0.2 exactly to 0.3 at compile time.
var tenth, fifth = 0.1, 0.2
