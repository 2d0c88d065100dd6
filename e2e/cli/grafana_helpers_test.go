package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// panelTarget is one query of a Grafana dashboard in deploy/grafana, named "panel id/refId".
type panelTarget struct {
	key, title, query string
}

// grafanaDashboard reads a dashboard file: its panels' queries (field key: "expr" for
// Prometheus, "query" for InfluxDB) and its template variables' queries by name.
func grafanaDashboard(t *testing.T, file, key string) (targets []panelTarget, vars map[string]string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "grafana", file))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Templating struct {
			List []struct {
				Name  string          `json:"name"`
				Type  string          `json:"type"`
				Query json.RawMessage `json:"query"`
			} `json:"list"`
		} `json:"templating"`
		Panels []struct {
			ID      int              `json:"id"`
			Title   string           `json:"title"`
			Targets []map[string]any `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	vars = map[string]string{}
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		var s string
		var o struct{ Query string }
		if json.Unmarshal(v.Query, &s) != nil {
			_ = json.Unmarshal(v.Query, &o)
			s = o.Query
		}
		vars[v.Name] = s
	}
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			q, _ := tg[key].(string)
			ref, _ := tg["refId"].(string)
			targets = append(targets, panelTarget{key: fmt.Sprintf("%d/%s", p.ID, ref), title: p.Title, query: q})
		}
	}
	return targets, vars
}

// composeEnv is the environment of a service of deploy/compose.yaml.
func composeEnv(t *testing.T, service string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "compose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Services map[string]struct {
			Environment map[string]string `yaml:"environment"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	s, ok := c.Services[service]
	if !ok {
		t.Fatalf("compose.yaml has no service %s", service)
	}
	return s.Environment
}

// promSeries is one series of a Prometheus range query: its labels and its values at every step.
type promSeries struct {
	Metric map[string]string
	Times  []time.Time
	Values []float64
}

func (s promSeries) last() float64 { return s.Values[len(s.Values)-1] }

func (s promSeries) max() float64 {
	m := math.Inf(-1)
	for _, v := range s.Values {
		m = max(m, v)
	}
	return m
}

// promGet runs a Prometheus HTTP API call and decodes its matrix result.
func promGet(t *testing.T, u string) []promSeries {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatalf("prometheus %s: %v", u, err)
	}
	defer resp.Body.Close()
	var r struct {
		Status, Error string
		Data          struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Values [][2]any          `json:"values"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || r.Status != "success" {
		t.Fatalf("prometheus %s: %v %s", u, err, r.Error)
	}
	var out []promSeries
	for _, s := range r.Data.Result {
		ps := promSeries{Metric: s.Metric}
		for _, v := range s.Values {
			f, _ := strconv.ParseFloat(v[1].(string), 64)
			ps.Times = append(ps.Times, time.UnixMilli(int64(math.Round(v[0].(float64)*1000))))
			ps.Values = append(ps.Values, f)
		}
		out = append(out, ps)
	}
	return out
}

func promSeconds(at time.Time) string { return fmt.Sprintf("%.3f", float64(at.UnixMilli())/1000) }

// promRange evaluates q at steps ending exactly at end, as a Grafana panel does.
func promRange(t *testing.T, base, q string, start, end time.Time, step time.Duration) []promSeries {
	t.Helper()
	n := int(end.Sub(start)/step) + 1
	return promGet(t, base+"/api/v1/query_range?"+url.Values{"query": {q}, "start": {promSeconds(end.Add(-time.Duration(n) * step))},
		"end": {promSeconds(end)}, "step": {fmt.Sprintf("%.3f", step.Seconds())}}.Encode())
}

// promSpan is the time of the first and the last sample (stale markers aside) of the series
// matched by sel in the last 15 minutes.
func promSpan(t *testing.T, base, sel string) (first, last time.Time) {
	t.Helper()
	ss := promGet(t, base+"/api/v1/query?"+url.Values{"query": {sel + "[15m]"}, "time": {promSeconds(time.Now())}}.Encode())
	for _, s := range ss {
		for _, at := range s.Times {
			if first.IsZero() || at.Before(first) {
				first = at
			}
			if at.After(last) {
				last = at
			}
		}
	}
	if last.IsZero() {
		t.Fatalf("no samples of %s in Prometheus", sel)
	}
	return first, last
}

// promLabelValues answers Grafana's label_values(metric, label) over a time range, as its
// Prometheus data source does (the label values API with a series matcher).
func promLabelValues(t *testing.T, base, fn string, start, end time.Time) []string {
	t.Helper()
	args, ok := strings.CutPrefix(strings.TrimSuffix(fn, ")"), "label_values(")
	i := strings.LastIndex(args, ",")
	if !ok || i < 0 {
		t.Errorf("not a label_values(metric, label) query: %q", fn)
		return nil
	}
	match, label := strings.TrimSpace(args[:i]), strings.TrimSpace(args[i+1:])
	resp, err := http.Get(base + "/api/v1/label/" + label + "/values?" + url.Values{"match[]": {match},
		"start": {promSeconds(start)}, "end": {promSeconds(end)}}.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Status string
		Data   []string
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || r.Status != "success" {
		t.Fatalf("label values %s: %v %v", fn, err, r)
	}
	return r.Data
}

// near reports whether got is within rel (relative) of want.
func near(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*math.Abs(want)
}
