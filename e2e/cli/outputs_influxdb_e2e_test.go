package cli

import (
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/testsupport/teststore"
	"github.com/dnecho/dnecho/testsupport/testwait"
)

// TestOutputInfluxDB writes a run to a real InfluxDB 1.x over HTTP and UDP and reads it back:
// every call is a point and tags are k6's (no empty group tag); TestGrafanaDashboards checks the
// dashboards' queries.
func TestOutputInfluxDB(t *testing.T) {
	t.Parallel()
	db := teststore.StartInfluxDB(t)
	r, e := runOutputs(t, []string{"K6_INFLUXDB_PUSH_INTERVAL=200ms"},
		"-o", "influxdb="+db.URL+"/dnecho?precision=ns", "-o", "influxdb=udp://"+db.UDPAddr)
	want := reqs(t, e)
	acc := accounts(t, r)
	if acc["influxdb"] == [2]int64{} {
		t.Fatalf("no end-of-run line for influxdb:\n%s", r.all())
	}
	for _, m := range []string{"dnecho_reqs", "dnecho_req_duration", "dnecho_req_failed", "dnecho_data_sent"} {
		if n := db.Count(t, "dnecho", m); n != want {
			t.Errorf("%s: %d points in InfluxDB, summary counts %d calls", m, n, want)
		}
	}
	keys := db.Query(t, "dnecho", `SHOW TAG KEYS FROM "dnecho_req_duration"`)
	var got []string
	for _, v := range keys[0].Values {
		got = append(got, v[0].(string))
	}
	for _, k := range []string{"container", "datanode", "pipeline", "result", "scenario", "stream"} {
		if !slices.Contains(got, k) {
			t.Errorf("tag %s missing from %v", k, got)
		}
	}
	if slices.Contains(got, "group") {
		t.Errorf("empty group tag written: %v", got)
	}
	dns := db.Query(t, "dnecho", `SHOW TAG VALUES FROM "dnecho_req_duration" WITH KEY = "datanode"`)
	if len(dns) == 0 || len(dns[0].Values) != 3 {
		t.Errorf("want the 3 DataNodes of the local cluster as datanode values: %+v", dns)
	}
	// UDP is fire-and-forget: the listener batches what arrives; just check that points land.
	if err := testwait.Until(10*time.Second, "a point over UDP", func() bool { return db.Count(t, teststore.UDPDatabase, "dnecho_reqs") > 0 }); err != nil {
		t.Fatalf("%v\n%s", err, db.Logf())
	}
}

// TestOutputXk6InfluxDB writes through the InfluxDB v2 API (org, bucket, token) to an in-process
// receiver of that API.
func TestOutputXk6InfluxDB(t *testing.T) {
	t.Parallel()
	rcv := teststore.StartInfluxV2(t, "ozone-org", "echo", "s3cret")
	r, e := runOutputs(t, []string{"K6_INFLUXDB_ORGANIZATION=ozone-org", "K6_INFLUXDB_TOKEN=s3cret", "K6_INFLUXDB_PUSH_INTERVAL=200ms"},
		"-o", "xk6-influxdb="+rcv.URL+"/echo")
	want := reqs(t, e)
	per := map[string]int64{}
	for _, p := range rcv.Points() {
		per[p.Measurement]++
		if p.Measurement == "dnecho_req_duration" && (p.Tags["datanode"] == "" || p.Tags["result"] == "" || !strings.HasPrefix(p.Fields, "value=")) {
			t.Fatalf("point %+v lacks k6's shape", p)
		}
	}
	if per["dnecho_req_duration"] != want || per["dnecho_reqs"] != want {
		t.Errorf("points %v, summary counts %d calls", per, want)
	}
	if a := accounts(t, r)["xk6-influxdb"]; a[1] != 0 || a[0] == 0 {
		t.Errorf("account %v\n%s", a, r.all())
	}
	if rej := rcv.Rejected(); len(rej) > 0 {
		t.Errorf("receiver rejected %q", rej)
	}
}

// TestOutputStoreDown: the store is down for the whole run. The run completes with exit code 0
// and says what was lost; with --fail-on-output-loss the exit code is 111.
func TestOutputStoreDown(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + l.Addr().String() + "/k6"
	l.Close() // nothing listens there now: connections are refused
	env := []string{"K6_INFLUXDB_PUSH_INTERVAL=100ms", "DURATION=1s"}
	r, _ := runOutputs(t, env, "-o", "influxdb="+down)
	a := accounts(t, r)["influxdb"]
	if a[0] != 0 || a[1] == 0 || !strings.Contains(r.stderr, "write failed") {
		t.Errorf("account %v; want nothing written and the loss reported\n%s", a, r.all())
	}
	script := writeRunScript(t, "outputs.js", outputScript)
	r = dnechoEnv(t, env, "run", "-q", "--local-cluster", "--fail-on-output-loss", "-o", "influxdb="+down, script)
	if r.code != 111 {
		t.Errorf("--fail-on-output-loss: exit %d, want 111\n%s", r.code, r.all())
	}
}
