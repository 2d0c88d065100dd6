package otlp

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/dnecho/dnecho/engine/output"
	"github.com/dnecho/dnecho/internal/hostport"
)

// Defaults (k6: internal/output/opentelemetry/config.go).
const (
	DefaultServiceName    = "k6"
	DefaultFlushInterval  = time.Second
	DefaultExportInterval = 10 * time.Second
	DefaultGRPCEndpoint   = "localhost:4317"
	DefaultHTTPEndpoint   = "localhost:4318"
	DefaultHTTPURLPath    = "/v1/metrics"
	DefaultTimeout        = 10 * time.Second

	ProtocolGRPC = "grpc"
	ProtocolHTTP = "http/protobuf"
)

// Config is the output's settings, from defaults < K6_OTEL_* (the output takes no argument).
type Config struct {
	ServiceName, ServiceVersion, MetricPrefix string
	FlushInterval, ExportInterval             time.Duration
	Protocol                                  string

	GRPCEndpoint string
	GRPCInsecure bool

	HTTPEndpoint, HTTPURLPath  string
	HTTPInsecure               bool
	HTTPUsername, HTTPPassword string

	Headers                            map[string]string
	TLSInsecureSkipVerify              bool
	TLSCA, TLSClientCert, TLSClientKey string
}

// NewConfig reads the K6_OTEL_* environment; version is the default service.version.
func NewConfig(env map[string]string, version string) (Config, error) {
	c := Config{ServiceName: DefaultServiceName, ServiceVersion: version, FlushInterval: DefaultFlushInterval,
		ExportInterval: DefaultExportInterval, Protocol: ProtocolGRPC, GRPCEndpoint: DefaultGRPCEndpoint,
		HTTPEndpoint: DefaultHTTPEndpoint, HTTPURLPath: DefaultHTTPURLPath}
	if v, ok := env["OTEL_SERVICE_NAME"]; ok {
		c.ServiceName = v
	}
	if _, ok := env["K6_OTEL_EXPORTER_TYPE"]; ok {
		return c, &output.SettingError{Option: "K6_OTEL_EXPORTER_TYPE", Value: env["K6_OTEL_EXPORTER_TYPE"], Allowed: "no longer supported: use K6_OTEL_EXPORTER_PROTOCOL"}
	}
	for k, v := range env {
		name, ok := strings.CutPrefix(k, "K6_OTEL_")
		if !ok {
			continue
		}
		if err := c.set(k, name, v); err != nil {
			return c, err
		}
	}
	return c, c.validate()
}

func (c *Config) set(option, name, v string) error {
	strs := map[string]*string{
		"SERVICE_NAME": &c.ServiceName, "SERVICE_VERSION": &c.ServiceVersion, "METRIC_PREFIX": &c.MetricPrefix,
		"EXPORTER_PROTOCOL": &c.Protocol, "GRPC_EXPORTER_ENDPOINT": &c.GRPCEndpoint, "HTTP_EXPORTER_ENDPOINT": &c.HTTPEndpoint,
		"HTTP_EXPORTER_URL_PATH": &c.HTTPURLPath, "HTTP_EXPORTER_USERNAME": &c.HTTPUsername, "HTTP_EXPORTER_PASSWORD": &c.HTTPPassword,
		"TLS_CERTIFICATE": &c.TLSCA, "TLS_CLIENT_CERTIFICATE": &c.TLSClientCert, "TLS_CLIENT_KEY": &c.TLSClientKey,
	}
	if dst, ok := strs[name]; ok {
		*dst = v
		return nil
	}
	var err error
	switch name {
	case "FLUSH_INTERVAL":
		c.FlushInterval, err = output.ParsePositiveDuration(option, v)
	case "EXPORT_INTERVAL":
		c.ExportInterval, err = output.ParsePositiveDuration(option, v)
	case "GRPC_EXPORTER_INSECURE":
		c.GRPCInsecure, err = output.ParseBool(option, v)
	case "HTTP_EXPORTER_INSECURE":
		c.HTTPInsecure, err = output.ParseBool(option, v)
	case "TLS_INSECURE_SKIP_VERIFY":
		c.TLSInsecureSkipVerify, err = output.ParseBool(option, v)
	case "HEADERS":
		c.Headers, err = parseHeaders(option, v)
	case "SINGLE_COUNTER_FOR_RATE":
		var single bool
		if single, err = output.ParseBool(option, v); err == nil && !single {
			err = &output.SettingError{Option: option, Value: v, Allowed: "only true: rates are one <name>.total counter with a condition attribute (k6 v2)"}
		}
	}
	return err
}

// parseHeaders reads k1=v1,k2=v2 with URL-escaped names and values (W3C baggage style).
func parseHeaders(option, v string) (map[string]string, error) {
	raw, err := output.ParseHeaders(option, v, "=")
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for k, val := range raw {
		uk, err1 := url.PathUnescape(k)
		uv, err2 := url.PathUnescape(val)
		if err1 != nil || err2 != nil {
			return nil, &output.SettingError{Option: option, Value: v, Allowed: "escape names and values with %XX"}
		}
		out[uk] = uv
	}
	return out, nil
}

func (c Config) validate() error {
	switch {
	case c.ServiceName == "":
		return &output.SettingError{Option: "K6_OTEL_SERVICE_NAME", Allowed: "must not be empty"}
	case c.Protocol != ProtocolGRPC && c.Protocol != ProtocolHTTP:
		return &output.SettingError{Option: "K6_OTEL_EXPORTER_PROTOCOL", Value: c.Protocol, Allowed: "use grpc or http/protobuf"}
	case c.Protocol == ProtocolGRPC:
		return checkEndpoint("K6_OTEL_GRPC_EXPORTER_ENDPOINT", c.GRPCEndpoint)
	case c.Protocol == ProtocolHTTP:
		return checkEndpoint("K6_OTEL_HTTP_EXPORTER_ENDPOINT", c.HTTPEndpoint)
	}
	return nil
}

// checkEndpoint refuses an endpoint that is not host:port (k6 passes it to the exporter's
// WithEndpoint, which takes no scheme): dialled, it would fail every export of the run.
func checkEndpoint(option, v string) error {
	if err := hostport.Check(v); err != nil {
		return &output.SettingError{Option: option, Value: v, Allowed: err.Error()}
	}
	return nil
}

// httpURL is where the HTTP exporter posts.
func (c Config) httpURL() string {
	scheme := "https"
	if c.HTTPInsecure {
		scheme = "http"
	}
	return scheme + "://" + c.HTTPEndpoint + c.HTTPURLPath
}

func (c Config) description() string {
	if c.Protocol == ProtocolHTTP {
		return fmt.Sprintf("opentelemetry (http/protobuf, %s)", c.httpURL())
	}
	insecure := ""
	if c.GRPCInsecure {
		insecure = " insecure"
	}
	return fmt.Sprintf("opentelemetry (grpc%s, %s)", insecure, c.GRPCEndpoint)
}
