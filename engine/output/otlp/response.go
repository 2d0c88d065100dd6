package otlp

import (
	"fmt"
	"io"
	"mime"
	"net/http"

	colmetricspb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/engine/output/sender"
)

// maxResponse bounds how much of an answer is read: an OTLP response is a few bytes, and
// anything long is not one.
const maxResponse = 64 << 10

// rejected turns a response's partial success into an error: a collector that accepted the call
// but rejected data points did not store them, and the samples count as dropped.
// (OTLP: opentelemetry/proto/collector/metrics/v1/metrics_service.proto, ExportMetricsPartialSuccess.)
func rejected(resp *colmetricspb.ExportMetricsServiceResponse) error {
	ps := resp.GetPartialSuccess()
	if n := ps.GetRejectedDataPoints(); n > 0 {
		return sender.Permanent(fmt.Errorf("the receiver rejected %d data points: %s", n, ps.GetErrorMessage()))
	}
	return nil
}

// acceptHTTP reads a 2xx answer of OTLP/HTTP. The receiver answers with an
// ExportMetricsServiceResponse in the request's encoding, or nothing; any other body means the
// endpoint is not an OTLP receiver (a web server that answers every path), and nothing was
// stored.
func acceptHTTP(r *http.Response) error {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxResponse))
	if err != nil || len(body) == 0 {
		return err
	}
	ct := r.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	resp := &colmetricspb.ExportMetricsServiceResponse{}
	switch mt {
	case "application/x-protobuf":
		err = proto.Unmarshal(body, resp)
	case "application/json":
		err = protojson.Unmarshal(body, resp)
	default:
		return sender.Permanent(fmt.Errorf("HTTP %s with %q content, not an OTLP response: is the endpoint an OTLP receiver?", r.Status, ct))
	}
	if err != nil {
		return sender.Permanent(fmt.Errorf("HTTP %s: not an OTLP response: %w", r.Status, err))
	}
	return rejected(resp)
}
