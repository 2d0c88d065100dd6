// Command otlpsink accepts OTLP metric exports over gRPC and discards them: the OpenTelemetry
// collector stand-in of the output benchmarks in BENCHMARKS.md.
package main

import (
	"context"
	"flag"
	"log"
	"net"

	colmetricspb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	"google.golang.org/grpc"
)

type sink struct {
	colmetricspb.UnimplementedMetricsServiceServer
}

func (sink) Export(context.Context, *colmetricspb.ExportMetricsServiceRequest) (*colmetricspb.ExportMetricsServiceResponse, error) {
	return &colmetricspb.ExportMetricsServiceResponse{}, nil
}

func main() {
	addr := flag.String("addr", "127.0.0.1:4317", "listen address")
	flag.Parse()
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	s := grpc.NewServer()
	colmetricspb.RegisterMetricsServiceServer(s, sink{})
	log.Fatal(s.Serve(l))
}
