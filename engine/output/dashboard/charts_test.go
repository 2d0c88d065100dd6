package dashboard

import "github.com/dnecho/dnecho/engine/output"

// The calls the collector tests chart, named as a protocol module might name them.
const (
	LatencyMetric  = "req_duration"
	RequestsMetric = "reqs"
	ResultTag      = "result"
)

var testCharts = output.Charts{Latency: LatencyMetric, Requests: RequestsMetric, Breakdown: "server", Result: ResultTag}
