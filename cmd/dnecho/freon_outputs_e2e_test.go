package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/minicluster"
)

// `freon dn-echo -o` writes the same dnecho_* samples as `run -o`: one dnecho_reqs point per
// call, tagged with the DataNode and the result; the dashboard's HTML export carries the freon
// report; a bad -o value is a usage error.
func TestFreonOutputs(t *testing.T) {
	c, conf := startCluster(t, minicluster.Options{})
	dir := t.TempDir()
	samples, report := filepath.Join(dir, "samples.json"), filepath.Join(dir, "report.html")
	r := dnechoEnv(t, []string{"K6_WEB_DASHBOARD=true", "K6_WEB_DASHBOARD_PORT=-1", "K6_WEB_DASHBOARD_EXPORT=" + report},
		"freon", "dn-echo", "--conf", conf, "--container-id", "1", "-n", "300", "-t", "3", "--report", "log", "-o", "json="+samples)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, "output json ("+samples+"): ", "samples written, 0 dropped")
	f, err := os.Open(samples)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	reqs := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var line struct {
			Type   string `json:"type"`
			Metric string `json:"metric"`
			Data   struct {
				Value float64           `json:"value"`
				Tags  map[string]string `json:"tags"`
			} `json:"data"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("%v: %s", err, sc.Text())
		}
		if line.Type != "Point" || line.Metric != "dnecho_reqs" {
			continue
		}
		reqs++
		if tg := line.Data.Tags; tg["datanode"] != c.DataNodes()[0].UUID() || tg["result"] != "SUCCESS" || tg["container"] != "1" || tg["stream"] != "new" {
			t.Fatalf("tags %v", tg)
		}
	}
	if reqs != 300 {
		t.Errorf("%d dnecho_reqs points, want one per call (300)", reqs)
	}
	html, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("the dashboard's export: %v", err)
	}
	if !strings.Contains(string(html), "Successful executions: 300") {
		t.Errorf("the HTML report lacks the freon report")
	}

	r = dnecho(t, 30*time.Second, "freon", "dn-echo", "--conf", conf, "--container-id", "1", "-n", "1", "-o", "carrier-pigeon")
	if r.code != exitUsage {
		t.Fatalf("bad -o: exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, `unsupported output type "carrier-pigeon"`)
}
