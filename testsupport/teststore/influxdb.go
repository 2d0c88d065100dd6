package teststore

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"
)

// InfluxDB is a running InfluxDB 1.x (Debian's influxdb package: 1.6.7).
type InfluxDB struct {
	*server
	URL     string // http://127.0.0.1:port
	UDPAddr string // 127.0.0.1:port, writing into database UDPDatabase
}

// UDPDatabase is the database the UDP listener writes to.
const UDPDatabase = "udp"

// StartInfluxDB starts InfluxDB with its data in a temp dir, HTTP and a UDP listener on free ports.
func StartInfluxDB(t testing.TB) *InfluxDB {
	t.Helper()
	bin := Binary(t, "influxd")
	db := &InfluxDB{}
	db.server = startOnFreePorts(t, http.StatusNoContent, func(dir string) (*server, string) {
		httpPort, rpcPort, udpPort := FreePort(t), FreePort(t), FreeUDPPort(t)
		cf := filepath.Join(dir, "influxdb.conf")
		if err := os.WriteFile(cf, []byte(influxConf(dir, rpcPort, httpPort, udpPort)), 0o644); err != nil {
			t.Fatal(err)
		}
		db.URL, db.UDPAddr = fmt.Sprintf("http://127.0.0.1:%d", httpPort), fmt.Sprintf("127.0.0.1:%d", udpPort)
		return start(t, dir, bin, "run", "-config", cf), db.URL + "/ping"
	})
	return db
}

// influxConf is InfluxDB's configuration with its data in dir and its ports.
func influxConf(dir string, rpcPort, httpPort, udpPort int) string {
	return fmt.Sprintf(`reporting-disabled = true
bind-address = "127.0.0.1:%d"
[meta]
  dir = %q
[data]
  dir = %q
  wal-dir = %q
  query-log-enabled = false
[retention]
  enabled = false
[monitor]
  store-enabled = false
[subscriber]
  enabled = false
[continuous_queries]
  enabled = false
[http]
  bind-address = "127.0.0.1:%d"
  log-enabled = false
[[udp]]
  enabled = true
  bind-address = "127.0.0.1:%d"
  database = %q
  batch-size = 100
  batch-timeout = "50ms"
`, rpcPort, filepath.Join(dir, "meta"), filepath.Join(dir, "data"), filepath.Join(dir, "wal"), httpPort, udpPort, UDPDatabase)
}

// Series is one series of an InfluxQL result.
type Series struct {
	Name    string            `json:"name"`
	Tags    map[string]string `json:"tags"`
	Columns []string          `json:"columns"`
	Values  [][]any           `json:"values"`
}

// Query runs InfluxQL against db and returns the series of the first statement.
func (d *InfluxDB) Query(t testing.TB, db, q string) []Series {
	t.Helper()
	resp, err := http.PostForm(d.URL+"/query", url.Values{"db": {db}, "q": {q}, "epoch": {"ns"}})
	if err != nil {
		t.Fatalf("influxdb query %q: %v", q, err)
	}
	defer resp.Body.Close()
	var r struct {
		Results []struct {
			Series []Series `json:"series"`
			Error  string   `json:"error"`
		} `json:"results"`
		Error string `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatalf("influxdb query %q: %v", q, err)
	}
	if r.Error != "" || len(r.Results) == 0 || r.Results[0].Error != "" {
		t.Fatalf("influxdb query %q: %s %+v", q, r.Error, r.Results)
	}
	return r.Results[0].Series
}

// Count is the value of `SELECT count(value) FROM measurement` (0 when it has no points).
func (d *InfluxDB) Count(t testing.TB, db, measurement string) int64 {
	t.Helper()
	s := d.Query(t, db, fmt.Sprintf(`SELECT count("value") FROM %q`, measurement))
	if len(s) == 0 || len(s[0].Values) == 0 {
		return 0
	}
	return int64(s[0].Values[0][1].(float64))
}
