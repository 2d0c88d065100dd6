package main

import (
	"flag"
	"slices"
	"strings"
	"testing"
)

func TestParseCounts(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    []int
		wantErr string
	}{
		{"3,30,100", []int{3, 30, 100}, ""},
		{" 3 , 100 ", []int{3, 100}, ""},
		{"", nil, "-x is empty"},
		{"3,x", nil, `-x "3,x": want counts from 1 to 128`},
		{"0", nil, "want counts from 1 to 128"},
		{"129", nil, "want counts from 1 to 128"},
	} {
		got, err := parseCounts("-x", tt.in, 1, 128)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parseCounts(%q) error %v, want one containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("parseCounts(%q) = %v, %v, want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestScalingFlags(t *testing.T) {
	for _, tt := range []struct {
		args    []string
		wantErr bool
	}{
		{nil, false},
		{[]string{"-scaling-vus", "1"}, true}, // the baseline is 1 VU: nothing to subtract it from
		{[]string{"-scaling-t", "0"}, true},
		{[]string{"-scaling-reps", "0"}, true},
		{[]string{"-scaling-datanodes", "3,200"}, true},
	} {
		fs := flag.NewFlagSet("harness", flag.ContinueOnError)
		check := scalingFlags(fs)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		c, err := check()
		if (err != nil) != tt.wantErr {
			t.Errorf("%v: error %v, want error %v", tt.args, err, tt.wantErr)
		}
		if tt.args == nil && (!slices.Equal(c.datanodes, []int{3, 30, 100}) || !slices.Equal(c.vus, []int{1000, 10000})) {
			t.Errorf("defaults: DataNodes %v, VUs %v", c.datanodes, c.vus)
		}
	}
}

func TestPerVU(t *testing.T) {
	// 1 VU: 31,000 KiB; 10,000 VUs: 1,431,000 KiB -> 1,400,000 KiB over 9,999 added VUs.
	if got := perVU(31000, 1431000, 10000); got < 140.01 || got > 140.02 {
		t.Errorf("perVU = %v, want 140.014", got)
	}
}

// The verdicts are on the printed (rounded) figures, and only judged lines count.
func TestScalingVerdicts(t *testing.T) {
	s := &scaling{out: map[string]*strings.Builder{}}
	s.ratioLine("a", []float64{1.00, 1.104, 1.2}, scalingCPUTarget) // median 1.104 prints 1.10: PASS
	s.ratioLine("b", []float64{1.106, 1.3, 1.0}, scalingCPUTarget)  // prints 1.11: FAIL
	s.ratioLine("c", []float64{3, 3, 3}, 0)                         // informational
	s.verdict("d", 200.4, scalingKiBPerVU)                          // prints 200: PASS
	s.verdict("e", 200.6, scalingKiBPerVU)                          // prints 201: FAIL
	if s.passed != 2 || !slices.Equal(s.failed, []string{"b 1.11x", "e 201"}) {
		t.Errorf("passed %d, failed %q; want 2 and [b 1.11x e 201]", s.passed, s.failed)
	}
	for _, want := range []string{"1.10x  (1.00-1.20)  target <= 1.10x  PASS", "1.11x  (1.00-1.30)  target <= 1.10x  FAIL", "3.00x  (3.00-3.00)\n", "200 KiB  target <= 200  PASS"} {
		if !strings.Contains(s.table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, s.table.String())
		}
	}
}
