package cli

import (
	"testing"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"

	"github.com/dnecho/dnecho/testsupport/teststore"
)

// TestOutputOpenTelemetry exports a run over gRPC and over HTTP/protobuf to an OTLP receiver made
// from the official protocol definitions: k6's instruments, units and attributes, cumulative
// values equal to the summary's, and the headers a hosted back end needs.
func TestOutputOpenTelemetry(t *testing.T) {
	t.Parallel()
	rcv := teststore.StartOTLP(t, "x-api-key")
	for _, proto := range []struct {
		name string
		env  []string
	}{
		{"grpc", []string{"K6_OTEL_GRPC_EXPORTER_ENDPOINT=" + rcv.GRPCAddr, "K6_OTEL_GRPC_EXPORTER_INSECURE=true"}},
		{"http", []string{"K6_OTEL_EXPORTER_PROTOCOL=http/protobuf", "K6_OTEL_HTTP_EXPORTER_ENDPOINT=" + rcv.HTTPAddr, "K6_OTEL_HTTP_EXPORTER_INSECURE=true"}},
	} {
		env := append(proto.env, "K6_OTEL_HEADERS=x-api-key=s%3Dcret", "K6_OTEL_EXPORT_INTERVAL=300ms", "K6_OTEL_FLUSH_INTERVAL=100ms", "K6_OTEL_SERVICE_NAME=echo-"+proto.name)
		r, e := runOutputs(t, env, "-o", "opentelemetry")
		want := reqs(t, e)
		req, header := rcv.Last()
		if req == nil || header != "s=cret" {
			t.Fatalf("%s: last request %v with header %q\n%s", proto.name, req, header, r.all())
		}
		rm := req.ResourceMetrics[0]
		if rm.Resource.Attributes[0].Value.GetStringValue() != "echo-"+proto.name {
			t.Errorf("%s: resource %v", proto.name, rm.Resource)
		}
		got := map[string]int64{}
		for _, m := range rm.ScopeMetrics[0].Metrics {
			switch d := m.Data.(type) {
			case *metricspb.Metric_Sum:
				for _, p := range d.Sum.DataPoints {
					if m.Name == "dnecho_req_failed.total" && attr(p.Attributes, "condition") == "zero" {
						got[m.Name] += p.GetAsInt()
					}
					if m.Name == "dnecho_reqs" {
						got[m.Name] += int64(p.GetAsDouble())
					}
				}
			case *metricspb.Metric_Histogram:
				for _, p := range d.Histogram.DataPoints {
					if m.Name == "dnecho_req_duration" {
						if m.Unit != "ms" || attr(p.Attributes, "datanode") == "" || attr(p.Attributes, "result") != "SUCCESS" {
							t.Errorf("%s: %s unit %q point %v", proto.name, m.Name, m.Unit, p.Attributes)
						}
						got[m.Name] += int64(p.Count)
					}
				}
			}
		}
		for _, m := range []string{"dnecho_reqs", "dnecho_req_duration", "dnecho_req_failed.total"} {
			if got[m] != want {
				t.Errorf("%s: %s = %d, summary counts %d calls", proto.name, m, got[m], want)
			}
		}
		if a := accounts(t, r)["opentelemetry"]; a[1] != 0 || a[0] == 0 {
			t.Errorf("%s: account %v", proto.name, a)
		}
	}
}

func attr(kvs []*commonpb.KeyValue, k string) string {
	for _, kv := range kvs {
		if kv.Key == k {
			return kv.Value.GetStringValue()
		}
	}
	return ""
}
