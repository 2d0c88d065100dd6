package restapi

import (
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
)

// metricAttributes is a metric in /v1/metrics (grafana/k6 api/v1/metric.go).
type metricAttributes struct {
	Type     string             `json:"type"`
	Contains string             `json:"contains"`
	Tainted  *bool              `json:"tainted"`
	Sample   map[string]float64 `json:"sample"`
}

type metricData struct {
	Type       string           `json:"type"`
	ID         string           `json:"id"`
	Attributes metricAttributes `json:"attributes"`
}

// Sample is a sink's values as /v1/metrics shows them (grafana/k6 metrics/sink.go, Format):
// counter count and rate, gauge value, rate rate, trend min, max, avg, med, p(90) and p(95).
func Sample(sink metrics.Sink, elapsed time.Duration) map[string]float64 {
	switch s := sink.(type) {
	case *metrics.CounterSink:
		return map[string]float64{"count": s.Sum, "rate": s.Rate(elapsed)}
	case *metrics.GaugeSink:
		return map[string]float64{"value": s.Value}
	case *metrics.RateSink:
		r, _ := s.Rate()
		return map[string]float64{"rate": r}
	case *metrics.TrendSink:
		return map[string]float64{"min": s.Min(), "max": s.Max(), "avg": s.Avg(), "med": s.Med(),
			"p(90)": s.Percentile(90), "p(95)": s.Percentile(95)}
	}
	return map[string]float64{}
}

func metricDataOf(m Metric, elapsed time.Duration) metricData {
	return metricData{Type: "metrics", ID: m.Name, Attributes: metricAttributes{
		Type: m.Metric.Type.String(), Contains: m.Metric.Contains.String(), Tainted: m.Tainted,
		Sample: Sample(m.Sink, elapsed),
	}}
}

func (h *handlers) getMetrics(w http.ResponseWriter, _ *http.Request) {
	list, elapsed := h.c.Metrics()
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	out := struct {
		Data []metricData `json:"data"`
	}{Data: make([]metricData, 0, len(list))}
	for _, m := range list {
		out.Data = append(out.Data, metricDataOf(m, elapsed))
	}
	writeJSON(w, "application/json", out)
}

func (h *handlers) getMetric(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimPrefix(r.URL.Path, "/v1/metrics/")
	list, elapsed := h.c.Metrics()
	for _, m := range list {
		if m.Name == id {
			writeJSON(w, "application/json", struct {
				Data metricData `json:"data"`
			}{metricDataOf(m, elapsed)})
			return
		}
	}
	apiError(w, "Not Found", "No metric with that ID was found", http.StatusNotFound)
}
