// Package builtin builds the outputs dnecho ships from -o/--out values, and runs several of them
// as one Set: the API both front ends use (`dnecho run` through the runner, and any front end
// that is not a script, such as the freon command).
//
// A front end that has samples but no script feeds a Set directly:
//
//	reg := metrics.NewRegistry()
//	rtt := reg.MustNewMetric("req_duration", metrics.Trend, metrics.Time)
//	set, err := builtin.Open([]string{"influxdb=http://127.0.0.1:8086/ozone", "web-dashboard"},
//		output.Params{Env: env, Logger: log, Charts: output.Charts{Latency: "req_duration", ...}})
//	if err != nil { ... }            // an invalid -o value or setting: nothing was started
//	if err := set.Start(); err != nil { ... }
//	tags := metrics.NewTags(map[string]string{"server": addr, "result": "SUCCESS"})
//	set.PushSamples([]metrics.Sample{{Metric: rtt, Time: time.Now(), Value: ms, Tags: tags}})
//	...
//	stopped := set.Stop()           // flushes; one account per output
//	for _, s := range stopped { log.Info(s.Line()) }
//	set.Finish(output.End{Text: report, Duration: d}) // writes the dashboard's HTML report
//	if builtin.Lost(stopped) != nil && failOnLoss { ... } // exit output.ExitDataLost
//
// PushSamples is safe for concurrent use and never blocks on I/O; the pushed slice is shared with
// the outputs and must not be modified afterwards.
package builtin

import (
	"fmt"
	"strings"

	"github.com/dnecho/dnecho/engine/output"
	"github.com/dnecho/dnecho/engine/output/csv"
	"github.com/dnecho/dnecho/engine/output/dashboard"
	"github.com/dnecho/dnecho/engine/output/influxdb"
	"github.com/dnecho/dnecho/engine/output/json"
	"github.com/dnecho/dnecho/engine/output/otlp"
	"github.com/dnecho/dnecho/engine/output/promrw"
)

// Types lists the output types New accepts.
var Types = []string{"csv", "experimental-prometheus-rw", "influxdb", "json", "opentelemetry", "web-dashboard", "xk6-influxdb"}

// New builds the output named by an -o value "type[=arg]"; p.Arg is replaced by arg. An empty
// arg after "=" is refused: it is a mistake (a shell variable that expanded to nothing), and
// taking it as "no argument" would quietly write to the type's default destination.
func New(spec string, p output.Params) (output.Output, error) {
	typ, arg := output.ParseSpec(spec)
	if strings.Contains(spec, "=") && strings.TrimSpace(arg) == "" {
		return nil, fmt.Errorf("nothing after %q: give a destination, e.g. -o %s=results.%s, or -o %s alone for its default",
			typ+"=", typ, typ, typ)
	}
	p.Arg = arg
	switch typ {
	case "json":
		return json.New(p)
	case "csv":
		return csv.New(p)
	case "influxdb":
		return influxdb.New(p, false)
	case "xk6-influxdb":
		return influxdb.New(p, true)
	case "experimental-prometheus-rw":
		return promrw.New(p)
	case "opentelemetry", "experimental-opentelemetry":
		return otlp.New(p)
	case "web-dashboard":
		return dashboard.New(p)
	case "cloud":
		return nil, fmt.Errorf("output cloud (Grafana Cloud k6) is a proprietary service dnecho cannot use: send the results to your own or a hosted store with -o experimental-prometheus-rw (Prometheus, Grafana Cloud, Mimir), -o xk6-influxdb (InfluxDB 2.x, InfluxDB Cloud) or -o opentelemetry (any OTLP back end)")
	}
	return nil, fmt.Errorf("unsupported output type %q: available are %s", typ, strings.Join(Types, ", "))
}
