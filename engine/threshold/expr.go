// Package threshold parses k6 thresholds (docs/k6-compat.md#thresholds), evaluates them against
// metric sinks during the run and at its end, and reports failures and aborts.
package threshold

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dnecho/dnecho/engine/metrics"
)

// Operator is a comparison operator of a threshold expression.
type Operator string

// The operators; "===" parses to Equal.
const (
	LessEqual    Operator = "<="
	Less         Operator = "<"
	GreaterEqual Operator = ">="
	Greater      Operator = ">"
	Equal        Operator = "=="
	NotEqual     Operator = "!="
)

// searchOrder is k6's: the first operator found with a non-empty right-hand side splits the text.
var searchOrder = []string{"<=", "<", ">=", ">", "===", "==", "!="}

// Aggregation is the left-hand side of an expression: count, rate, value, avg, min, max, med or
// p(N).
type Aggregation struct {
	Method string  // one of the names above; "p" for percentiles
	P      float64 // N of p(N)
	Text   string  // as written, trimmed
}

// String returns the aggregation as written.
func (a Aggregation) String() string { return a.Text }

// Expression is a parsed `<aggregation> <operator> <number>`.
type Expression struct {
	Source string // as written
	Agg    Aggregation
	Op     Operator
	Value  float64
}

// ParseExpression parses one threshold expression.
func ParseExpression(src string) (Expression, error) {
	lhs, op, rhs, ok := split(src)
	if !ok {
		return Expression{}, fmt.Errorf("malformed threshold expression %q: expected <aggregation> <operator> <number> with an operator among %s",
			src, strings.Join(searchOrder, " "))
	}
	agg, err := parseAggregation(lhs)
	if err != nil {
		return Expression{}, fmt.Errorf("malformed threshold expression %q: %w", src, err)
	}
	v, err := strconv.ParseFloat(rhs, 64)
	if err != nil || math.IsNaN(v) {
		return Expression{}, fmt.Errorf("malformed threshold expression %q: %q is not a number", src, rhs)
	}
	return Expression{Source: src, Agg: agg, Op: op, Value: v}, nil
}

func split(src string) (lhs string, op Operator, rhs string, ok bool) {
	for _, o := range searchOrder {
		i := strings.Index(src, o)
		if i < 0 {
			continue
		}
		r := strings.TrimSpace(src[i+len(o):])
		if r == "" {
			continue
		}
		if o == "===" {
			o = "=="
		}
		return strings.TrimSpace(src[:i]), Operator(o), r, true
	}
	return "", "", "", false
}

func parseAggregation(s string) (Aggregation, error) {
	switch s {
	case "count", "rate", "value", "avg", "min", "max", "med":
		return Aggregation{Method: s, Text: s}, nil
	}
	p, isP, err := metrics.ParsePercentile(s)
	if err != nil {
		return Aggregation{}, err
	}
	if !isP {
		return Aggregation{}, fmt.Errorf("unknown aggregation method %q: use count, rate, value, avg, min, max, med or p(N)", s)
	}
	return Aggregation{Method: "p", P: p, Text: s}, nil
}

// allowed lists, per metric type, the aggregations k6 accepts in thresholds
// (docs/k6-compat.md#expressions); count is not one of a Trend's, although summaryTrendStats
// accepts it.
var allowed = map[metrics.MetricType][]string{
	metrics.Counter: {"count", "rate"},
	metrics.Gauge:   {"value"},
	metrics.Rate:    {"rate"},
	metrics.Trend:   {"avg", "min", "max", "med", "p(N)"},
}

func checkAllowed(a Aggregation, m *metrics.Metric) error {
	name := a.Method
	if name == "p" {
		name = "p(N)"
	}
	for _, ok := range allowed[m.Type] {
		if ok == name {
			return nil
		}
	}
	return fmt.Errorf("unsupported aggregation method %q on metric %q; supported aggregation methods for this metric are: %s",
		a.Text, m.Name, strings.Join(allowed[m.Type], ", "))
}

// Holds reports whether value satisfies the expression.
func (e Expression) Holds(value float64) bool {
	switch e.Op {
	case LessEqual:
		return value <= e.Value
	case Less:
		return value < e.Value
	case GreaterEqual:
		return value >= e.Value
	case Greater:
		return value > e.Value
	case Equal:
		return value == e.Value
	case NotEqual:
		return value != e.Value
	}
	return false
}
