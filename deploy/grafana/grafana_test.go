// Package grafana holds the Grafana dashboards of dnecho's store outputs and their provisioning;
// this test checks what Grafana itself is not here to check: that a UI import prompts for the
// data source and provisioning still finds one, that every query selects one test run, and that
// the compose file carries the settings each dashboard needs and exposes nothing beyond
// 127.0.0.1. cmd/dnecho's TestGrafanaDashboards runs every query against real stores.
package grafana

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// dashboards are the files, the data source plugin each reads, its query field, and the compose
// service whose settings it needs.
var dashboards = []struct{ file, plugin, queryKey, service string }{
	{"dnecho-influxdb.json", "influxdb", "query", "dnecho"},
	{"dnecho-prometheus.json", "prometheus", "expr", "dnecho"},
	{"dnecho-prometheus-trend-stats.json", "prometheus", "expr", "dnecho-trend-stats"},
}

func readJSON(t *testing.T, file string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var d map[string]any
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return d
}

func readYAML(t *testing.T, file string, v any) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// walk calls f on every object of a decoded JSON document with its path.
func walk(v any, path string, f func(path string, m map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		f(path, x)
		for k, c := range x {
			walk(c, path+"."+k, f)
		}
	case []any:
		for _, c := range x {
			walk(c, path+"[]", f)
		}
	}
}

func list(v any) []map[string]any {
	var out []map[string]any
	l, _ := v.([]any)
	for _, e := range l {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// TestDataSourceVariable: no data source uid is written into a dashboard. Every panel, query
// and variable reads the ${ds} variable, which the UI import fills from its __inputs prompt and
// which a provisioned dashboard resolves to the data source of that type.
func TestDataSourceVariable(t *testing.T) {
	var prov struct {
		Datasources []struct{ Name, UID, Type string }
	}
	readYAML(t, "provisioning/datasources.yaml", &prov)
	for _, d := range dashboards {
		doc := readJSON(t, d.file)
		in := list(doc["__inputs"])
		if len(in) != 1 || in[0]["type"] != "datasource" || in[0]["pluginId"] != d.plugin {
			t.Errorf("%s: __inputs %v, want one %s data source input", d.file, in, d.plugin)
		}
		var ds map[string]any
		for _, v := range list(doc["templating"].(map[string]any)["list"]) {
			if v["name"] == "ds" {
				ds = v
			}
		}
		if ds == nil || ds["type"] != "datasource" || ds["query"] != d.plugin {
			t.Fatalf("%s: no datasource variable ds of type %s: %v", d.file, d.plugin, ds)
		}
		if cur, _ := ds["current"].(map[string]any); len(cur) > 0 {
			t.Errorf("%s: ds pins %v; left empty, Grafana picks the data source of the type", d.file, cur)
		}
		refs := 0
		walk(doc, "", func(path string, m map[string]any) {
			if r, ok := m["datasource"].(map[string]any); ok {
				refs++
				if r["uid"] != "${ds}" || r["type"] != d.plugin {
					t.Errorf("%s %s: datasource %v, want {type %s, uid ${ds}}", d.file, path, r, d.plugin)
				}
			}
		})
		if refs < 10 {
			t.Errorf("%s: only %d data source references", d.file, refs)
		}
		provisioned := false
		for _, p := range prov.Datasources {
			provisioned = provisioned || p.Type == d.plugin
		}
		if !provisioned {
			t.Errorf("provisioning has no %s data source for %s", d.plugin, d.file)
		}
	}
}

// TestQueriesSelectOneRun: every query reads one test run (the testid variable), so a second
// run never adds to the first one's totals.
func TestQueriesSelectOneRun(t *testing.T) {
	filter := map[string]string{"influxdb": `"testid" =~ /^$testid$/`, "prometheus": `testid=~"$testid"`}
	for _, d := range dashboards {
		doc := readJSON(t, d.file)
		hasVar := false
		for _, v := range list(doc["templating"].(map[string]any)["list"]) {
			q, _ := v["query"].(string)
			if m, ok := v["query"].(map[string]any); ok {
				q, _ = m["query"].(string)
			}
			switch {
			case v["name"] == "testid":
				hasVar = strings.Contains(q, "testid") && v["multi"] == false
			case v["type"] == "query" && !strings.Contains(q, "$testid"):
				t.Errorf("%s: variable %s does not follow the test run: %s", d.file, v["name"], q)
			}
		}
		if !hasVar {
			t.Errorf("%s: no single-valued testid variable", d.file)
		}
		n := 0
		for _, p := range list(doc["panels"]) {
			for _, tg := range list(p["targets"]) {
				q, _ := tg[d.queryKey].(string)
				n++
				if !strings.Contains(q, filter[d.plugin]) {
					t.Errorf("%s panel %v %q: query without %s: %s", d.file, p["id"], p["title"], filter[d.plugin], q)
				}
			}
		}
		if n < 10 {
			t.Errorf("%s: only %d queries", d.file, n)
		}
	}
}

// trendGauge matches a per-series trend stat gauge of the remote-write output.
var trendGauge = regexp.MustCompile(`k6_dnecho_(?:req_duration|tcp_rtt)_(p\d+|max|min|avg|med|count)\b`)

// TestPanelsSayWhatTheyShow: the highest per-series quantile is an upper bound of the test's
// quantile, and a panel showing one says so.
func TestPanelsSayWhatTheyShow(t *testing.T) {
	for _, d := range dashboards {
		for _, p := range list(readJSON(t, d.file)["panels"]) {
			for _, tg := range list(p["targets"]) {
				q, _ := tg[d.queryKey].(string)
				title, _ := p["title"].(string)
				if m := trendGauge.FindStringSubmatch(q); m != nil && m[1] != "max" && !strings.Contains(title, "slowest") {
					t.Errorf("%s panel %v %q shows the highest per-series %s, not the test's: %s", d.file, p["id"], title, m[1], q)
				}
			}
		}
	}
}

type composeFile struct {
	Services map[string]struct {
		Ports       []string          `yaml:"ports"`
		Environment map[string]string `yaml:"environment"`
		Volumes     []string          `yaml:"volumes"`
		Command     []string          `yaml:"command"`
	} `yaml:"services"`
}

// TestCompose: every port is published on 127.0.0.1 only (Grafana lets anyone in as Admin),
// the dashboards are mounted where the provider reads them, and each dashboard's run service
// writes what its queries read.
func TestCompose(t *testing.T) {
	var c composeFile
	readYAML(t, "../compose.yaml", &c)
	for name, s := range c.Services {
		for _, p := range s.Ports {
			if !strings.HasPrefix(p, "127.0.0.1:") {
				t.Errorf("service %s publishes %s beyond 127.0.0.1", name, p)
			}
		}
	}
	if len(c.Services["grafana"].Ports) == 0 {
		t.Error("grafana publishes no port")
	}
	var prov struct {
		Providers []struct{ Options struct{ Path string } }
	}
	readYAML(t, "dashboards.yaml", &prov)
	if len(prov.Providers) != 1 || !slices.Contains(c.Services["grafana"].Volumes, "./grafana:"+prov.Providers[0].Options.Path+":ro") {
		t.Errorf("the dashboard provider reads %+v, grafana mounts %v", prov.Providers, c.Services["grafana"].Volumes)
	}
	for _, d := range dashboards {
		s, ok := c.Services[d.service]
		if !ok {
			t.Fatalf("compose.yaml has no service %s for %s", d.service, d.file)
		}
		if !slices.ContainsFunc(s.Command, func(a string) bool { return strings.HasPrefix(a, "testid=") }) {
			t.Errorf("service %s runs without a testid tag: %v", d.service, s.Command)
		}
		if d.plugin != "prometheus" {
			continue
		}
		env := s.Environment
		if env["K6_PROMETHEUS_RW_STALE_MARKERS"] != "true" {
			t.Errorf("service %s: no stale markers", d.service)
		}
		native := env["K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM"] == "true"
		stats := strings.Split(env["K6_PROMETHEUS_RW_TREND_STATS"], ",")
		for _, p := range list(readJSON(t, d.file)["panels"]) {
			for _, tg := range list(p["targets"]) {
				q, _ := tg[d.queryKey].(string)
				if strings.Contains(q, "_seconds") && !native {
					t.Errorf("%s reads native histograms, service %s writes none: %s", d.file, d.service, q)
				}
				for _, m := range trendGauge.FindAllStringSubmatch(q, -1) {
					stat := m[1]
					if strings.HasPrefix(stat, "p") {
						stat = "p(" + stat[1:] + ")"
					}
					if native || !slices.Contains(stats, stat) {
						t.Errorf("%s reads trend stat %s, service %s writes %q (native %v)", d.file, stat, d.service, stats, native)
					}
				}
			}
		}
	}
}

// TestNetworkPanels: each dashboard has the "Network vs DataNode" panel, the network RTT per
// DataNode beside the echo latency per DataNode, and the "Slow DataNodes" stat of the verdict's
// gauge. cmd/dnecho's TestGrafanaDashboards checks their numbers against a run's summary.
func TestNetworkPanels(t *testing.T) {
	for _, d := range dashboards {
		var network, slow bool
		for _, p := range list(readJSON(t, d.file)["panels"]) {
			title, _ := p["title"].(string)
			var qs []string
			for _, tg := range list(p["targets"]) {
				q, _ := tg[d.queryKey].(string)
				qs = append(qs, q)
			}
			all := strings.Join(qs, "\n")
			switch {
			case strings.HasPrefix(title, "Network vs DataNode"):
				network = p["type"] == "timeseries" && strings.Contains(all, "dnecho_tcp_rtt") &&
					strings.Contains(all, "dnecho_req_duration") && strings.Count(all, "datanode") >= 2*len(qs)
			case title == "Slow DataNodes":
				slow = p["type"] == "stat" && strings.Contains(all, "dnecho_slow_datanodes")
			}
		}
		if !network || !slow {
			t.Errorf("%s: Network vs DataNode panel %v, Slow DataNodes stat %v", d.file, network, slow)
		}
	}
}
