package otlp

import (
	"strings"
	"testing"
	"time"
)

func TestConfig(t *testing.T) {
	c, err := NewConfig(map[string]string{"OTEL_SERVICE_NAME": "svc", "K6_OTEL_EXPORTER_PROTOCOL": "http/protobuf",
		"K6_OTEL_HTTP_EXPORTER_ENDPOINT": "otel:4318", "K6_OTEL_HEADERS": "Authorization=Basic%20abc,x=1", "K6_OTEL_EXPORT_INTERVAL": "2s"}, "v1")
	if err != nil {
		t.Fatal(err)
	}
	if c.ServiceName != "svc" || c.ServiceVersion != "v1" || c.httpURL() != "https://otel:4318/v1/metrics" ||
		c.Headers["Authorization"] != "Basic abc" || c.ExportInterval != 2*time.Second || c.FlushInterval != time.Second {
		t.Errorf("config %+v", c)
	}
	if d := c.description(); d != "opentelemetry (http/protobuf, https://otel:4318/v1/metrics)" {
		t.Errorf("description %q", d)
	}
	for _, env := range []string{"K6_OTEL_EXPORTER_TYPE=grpc", "K6_OTEL_EXPORTER_PROTOCOL=http/json", "K6_OTEL_HTTP_EXPORTER_ENDPOINT=http://x:1",
		"K6_OTEL_FLUSH_INTERVAL=0", "K6_OTEL_HEADERS=novalue", "K6_OTEL_SINGLE_COUNTER_FOR_RATE=false", "K6_OTEL_SERVICE_NAME=",
		// An endpoint that can never be reached fails the start, not every export.
		"K6_OTEL_GRPC_EXPORTER_ENDPOINT=notanaddr", "K6_OTEL_GRPC_EXPORTER_ENDPOINT=otel:99999", "K6_OTEL_GRPC_EXPORTER_ENDPOINT=http://otel:4317",
		"K6_OTEL_GRPC_EXPORTER_ENDPOINT=", "K6_OTEL_HTTP_EXPORTER_ENDPOINT=otel:0", "K6_OTEL_HTTP_EXPORTER_ENDPOINT=otel"} {
		k, v, _ := strings.Cut(env, "=")
		e := map[string]string{k: v}
		if k == "K6_OTEL_HTTP_EXPORTER_ENDPOINT" {
			e["K6_OTEL_EXPORTER_PROTOCOL"] = "http/protobuf"
		}
		if _, err := NewConfig(e, "v"); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s: err %v, want one naming %s", env, err, k)
		}
	}
}
