package otlp

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	colmetricspb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/output"
)

// partial is an OTLP answer that accepts the call and rejects every data point.
var partial = &colmetricspb.ExportMetricsServiceResponse{PartialSuccess: &colmetricspb.ExportMetricsPartialSuccess{
	RejectedDataPoints: 3, ErrorMessage: "unknown tenant",
}}

// TestRejectedExportsAreLosses: an endpoint that answers without storing anything (a web server
// that is not an OTLP receiver, a receiver that rejects the data points) leaves every sample
// dropped, so the run reports the loss and --fail-on-output-loss fails it, never reports such an
// endpoint's samples as written.
func TestRejectedExportsAreLosses(t *testing.T) {
	t.Parallel()
	body, _ := proto.Marshal(partial)
	for _, tc := range []struct {
		name, contentType, body, want string
	}{
		{"a web page", "text/html", "<html>hello</html>", "not an OTLP response"},
		{"rejected data points", "application/x-protobuf", string(body), "rejected 3 data points: unknown tenant"},
		{"rejected data points, json", "application/json", `{"partialSuccess":{"rejectedDataPoints":"3","errorMessage":"unknown tenant"}}`, "rejected 3 data points"},
		{"an empty answer is a stored write", "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tc.contentType != "" {
					w.Header().Set("Content-Type", tc.contentType)
				}
				_, _ = w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			a := export(t, map[string]string{"K6_OTEL_EXPORTER_PROTOCOL": ProtocolHTTP, "K6_OTEL_HTTP_EXPORTER_INSECURE": "true",
				"K6_OTEL_HTTP_EXPORTER_ENDPOINT": strings.TrimPrefix(srv.URL, "http://")})
			checkAccount(t, a, tc.want)
		})
	}
	t.Run("grpc", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		gs := grpc.NewServer()
		colmetricspb.RegisterMetricsServiceServer(gs, rejecting{})
		go func() { _ = gs.Serve(ln) }()
		defer gs.Stop()
		a := export(t, map[string]string{"K6_OTEL_GRPC_EXPORTER_ENDPOINT": ln.Addr().String(), "K6_OTEL_GRPC_EXPORTER_INSECURE": "true"})
		checkAccount(t, a, "rejected 3 data points: unknown tenant")
	})
}

type rejecting struct {
	colmetricspb.UnimplementedMetricsServiceServer
}

func (rejecting) Export(context.Context, *colmetricspb.ExportMetricsServiceRequest) (*colmetricspb.ExportMetricsServiceResponse, error) {
	return partial, nil
}

// export sends 10 samples through an output built from env and returns its account.
func export(t *testing.T, env map[string]string) output.Account {
	t.Helper()
	o, err := New(output.Params{Env: env})
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Start(); err != nil {
		t.Fatal(err)
	}
	m := metrics.NewRegistry().MustNewMetric("cc", metrics.Counter, metrics.Default)
	for range 10 {
		o.AddSamples([]metrics.Sample{{Metric: m, Time: time.Now(), Value: 1, Tags: metrics.NewTags(nil)}})
	}
	if err := o.Stop(); err != nil {
		t.Fatal(err)
	}
	return o.Account()
}

// checkAccount wants every sample written when want is "", else every one dropped with want in
// the last error.
func checkAccount(t *testing.T, a output.Account, want string) {
	t.Helper()
	if want == "" {
		if a.Written != 10 || a.Dropped != 0 {
			t.Errorf("account %+v, want 10 written", a)
		}
		return
	}
	if a.Written != 0 || a.Dropped != 10 || a.Err == nil || !strings.Contains(a.Err.Error(), want) {
		t.Errorf("account %+v, want 10 dropped with %q", a, want)
	}
}
