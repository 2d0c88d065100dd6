package promrw

import (
	"crypto/tls"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/output"
)

// Defaults (k6: internal/output/prometheusrw/remotewrite/config.go).
const (
	DefaultURL          = "http://localhost:9090/api/v1/write"
	DefaultPushInterval = 5 * time.Second
	DefaultTimeout      = 5 * time.Second
	// Prefix starts every series name.
	Prefix = "k6_"
)

// DefaultTrendStats is the trend stats written when K6_PROMETHEUS_RW_TREND_STATS is unset.
var DefaultTrendStats = []string{"p(99)"}

// Config is the output's settings, consolidated from defaults < K6_PROMETHEUS_RW_* < argument.
type Config struct {
	URL             string
	PushInterval    time.Duration
	TrendStats      []trendStat
	NativeHistogram bool // Trends as native histograms instead of per-stat gauges
	StaleMarkers    bool // mark every series stale at the end of the test

	InsecureSkipTLSVerify bool
	TLSMinVersion         uint16 // TLS 1.3 unless "1.2" is asked for
	ClientCert, ClientKey string
	Username, Password    string // basic auth, when Username is set
	BearerToken           string
	Headers               map[string]string
}

// trendStat is one entry of the trend stats list and the series suffix it writes.
type trendStat struct {
	stat   metrics.TrendStat // nil stat name for "sum"
	sum    bool
	suffix string // p(99) → p99, p(99.9) → p999, avg → avg
}

func parseTrendStats(option string, list []string) ([]trendStat, error) {
	var out []trendStat
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if s == "sum" {
			out = append(out, trendStat{sum: true, suffix: "sum"})
			continue
		}
		st, err := metrics.ParseTrendStat(s)
		if err != nil {
			return nil, &output.SettingError{Option: option, Value: s, Allowed: "use avg, min, med, max, count, sum or p(N)"}
		}
		suffix := s
		if strings.HasPrefix(s, "p(") {
			suffix = "p" + strings.ReplaceAll(strings.TrimSpace(s[2:len(s)-1]), ".", "")
		}
		out = append(out, trendStat{stat: st, suffix: suffix})
	}
	if len(out) == 0 {
		return nil, &output.SettingError{Option: option, Value: strings.Join(list, ","), Allowed: "list at least one trend stat"}
	}
	return out, nil
}

// NewConfig consolidates the settings of -o experimental-prometheus-rw[=k=v,...].
func NewConfig(env map[string]string, arg string) (Config, error) {
	c := Config{URL: DefaultURL, PushInterval: DefaultPushInterval, TLSMinVersion: tls.VersionTLS13, Headers: map[string]string{}}
	c.TrendStats, _ = parseTrendStats("", DefaultTrendStats)
	if err := c.applyEnv(env); err != nil {
		return c, err
	}
	if err := c.applyArg(arg); err != nil {
		return c, err
	}
	u, err := url.Parse(c.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return c, &output.SettingError{Option: "K6_PROMETHEUS_RW_SERVER_URL", Value: c.URL, Allowed: "use http[s]://host:port/api/v1/write"}
	}
	return c, nil
}

const envPrefix = "K6_PROMETHEUS_RW_"

func (c *Config) applyEnv(env map[string]string) error {
	for k, v := range env {
		name, ok := strings.CutPrefix(k, envPrefix)
		if !ok {
			continue
		}
		if h, ok := strings.CutPrefix(name, "HEADERS_"); ok {
			c.Headers[h] = v
			continue
		}
		if err := c.set(k, envKeys[name], v); err != nil {
			return err
		}
	}
	return nil
}

// envKeys maps environment names (without the prefix) to argument keys.
var envKeys = map[string]string{
	"SERVER_URL": "url", "PUSH_INTERVAL": "pushInterval", "TREND_STATS": "trendStats",
	"TREND_AS_NATIVE_HISTOGRAM": "trendAsNativeHistogram", "STALE_MARKERS": "staleMarkers",
	"INSECURE_SKIP_TLS_VERIFY": "insecureSkipTLSVerify", "TLS_MINIMUM_VERSION": "tlsMinVersion", "TLS_MIN_VERSION": "tlsMinVersion",
	"USERNAME": "username", "PASSWORD": "password", "BEARER_TOKEN": "bearerToken",
	"CLIENT_CERTIFICATE": "clientCertificate", "CLIENT_CERTIFICATE_KEY": "clientCertificateKey",
	"HTTP_HEADERS": "httpHeaders", "SIGV4_REGION": "sigv4", "SIGV4_ACCESS_KEY": "sigv4", "SIGV4_SECRET_KEY": "sigv4",
}

func (c *Config) applyArg(arg string) error {
	kvs, err := output.ParseKVList(arg)
	if err != nil {
		return &output.SettingError{Option: "experimental-prometheus-rw argument", Value: arg, Allowed: "use key=value pairs separated by commas"}
	}
	for _, kv := range kvs {
		if h, ok := strings.CutPrefix(kv.Key, "headers."); ok {
			c.Headers[h] = kv.Value
			continue
		}
		switch kv.Key {
		case "url", "insecureSkipTLSVerify", "tlsMinVersion", "username", "password", "pushInterval",
			"trendAsNativeHistogram", "clientCertificate", "clientCertificateKey", "staleMarkers", "bearerToken":
		default:
			return &output.SettingError{Option: "experimental-prometheus-rw argument " + kv.Key, Value: kv.Value,
				Allowed: "keys are url, insecureSkipTLSVerify, tlsMinVersion, username, password, pushInterval, trendAsNativeHistogram, staleMarkers, bearerToken, clientCertificate, clientCertificateKey, headers.NAME"}
		}
		if err := c.set(kv.Key, kv.Key, kv.Value); err != nil {
			return err
		}
	}
	return nil
}

// set applies one setting given by its argument key; option names it in errors.
func (c *Config) set(option, key, v string) error {
	var err error
	switch key {
	case "url":
		c.URL = v
	case "pushInterval":
		c.PushInterval, err = output.ParsePositiveDuration(option, v)
	case "trendStats":
		c.TrendStats, err = parseTrendStats(option, strings.Split(v, ","))
	case "trendAsNativeHistogram":
		c.NativeHistogram, err = output.ParseBool(option, v)
	case "staleMarkers":
		c.StaleMarkers, err = output.ParseBool(option, v)
	case "insecureSkipTLSVerify":
		c.InsecureSkipTLSVerify, err = output.ParseBool(option, v)
	case "tlsMinVersion":
		switch strings.TrimSpace(v) {
		case "1.2":
			c.TLSMinVersion = tls.VersionTLS12
		case "1.3":
			c.TLSMinVersion = tls.VersionTLS13
		default:
			err = &output.SettingError{Option: option, Value: v, Allowed: "use 1.2 or 1.3"}
		}
	case "username":
		c.Username = v
	case "password":
		c.Password = v
	case "bearerToken":
		c.BearerToken = v
	case "clientCertificate":
		c.ClientCert = v
	case "clientCertificateKey":
		c.ClientKey = v
	case "httpHeaders":
		var h map[string]string
		if h, err = output.ParseHeaders(option, v, ":"); err == nil {
			for k, hv := range h {
				c.Headers[k] = hv
			}
		}
	case "sigv4":
		err = &output.SettingError{Option: option, Value: "…", Allowed: "AWS SigV4 signing is not supported: use a bearer token, basic auth or headers"}
	}
	return err
}

// description is shown in the run header.
func (c Config) description() string {
	return fmt.Sprintf("experimental-prometheus-rw (%s)", c.URL)
}
