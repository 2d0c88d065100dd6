// Package otlp is the `-o opentelemetry` output (alias experimental-opentelemetry): metrics in
// OTLP over gRPC or HTTP/protobuf with k6's K6_OTEL_* settings and mapping (instrument = prefix +
// metric name, unit ms or By, attributes = tags; Counter → monotonic sum, Gauge → gauge, Trend →
// histogram, Rate → <name>.total counter with a condition attribute).
//
// It aggregates with cumulative temporality, as the OpenTelemetry SDK's default reader does, but
// is built on the generated OTLP messages (go.opentelemetry.io/proto/otlp) rather than on the SDK:
// the samples already arrive in batches with their own time, the aggregation is a few lines, and
// the binary stays lean. Every export carries the whole test so far, so a lost export loses
// resolution, not data.
package otlp

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	colmetricspb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/output"
	"github.com/dnecho/dnecho/engine/output/sender"
)

// Version is the default service.version (the CLI sets it to the build's version).
var Version = "dev"

// Output aggregates samples per series and exports them periodically.
type Output struct {
	cfg     Config
	batcher *output.Batcher
	sender  *sender.Sender
	conn    *grpc.ClientConn
	now     func() time.Time

	// Owned by the fold goroutine (and by Stop after it ended).
	series     *output.SeriesIndex[*series]
	folded     int64
	start      time.Time
	lastExport time.Time
}

// New builds the output from the K6_OTEL_* environment.
func New(p output.Params) (*Output, error) {
	cfg, err := NewConfig(p.Env, Version)
	if err != nil {
		return nil, err
	}
	log := p.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	o := &Output{cfg: cfg, now: time.Now, series: output.NewSeriesIndex(newSeries)}
	send, err := o.transport()
	if err != nil {
		return nil, fmt.Errorf("opentelemetry: %w", err)
	}
	o.sender = sender.New(sender.Config{Name: "opentelemetry", Latest: true, Logger: log}, send)
	o.batcher = output.NewBatcher(cfg.FlushInterval, o.fold)
	o.batcher.SetLimit(output.DefaultPendingLimit)
	return o, nil
}

func (o *Output) transport() (sender.SendFunc, error) {
	c := o.cfg
	tlsCfg, err := sender.TLS{InsecureSkipVerify: c.TLSInsecureSkipVerify, CAFile: c.TLSCA, CertFile: c.TLSClientCert, KeyFile: c.TLSClientKey}.Config()
	if err != nil {
		return nil, err
	}
	if c.Protocol == ProtocolHTTP {
		client, err := sender.NewHTTPClient(sender.TLS{InsecureSkipVerify: c.TLSInsecureSkipVerify, CAFile: c.TLSCA, CertFile: c.TLSClientCert, KeyFile: c.TLSClientKey}, DefaultTimeout, "")
		if err != nil {
			return nil, err
		}
		h := http.Header{"Content-Type": {"application/x-protobuf"}, "User-Agent": {"dnecho"}}
		if c.HTTPUsername != "" {
			h.Set("Authorization", sender.BasicAuth(c.HTTPUsername, c.HTTPPassword))
		}
		for k, v := range c.Headers {
			h.Set(k, v)
		}
		return sender.HTTPPost{Client: client, URL: c.httpURL(), Header: h, Accept: acceptHTTP}.Send, nil
	}
	creds := credentials.NewTLS(tlsCfg)
	if c.GRPCInsecure {
		creds = insecure.NewCredentials()
	}
	// grpc.NewClient connects lazily: a collector that is down fails the exports, not the start.
	if o.conn, err = grpc.NewClient(c.GRPCEndpoint, grpc.WithTransportCredentials(creds)); err != nil {
		return nil, err
	}
	client := colmetricspb.NewMetricsServiceClient(o.conn)
	md := metadata.New(c.Headers)
	return func(ctx context.Context, body []byte) error {
		req := &colmetricspb.ExportMetricsServiceRequest{}
		if err := proto.Unmarshal(body, req); err != nil {
			return sender.Permanent(err)
		}
		ctx, cancel := context.WithTimeout(metadata.NewOutgoingContext(ctx, md), DefaultTimeout)
		defer cancel()
		resp, err := client.Export(ctx, req)
		if err != nil {
			return err
		}
		return rejected(resp)
	}, nil
}

// Description implements output.Output.
func (o *Output) Description() string { return o.cfg.description() }

// Start starts folding and exporting.
func (o *Output) Start() error {
	o.start = o.now()
	o.lastExport = o.start
	o.sender.Start()
	o.batcher.Start()
	return nil
}

// AddSamples implements output.Output.
func (o *Output) AddSamples(batch []metrics.Sample) { o.batcher.AddSamples(batch) }

// Stop folds what is queued, exports the final values and waits, bounded, for the export.
func (o *Output) Stop() error {
	err := o.batcher.Stop()
	if len(o.series.All()) > 0 {
		o.sender.Enqueue(o.payload())
	}
	o.sender.Stop()
	if o.conn != nil {
		o.conn.Close()
	}
	return err
}

// Account implements output.Accounter.
func (o *Output) Account() output.Account {
	w, _, err := o.sender.Account()
	return output.Account{Written: w, Dropped: o.folded - w + o.batcher.Dropped(), Err: err}
}

func (o *Output) fold(batches [][]metrics.Sample) error {
	for s := range output.Samples(batches) {
		o.series.Get(s.Metric, s.Tags).add(s.Value, uint64(s.Time.UnixNano()))
		o.folded++
	}
	if now := o.now(); now.Sub(o.lastExport) >= o.cfg.ExportInterval && len(o.series.All()) > 0 {
		o.lastExport = now
		o.sender.Enqueue(o.payload())
	}
	return nil
}

// payload is an ExportMetricsServiceRequest with every series, cumulative since Start.
func (o *Output) payload() sender.Payload {
	start, now := uint64(o.start.UnixNano()), uint64(o.now().UnixNano())
	byMetric := map[*metrics.Metric]*metricspb.Metric{}
	scope := &metricspb.ScopeMetrics{Scope: &commonpb.InstrumentationScope{Name: "k6"}}
	for _, s := range o.series.All() {
		m := byMetric[s.metric]
		if m == nil {
			m = instrument(s.metric, o.cfg.MetricPrefix)
			byMetric[s.metric] = m
			scope.Metrics = append(scope.Metrics, m)
		}
		s.fill(m, start, now)
	}
	str := func(k, v string) *commonpb.KeyValue {
		return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
	}
	req := &colmetricspb.ExportMetricsServiceRequest{ResourceMetrics: []*metricspb.ResourceMetrics{{
		Resource:     &resourcepb.Resource{Attributes: []*commonpb.KeyValue{str("service.name", o.cfg.ServiceName), str("service.version", o.cfg.ServiceVersion)}},
		ScopeMetrics: []*metricspb.ScopeMetrics{scope},
	}}}
	b, _ := proto.Marshal(req) // cannot fail for these messages
	return sender.Payload{Body: b, Samples: o.folded}
}
