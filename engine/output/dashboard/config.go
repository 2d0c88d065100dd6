package dashboard

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/dnecho/dnecho/engine/output"
)

// Defaults (k6: internal/dashboard/options.go), except the host: 127.0.0.1 rather than every
// interface, so a run never exposes its page to the network unless asked, and the period, which
// k6 fixes at 10 s and dnecho picks from the test's length (AutoPeriod) unless it is set.
const (
	DefaultHost = "127.0.0.1"
	DefaultPort = 5665
	// MaxPoints bounds the points kept per chart (k6: 2880, about 8 h at 10 s).
	MaxPoints = 2880
)

// Config is the dashboard's settings: defaults < K6_WEB_DASHBOARD_* < -o web-dashboard=<query>.
type Config struct {
	Host string
	Port int // -1: no server, only the report
	// Period is the time one point of the charts covers; 0 (not set) lets the dashboard pick it
	// from the test's length and lengthen it on a long test (AutoPeriod, nextPeriod).
	Period time.Duration
	Open   bool   // k6 opens a browser; dnecho prints the URL instead
	Export string // HTML report written at the end ("" none)
	Record string // k6's event recording: not supported
	Tags   []string
}

// NewConfig consolidates the settings.
func NewConfig(env map[string]string, arg string) (Config, error) {
	c := Config{Host: DefaultHost, Port: DefaultPort, Tags: []string{"group"}}
	for _, k := range []string{"HOST", "PORT", "PERIOD", "OPEN", "EXPORT", "REPORT", "RECORD", "TAGS"} {
		if v, ok := env["K6_WEB_DASHBOARD_"+k]; ok {
			if err := c.set("K6_WEB_DASHBOARD_"+k, strings.ToLower(k), v); err != nil {
				return c, err
			}
		}
	}
	q, err := url.ParseQuery(arg)
	if err != nil {
		return c, &output.SettingError{Option: "web-dashboard argument", Value: arg, Allowed: "use a query string such as port=5665&period=2s&export=report.html"}
	}
	for k, vs := range q {
		key := map[string]string{"port": "port", "host": "host", "period": "period", "open": "open", "export": "export",
			"report": "export", "record": "record", "tag": "tags", "tags": "tags"}[k]
		if key == "" {
			return c, &output.SettingError{Option: "web-dashboard parameter " + k, Value: vs[0], Allowed: "parameters are host, port, period, open, export (or report), record, tag"}
		}
		if err := c.set(k, key, vs[len(vs)-1]); err != nil {
			return c, err
		}
	}
	return c, nil
}

func (c *Config) set(option, key, v string) error {
	var err error
	switch key {
	case "host":
		c.Host = v
	case "port":
		c.Port, err = strconv.Atoi(strings.TrimSpace(v))
		if err != nil || c.Port < -1 || c.Port > 65535 {
			err = &output.SettingError{Option: option, Value: v, Allowed: "use a port number, 0 for any free port or -1 for no server"}
		}
	case "period":
		c.Period, err = output.ParsePositiveDuration(option, v)
	case "open":
		c.Open, err = output.ParseBool(option, v)
	case "export", "report":
		c.Export = v
	case "record":
		c.Record = v
	case "tags":
		c.Tags = strings.Split(v, ",")
	}
	return err
}

func (c Config) description() string {
	var parts []string
	if c.Port >= 0 {
		parts = append(parts, "http://"+c.addr())
	}
	if c.Export != "" {
		parts = append(parts, "report "+c.Export)
	}
	return fmt.Sprintf("web-dashboard (%s)", strings.Join(parts, ", "))
}

func (c Config) addr() string {
	host := c.Host
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return fmt.Sprintf("%s:%d", host, c.Port)
}
