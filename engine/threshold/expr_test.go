package threshold

import (
	"strings"
	"testing"

	"github.com/dnecho/dnecho/engine/metrics"
)

func TestParseExpressionValid(t *testing.T) {
	for _, tc := range []struct {
		in     string
		method string
		p      float64
		op     Operator
		value  float64
	}{
		{"p(95)<200", "p", 95, Less, 200},
		{"p(99.9) <= 5", "p", 99.9, LessEqual, 5},
		{" med > 3 ", "med", 0, Greater, 3},
		{"avg>=1.5", "avg", 0, GreaterEqual, 1.5},
		{"count==5", "count", 0, Equal, 5},
		{"count===5", "count", 0, Equal, 5},
		{"rate!=0", "rate", 0, NotEqual, 0},
		{"value<1e3", "value", 0, Less, 1000},
		{"min<-2", "min", 0, Less, -2},
		{"max<=+Inf", "max", 0, LessEqual, posInf()},
		{"p(0)<1", "p", 0, Less, 1},
		{"p( 100 )<1", "p", 100, Less, 1},
		{"rate<=0.01", "rate", 0, LessEqual, 0.01},
	} {
		e, err := ParseExpression(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if e.Agg.Method != tc.method || e.Agg.P != tc.p || e.Op != tc.op || e.Value != tc.value || e.Source != tc.in {
			t.Errorf("%q: got %+v", tc.in, e)
		}
	}
}

func posInf() float64 { v, _ := ParseExpression("max<+Inf"); return v.Value }

func TestParseExpressionErrors(t *testing.T) {
	const ops = "expected <aggregation> <operator> <number> with an operator among <= < >= > === == !="
	for _, tc := range []struct{ in, want string }{
		{"", `malformed threshold expression "": ` + ops},
		{"p(95)", `malformed threshold expression "p(95)": ` + ops},
		{"p(95)<", `malformed threshold expression "p(95)<": ` + ops},
		{"p(95)<abc", `malformed threshold expression "p(95)<abc": "abc" is not a number`},
		{"p(95)<NaN", `malformed threshold expression "p(95)<NaN": "NaN" is not a number`},
		{"count<=", `malformed threshold expression "count<=": "=" is not a number`},
		{"p(101)<5", `malformed threshold expression "p(101)<5": invalid percentile "p(101)": N in p(N) must be a number between 0 and 100`},
		{"p(-1)<5", `malformed threshold expression "p(-1)<5": invalid percentile "p(-1)": N in p(N) must be a number between 0 and 100`},
		{"p(NaN)<5", `malformed threshold expression "p(NaN)<5": invalid percentile "p(NaN)": N in p(N) must be a number between 0 and 100`},
		{"p()<5", `malformed threshold expression "p()<5": invalid percentile "p()": N in p(N) must be a number between 0 and 100`},
		{"foo<5", `malformed threshold expression "foo<5": unknown aggregation method "foo": use count, rate, value, avg, min, max, med or p(N)`},
		{"<5", `malformed threshold expression "<5": unknown aggregation method "": use count, rate, value, avg, min, max, med or p(N)`},
		{"AVG<5", `malformed threshold expression "AVG<5": unknown aggregation method "AVG": use count, rate, value, avg, min, max, med or p(N)`},
	} {
		_, err := ParseExpression(tc.in)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q:\n got  %v\n want %s", tc.in, err, tc.want)
		}
	}
}

func TestAllowedPerType(t *testing.T) {
	r := metrics.NewRegistry()
	c := r.MustNewMetric("my_counter", metrics.Counter, metrics.Default)
	g := r.MustNewMetric("my_gauge", metrics.Gauge, metrics.Default)
	rt := r.MustNewMetric("my_rate", metrics.Rate, metrics.Default)
	tr := r.MustNewMetric("my_trend", metrics.Trend, metrics.Time)
	ok := map[*metrics.Metric][]string{
		c: {"count", "rate"}, g: {"value"}, rt: {"rate"}, tr: {"avg", "min", "max", "med", "p(90)"},
	}
	want := map[*metrics.Metric]string{
		c: "count, rate", g: "value", rt: "rate", tr: "avg, min, max, med, p(N)",
	}
	all := []string{"count", "rate", "value", "avg", "min", "max", "med", "p(90)"}
	for m, good := range ok {
		for _, a := range all {
			e, err := ParseExpression(a + "<1")
			if err != nil {
				t.Fatal(err)
			}
			err = checkAllowed(e.Agg, m)
			isGood := strings.Contains(" "+strings.Join(good, " ")+" ", " "+a+" ")
			if isGood != (err == nil) {
				t.Errorf("%s on %s: err %v", a, m.Type, err)
			}
			if err != nil {
				msg := `unsupported aggregation method "` + a + `" on metric "` + m.Name +
					`"; supported aggregation methods for this metric are: ` + want[m]
				if err.Error() != msg {
					t.Errorf("got  %v\nwant %s", err, msg)
				}
			}
		}
	}
}

func TestHolds(t *testing.T) {
	for _, tc := range []struct {
		expr string
		v    float64
		want bool
	}{
		{"avg<5", 4.9, true}, {"avg<5", 5, false}, {"avg<=5", 5, true}, {"avg>5", 5, false},
		{"avg>=5", 5, true}, {"avg==5", 5, true}, {"avg===5", 4, false}, {"avg!=5", 4, true},
	} {
		e, _ := ParseExpression(tc.expr)
		if got := e.Holds(tc.v); got != tc.want {
			t.Errorf("%s with %v: %v", tc.expr, tc.v, got)
		}
	}
}

func FuzzParseExpression(f *testing.F) {
	for _, s := range []string{"p(95)<200", "count===5", "rate!=0", "p(", "<=<", "value>=-1e308"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseExpression(s)
		if err != nil {
			return
		}
		if e.Agg.Method == "p" && (e.Agg.P < 0 || e.Agg.P > 100) {
			t.Errorf("%q: percentile %v accepted", s, e.Agg.P)
		}
		_ = e.Holds(1)
	})
}
