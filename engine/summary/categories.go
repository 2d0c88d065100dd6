package summary

import "strings"

// Categories of the text summary, in display order (docs/k6-compat.md#layout). CUSTOM holds user
// and extension metrics (those of a k6/x/... module), and always comes first.
var categoryOrder = []string{"CUSTOM", "HTTP", "EXECUTION", "NETWORK", "BROWSER", "WEBVITALS", "GRPC", "WEBSOCKET"}

var builtinCategory = map[string]string{
	"iterations": "EXECUTION", "iteration_duration": "EXECUTION", "vus": "EXECUTION",
	"vus_max": "EXECUTION", "dropped_iterations": "EXECUTION",
	"data_sent": "NETWORK", "data_received": "NETWORK",
	"http_reqs": "HTTP", "http_req_failed": "HTTP", "http_req_duration": "HTTP",
	"http_req_blocked": "HTTP", "http_req_connecting": "HTTP", "http_req_tls_handshaking": "HTTP",
	"http_req_sending": "HTTP", "http_req_waiting": "HTTP", "http_req_receiving": "HTTP",
	"grpc_req_duration": "GRPC", "grpc_streams": "GRPC", "grpc_streams_msgs_sent": "GRPC",
	"grpc_streams_msgs_received": "GRPC",
	"ws_sessions":                "WEBSOCKET", "ws_msgs_sent": "WEBSOCKET", "ws_msgs_received": "WEBSOCKET",
	"ws_ping": "WEBSOCKET", "ws_session_duration": "WEBSOCKET", "ws_connecting": "WEBSOCKET",
}

// category places a metric by its (parent) name.
func category(name string) string {
	if c, ok := builtinCategory[name]; ok {
		return c
	}
	switch {
	case strings.HasPrefix(name, "browser_web_vital_"):
		return "WEBVITALS"
	case strings.HasPrefix(name, "browser_"):
		return "BROWSER"
	}
	return "CUSTOM"
}

// hidden reports whether a metric is left out of the metric blocks (rule 8): checks has its own
// lines, group_duration its own sections; compact mode also drops the HTTP phase timings.
func hidden(name string, mode Mode) bool {
	switch name {
	case "checks", "group_duration":
		return true
	case "http_req_blocked", "http_req_connecting", "http_req_receiving", "http_req_sending",
		"http_req_tls_handshaking", "http_req_waiting":
		return mode != Full
	}
	return false
}
