package dashboard

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"mime"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/output"
	"github.com/dnecho/dnecho/engine/summary"
)

// assets holds the page, its script and style, and uPlot 1.6.32 (MIT, from npm; see
// assets/uplot/LICENSE and NOTICE).
//
//go:embed assets/page.html assets/app.js assets/app.css assets/uplot/uPlot.iife.min.js assets/uplot/uPlot.min.css
var assets embed.FS

var pageTemplate = template.Must(template.ParseFS(assets, "assets/page.html"))

// assetFiles are what the live page loads, by URL name.
var assetFiles = map[string]string{
	"app.js": "assets/app.js", "app.css": "assets/app.css",
	"uPlot.iife.min.js": "assets/uplot/uPlot.iife.min.js", "uPlot.min.css": "assets/uplot/uPlot.min.css",
}

func handleAsset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	file, ok := assetFiles[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	b, _ := assets.ReadFile(file) // embedded: cannot fail
	w.Header().Set("Content-Type", mime.TypeByExtension(path.Ext(name)))
	_, _ = w.Write(b)
}

// pageData fills page.html: the live page (assets by URL, data polled) or the report (assets and
// data inline, plus the summary).
type pageData struct {
	Live     bool
	Inline   bool
	PeriodMS int64

	UPlotJS, AppJS   template.JS
	UPlotCSS, AppCSS template.CSS
	Config, Data     template.JS
	Summary          *summaryDoc
	Text             string
}

func page(w io.Writer, d pageData) error {
	pollMS := min(max(d.PeriodMS/2, 250), 2000)
	cfg, _ := json.Marshal(map[string]any{"live": d.Live, "pollMS": pollMS})
	d.Config = template.JS(cfg)
	return pageTemplate.Execute(w, d)
}

// summaryDoc is the end-of-test summary as the report shows it.
type summaryDoc struct {
	Duration string
	Metrics  []summaryMetric
}

type summaryMetric struct {
	Name, Type string
	Values     []summaryValue
	Thresholds []summaryThreshold
}

// summaryValue is one value of a metric: Label is what the report shows ("p(99)=1.234ms"), Key
// and Raw the value's name and number for scripts and tests.
type summaryValue struct{ Key, Label, Raw string }

type summaryThreshold struct {
	Source string
	OK     bool
}

func newSummaryDoc(d *summary.Data) *summaryDoc {
	if d == nil {
		return nil
	}
	out := &summaryDoc{Duration: d.Duration.Round(time.Millisecond).String()}
	for _, m := range d.Metrics {
		sm := summaryMetric{Name: m.Name, Type: m.Type.String(), Values: summaryValues(m)}
		for _, t := range m.Thresholds {
			sm.Thresholds = append(sm.Thresholds, summaryThreshold{Source: t.Source, OK: t.OK})
		}
		out.Metrics = append(out.Metrics, sm)
	}
	return out
}

func summaryValues(m *summary.Metric) []summaryValue {
	if m.Type == metrics.Rate {
		return rateValues(m)
	}
	out := make([]summaryValue, len(m.Values))
	for i, v := range m.Values {
		out[i] = summaryValue{Key: v.Key, Label: v.Key + "=" + formatValue(m.Contains, m.Type, v), Raw: raw(v.V)}
	}
	return out
}

// rateValues says what a Rate counted in words rather than in k6's terms (passes are the
// non-zero values, so a failure rate's "passes" are its failures): "0 failed of 78,941" for a
// failure rate, else "7 out of 10" (the text summary's words).
func rateValues(m *summary.Metric) []summaryValue {
	trues, total := int64(m.Value("passes")), int64(m.Value("passes")+m.Value("fails"))
	rate := summary.Value{Key: "rate", V: m.Value("rate")}
	out := []summaryValue{{Key: "rate", Label: "rate=" + formatValue(m.Contains, m.Type, rate), Raw: raw(rate.V)}}
	if failureRate(m.Name) {
		return append(out, summaryValue{Key: "failed", Label: output.Thousands(trues) + " failed of " + output.Thousands(total), Raw: raw(float64(trues))})
	}
	return append(out, summaryValue{Key: "passes", Label: output.Thousands(trues) + " out of " + output.Thousands(total), Raw: raw(float64(trues))})
}

// failureRate reports whether a Rate metric counts failures as its true values, as k6's
// http_req_failed does: by k6's naming, a name (before any {tag:value}) ending in _failed, such
// as dnecho_req_failed. A Rate has no other mark of what its true values mean.
func failureRate(name string) bool {
	base, _, _ := strings.Cut(name, "{")
	return strings.HasSuffix(base, "_failed")
}

func raw(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func formatValue(contains metrics.ValueType, typ metrics.MetricType, v summary.Value) string {
	switch {
	case typ == metrics.Trend && v.Key != "count" && contains == metrics.Time:
		return fmt.Sprintf("%.3fms", v.V)
	case typ == metrics.Rate && v.Key == "rate":
		return fmt.Sprintf("%.2f%%", 100*v.V)
	case contains == metrics.Data && v.Key == "rate":
		return byteSize(v.V) + "/s"
	case contains == metrics.Data && v.Key != "count" || contains == metrics.Data && typ == metrics.Counter:
		return byteSize(v.V)
	case v.V == float64(int64(v.V)):
		return strconv.FormatInt(int64(v.V), 10)
	}
	return strconv.FormatFloat(v.V, 'f', 3, 64)
}

// byteSize writes a byte count in decimal units, as the text summary does (1 kB = 1000 B).
func byteSize(v float64) string {
	units := []string{"B", "kB", "MB", "GB", "TB"}
	i := 0
	for ; i < len(units)-1 && math.Abs(v) >= 1000; i++ {
		v /= 1000
	}
	if i == 0 {
		return strconv.FormatFloat(v, 'f', -1, 64) + " B"
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + " " + units[i]
}

// Finish writes the HTML report when K6_WEB_DASHBOARD_EXPORT asked for one: the charts' data, the
// thresholds, the summary and the text report, with uPlot inline so that it opens without a
// network.
func (o *Output) Finish(end output.End) error {
	if o.cfg.Export == "" {
		return nil
	}
	doc := o.document(true, end.Duration)
	data, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	read := func(name string) string { b, _ := assets.ReadFile(name); return string(b) }
	var buf bytes.Buffer
	err = page(&buf, pageData{
		Inline: true, PeriodMS: o.col.period.Milliseconds(), Data: template.JS(data),
		UPlotJS: template.JS(read("assets/uplot/uPlot.iife.min.js")), AppJS: template.JS(read("assets/app.js")),
		UPlotCSS: template.CSS(read("assets/uplot/uPlot.min.css")), AppCSS: template.CSS(read("assets/app.css")),
		Summary: newSummaryDoc(end.Summary), Text: end.Text,
	})
	if err == nil {
		err = os.WriteFile(o.cfg.Export, buf.Bytes(), 0o644)
	}
	if err != nil {
		return fmt.Errorf("web-dashboard report %s: %w", o.cfg.Export, err)
	}
	o.log.Info("web-dashboard: report written to " + o.cfg.Export)
	return nil
}
