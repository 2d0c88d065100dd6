package cli

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/internal/exitcode"
	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/slowdatanode"
	"github.com/dnecho/dnecho/testsupport/minitest"
)

// `freon dn-echo -o` writes the same dnecho_* samples as `run -o`: one dnecho_reqs point per
// call, tagged with the DataNode and the result; the dashboard's HTML export carries the freon
// report; a bad -o value is a usage error.
func TestFreonOutputs(t *testing.T) {
	c, conf := minitest.Start(t, minicluster.Options{})
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
		var line jsonLine
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
	// It charts network vs DataNode as run's does; one DataNode gives no verdict, and the report
	// says nothing about one.
	doc := readReport(t, report)
	if !doc.Network || len(doc.Servers) != 1 || doc.Servers[0].Label != slowdatanode.ShortUUID(c.DataNodes()[0].UUID()) ||
		doc.Verdict != nil {
		t.Errorf("report: network chart %v, DataNodes %+v, verdict %q", doc.Network, doc.Servers, doc.Verdict)
	}

	r = dnecho(t, 30*time.Second, "freon", "dn-echo", "--conf", conf, "--container-id", "1", "-n", "1", "-o", "carrier-pigeon")
	if r.code != exitcode.Usage {
		t.Fatalf("bad -o: exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, `unsupported output type "carrier-pigeon"`)
}

// freon's samples carry the run tags of --tag, else of K6_TAGS, as `run`'s do; a malformed tag is
// a usage error naming where it came from, before SCM is asked.
func TestFreonRunTags(t *testing.T) {
	_, conf := minitest.Start(t, minicluster.Options{})
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want map[string]string
	}{
		{"flag", []string{"K6_TAGS=testid=env"}, []string{"--tag", "testid=nightly", "--tag", "team=storage"}, map[string]string{"testid": "nightly", "team": "storage"}},
		// k6's name:value form, as `dnecho run` reads K6_TAGS; name=value is accepted too.
		{"environment", []string{"K6_TAGS=testid:env, team=storage, url:http://x:1"}, nil, map[string]string{"testid": "env", "team": "storage", "url": "http://x:1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			samples := filepath.Join(t.TempDir(), "samples.json")
			args := append([]string{"freon", "dn-echo", "--conf", conf, "--container-id", "1", "-n", "5", "-o", "json=" + samples}, tc.args...)
			if r := dnechoEnv(t, tc.env, args...); r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.all())
			}
			b, err := os.ReadFile(samples)
			if err != nil {
				t.Fatal(err)
			}
			points := 0
			for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				var line struct {
					Type string `json:"type"`
					Data struct {
						Tags map[string]string `json:"tags"`
					} `json:"data"`
				}
				if err := json.Unmarshal([]byte(l), &line); err != nil {
					t.Fatal(err)
				}
				if line.Type != "Point" {
					continue
				}
				points++
				for k, v := range tc.want {
					if line.Data.Tags[k] != v {
						t.Fatalf("tag %s = %q, want %q: %v", k, line.Data.Tags[k], v, line.Data.Tags)
					}
				}
			}
			if points == 0 {
				t.Fatal("no points")
			}
		})
	}
	for _, tc := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"--tag", "novalue"}, `--tag "novalue": use name=value`},
		{[]string{"K6_TAGS=a=1,=2"}, nil, `K6_TAGS "=2": use name:value`},
	} {
		r := dnechoEnv(t, tc.env, append([]string{"freon", "dn-echo", "--scm", "127.0.0.1:1", "--container-id", "1"}, tc.args...)...)
		if r.code != exitcode.Usage || !strings.Contains(r.stderr, tc.want) || r.took > 5*time.Second {
			t.Errorf("exit %d after %s, want %d at once with %q\n%s", r.code, r.took, exitcode.Usage, tc.want, r.all())
		}
	}
}
