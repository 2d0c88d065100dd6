package teststore

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	colmetricspb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
)

// OTLP is an in-process OTLP metrics receiver over gRPC and HTTP/protobuf, built from the
// official generated service (go.opentelemetry.io/proto/otlp). It keeps every request and the
// value of one header.
type OTLP struct {
	colmetricspb.UnimplementedMetricsServiceServer
	GRPCAddr string // host:port
	HTTPAddr string // host:port; the path is /v1/metrics
	header   string

	mu      sync.Mutex
	reqs    []*colmetricspb.ExportMetricsServiceRequest
	headers []string
}

// StartOTLP serves until the test ends; header names the request header (gRPC metadata) to keep.
func StartOTLP(t testing.TB, header string) *OTLP {
	t.Helper()
	r := &OTLP{header: header}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	colmetricspb.RegisterMetricsServiceServer(gs, r)
	done := make(chan struct{})
	go func() { defer close(done); _ = gs.Serve(l) }()
	hs := httptest.NewServer(http.HandlerFunc(r.serveHTTP))
	t.Cleanup(func() { gs.Stop(); <-done; hs.Close() })
	r.GRPCAddr, r.HTTPAddr = l.Addr().String(), hs.Listener.Addr().String()
	return r
}

// Export implements the gRPC service.
func (r *OTLP) Export(ctx context.Context, req *colmetricspb.ExportMetricsServiceRequest) (*colmetricspb.ExportMetricsServiceResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	h := ""
	if v := md.Get(r.header); len(v) > 0 {
		h = v[0]
	}
	r.keep(req, h)
	return &colmetricspb.ExportMetricsServiceResponse{}, nil
}

func (r *OTLP) serveHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost || req.URL.Path != "/v1/metrics" || req.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "want POST /v1/metrics with application/x-protobuf", http.StatusBadRequest)
		return
	}
	b, _ := io.ReadAll(req.Body)
	m := &colmetricspb.ExportMetricsServiceRequest{}
	if err := proto.Unmarshal(b, m); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.keep(m, req.Header.Get(r.header))
	out, _ := proto.Marshal(&colmetricspb.ExportMetricsServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func (r *OTLP) keep(req *colmetricspb.ExportMetricsServiceRequest, header string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, req)
	r.headers = append(r.headers, header)
}

// Last returns the latest request (the exports are cumulative) and its header, or nil.
func (r *OTLP) Last() (*colmetricspb.ExportMetricsServiceRequest, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.reqs) == 0 {
		return nil, ""
	}
	return r.reqs[len(r.reqs)-1], r.headers[len(r.headers)-1]
}
