package cli

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const countingScript = `
import { Counter } from 'k6/metrics';
import { check, group } from 'k6';
const done = new Counter('done_iters');
export default function () {
  done.add(1);
  check(1, { 'is one': (v) => v === 1 });
  group('g', () => { check(2, { 'is two': (v) => v === 2 }); });
}
`

// TestRunExactIterations counts iterations with a custom Counter read back from the summary
// export: the executors must run exactly the planned iterations.
func TestRunExactIterations(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		options string
		args    []string
		want    float64
	}{
		{"shared-iterations from flags", "", []string{"-u", "7", "-i", "103"}, 103},
		{"shared-iterations scenario", `export const options = { scenarios: { si: { executor: 'shared-iterations', vus: 5, iterations: 37 } } };`, nil, 37},
		{"per-vu-iterations scenario", `export const options = { scenarios: { pv: { executor: 'per-vu-iterations', vus: 4, iterations: 9 } } };`, nil, 36},
		{"two scenarios", `export const options = { scenarios: {
  a: { executor: 'per-vu-iterations', vus: 2, iterations: 3 },
  b: { executor: 'shared-iterations', vus: 3, iterations: 10, startTime: '1s' } } };`, nil, 16},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := writeRunScript(t, "count.js", countingScript+c.options)
			export := filepath.Join(t.TempDir(), "summary.json")
			r := dnecho(t, runLimit, append(append([]string{"run", "-q", "--summary-export", export}, c.args...), path)...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.all())
			}
			e := readExport(t, export)
			if got := e.count("done_iters"); got != c.want {
				t.Errorf("done_iters %v, want %v", got, c.want)
			}
			if got := e.count("iterations"); got != c.want {
				t.Errorf("iterations %v, want %v", got, c.want)
			}
		})
	}
}

// TestRunSummaryExportShape checks the --summary-export document of
// docs/k6-compat.md#summary-export.
func TestRunSummaryExportShape(t *testing.T) {
	t.Parallel()
	path := writeRunScript(t, "count.js", countingScript+`
export const options = { thresholds: { checks: ['rate>0.5'], done_iters: ['count<2'] } };`)
	export := filepath.Join(t.TempDir(), "summary.json")
	r := dnecho(t, runLimit, "run", "-q", "-i", "4", "--summary-export", export, path)
	if r.code != 99 {
		t.Fatalf("exit %d, want 99 (done_iters threshold)\n%s", r.code, r.all())
	}
	raw, err := os.ReadFile(export)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(raw), "{\n    \"") {
		t.Errorf("export is not indented with 4 spaces:\n%.80s", raw)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"options", "state"} {
		if _, ok := top[k]; ok {
			t.Errorf("export has %q", k)
		}
	}
	e := readExport(t, export)
	if e.RootGroup.ID != "d41d8cd98f00b204e9800998ecf8427e" || e.RootGroup.Checks["is one"].Passes != 4 {
		t.Errorf("root group %+v", e.RootGroup)
	}
	if _, ok := e.RootGroup.Groups["g"]; !ok {
		t.Errorf("groups keyed by name: %v", e.RootGroup.Groups)
	}
	checks := e.Metrics["checks"]
	if checks["value"] != 1.0 || checks["passes"] != 8.0 {
		t.Errorf("checks (a rate's rate is renamed value): %v", checks)
	}
	if th, _ := checks["thresholds"].(map[string]any); th["rate>0.5"] != false {
		t.Errorf("checks thresholds %v: false means passed", checks["thresholds"])
	}
	if th, _ := e.Metrics["done_iters"]["thresholds"].(map[string]any); th["count<2"] != true {
		t.Errorf("done_iters thresholds %v: true means failed", e.Metrics["done_iters"]["thresholds"])
	}
	trend := e.Metrics["iteration_duration"]
	for _, k := range []string{"avg", "min", "med", "max", "p(90)", "p(95)"} {
		if _, ok := trend[k]; !ok {
			t.Errorf("iteration_duration lacks %s: %v", k, trend)
		}
	}
}

// TestRunOutputs parses the -o json= and -o csv= files.
func TestRunOutputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := writeRunScript(t, "count.js", countingScript)
	jsonPath, csvPath := filepath.Join(dir, "samples.json"), filepath.Join(dir, "samples.csv")
	r := dnecho(t, runLimit, "run", "-i", "5", "--tag", "run=e2e", "-o", "json="+jsonPath, "-o", "csv="+csvPath, path)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, "output: json ("+jsonPath+")", "csv")

	f, err := os.Open(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	points, metricLines := 0, map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var line jsonLine
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("json output line %q: %v", sc.Text(), err)
		}
		switch line.Type {
		case "Metric":
			metricLines[line.Metric] = true
		case "Point":
			if line.Metric == "done_iters" {
				points++
				if line.Data.Tags["run"] != "e2e" || line.Data.Tags["scenario"] != "default" {
					t.Errorf("done_iters tags %v", line.Data.Tags)
				}
			}
		}
	}
	if points != 5 || !metricLines["done_iters"] || !metricLines["checks"] {
		t.Errorf("json output: %d done_iters points, metrics %v", points, metricLines)
	}

	cf, err := os.Open(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	defer cf.Close()
	rows, err := csv.NewReader(cf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	header := rows[0]
	if header[0] != "metric_name" || header[len(header)-1] != "metadata" || !slices.Contains(header, "scenario") {
		t.Errorf("csv header %v", header)
	}
	n := 0
	for _, row := range rows[1:] {
		if row[0] == "done_iters" {
			n++
			if row[2] != "1.000000" || !strings.Contains(row[len(row)-2], "run=e2e") {
				t.Errorf("csv row %v", row)
			}
		}
	}
	if n != 5 {
		t.Errorf("%d done_iters rows in the csv, want 5", n)
	}
}

// TestRunHandleSummary checks that handleSummary replaces the text summary and can write files.
func TestRunHandleSummary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "custom.json")
	path := writeRunScript(t, "hs.js", countingScript+`
export function handleSummary(data) {
  return {
    stdout: 'HANDLED iterations=' + data.metrics.iterations.values.count + '\n',
    '`+out+`': JSON.stringify({ done: data.metrics.done_iters.values.count, checks: data.root_group.checks.length }),
  };
}`)
	r := dnecho(t, runLimit, "run", "-q", "-i", "3", path)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, "HANDLED iterations=3")
	if strings.Contains(r.stdout, "TOTAL RESULTS") {
		t.Errorf("the default summary was printed too:\n%s", r.stdout)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"done":3,"checks":1}` {
		t.Errorf("handleSummary file %s", b)
	}

	// --summary-mode disabled skips handleSummary and the text summary.
	r = dnecho(t, runLimit, "run", "-q", "-i", "1", "--summary-mode", "disabled", path)
	if r.code != 0 || strings.Contains(r.stdout, "HANDLED") || strings.TrimSpace(r.stdout) != "" {
		t.Errorf("disabled summary: exit %d stdout %q", r.code, r.stdout)
	}
}
