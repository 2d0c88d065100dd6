package teststore

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Prometheus is a running Prometheus (Debian's package: 2.42) accepting remote writes, with
// native histograms enabled.
type Prometheus struct {
	*server
	URL string // http://127.0.0.1:port
}

// WriteURL is the remote-write endpoint.
func (p *Prometheus) WriteURL() string { return p.URL + "/api/v1/write" }

// StartPrometheus starts Prometheus with its TSDB in a temp dir and no scrape targets.
func StartPrometheus(t testing.TB) *Prometheus {
	t.Helper()
	bin := Binary(t, "prometheus")
	var url string
	s := startOnFreePorts(t, http.StatusOK, func(dir string) (*server, string) {
		port := FreePort(t)
		cf := filepath.Join(dir, "prometheus.yml")
		if err := os.WriteFile(cf, []byte("global:\n  scrape_interval: 1m\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		url = fmt.Sprintf("http://127.0.0.1:%d", port)
		return start(t, dir, bin, "--config.file="+cf, "--storage.tsdb.path="+filepath.Join(dir, "data"),
			fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port), "--web.enable-remote-write-receiver",
			"--enable-feature=native-histograms", "--log.level=warn"), url + "/-/ready"
	})
	return &Prometheus{server: s, URL: url}
}

// Vector is one element of an instant query's result.
type Vector struct {
	Metric    map[string]string `json:"metric"`
	Value     []any             `json:"value"`     // [time, "value"] for floats
	Histogram []any             `json:"histogram"` // [time, {count, sum, buckets}] for native histograms
}

// Float is the element's float value.
func (v Vector) Float() float64 {
	if len(v.Value) < 2 {
		return 0
	}
	f, _ := strconv.ParseFloat(v.Value[1].(string), 64)
	return f
}

// Query runs an instant PromQL query at time at.
func (p *Prometheus) Query(t testing.TB, q string, at time.Time) []Vector {
	t.Helper()
	u := p.URL + "/api/v1/query?" + url.Values{"query": {q}, "time": {fmt.Sprintf("%.3f", float64(at.UnixMilli())/1000)}}.Encode()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatalf("prometheus query %q: %v", q, err)
	}
	defer resp.Body.Close()
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string   `json:"resultType"`
			Result     []Vector `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || r.Status != "success" {
		t.Fatalf("prometheus query %q: %v %s", q, err, r.Error)
	}
	return r.Data.Result
}
