package realcluster

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/testsupport/realozone"
)

// A real DataNode logs a WARN of clientService with clientCancelled when a client ends its
// ordered stream with RST_STREAM instead of a half-close: Ratis's server observer gets onError
// with CANCELLED (Ratis: ratis-grpc/src/main/java/org/apache/ratis/grpc/server/
// GrpcClientProtocolService.java, OrderedRequestStreamObserver.onError). The DataNodes' own
// replication logs the same status from GrpcServerProtocolService, which is not counted.
const (
	clientService   = "server.GrpcClientProtocolService"
	clientCancelled = "CANCELLED: client cancelled"
)

// quietAfterRun is how long the DataNodes get to log a reset after dnecho exits. A DataNode logs
// it as soon as the RST_STREAM frame arrives, milliseconds after the client's exit; there is no
// event to wait for when nothing is logged.
const quietAfterRun = 3 * time.Second

// TestRatisManners: `dnecho freon dn-echo --ratis` with a few clients, read-only and write, ends
// every ordered stream the way the Java client does — a half-close, then the server's OK
// (Ratis: ratis-grpc/src/main/java/org/apache/ratis/grpc/client/GrpcClientProtocolClient.java,
// close) — so no DataNode logs a cancelled stream for it (docs/ozone-ratis.md#the-ordered-stream).
func TestRatisManners(t *testing.T) {
	c := cluster(t)
	id := container(t, c)
	cases := []struct {
		name string
		args []string
		n    int
	}{
		{"read-only", []string{"--read-only"}, 200},
		{"write", nil, 100},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := cancelledLines(t, c)
			args := append([]string{"freon", "dn-echo", "--conf", c.ClientConf, "--container-id", fmt.Sprint(id),
				"--ratis", "--clients", "3", "-t", "6", "-n", fmt.Sprint(tc.n)}, tc.args...)
			r := dnecho(t, 3*time.Minute, args...)
			if rep := parseReport(t, r); r.Code != 0 || rep.Successful != tc.n || rep.Failures != 0 {
				t.Fatalf("exit %d, %d successful, %d failures; want 0, %d, 0\n%s", r.Code, rep.Successful, rep.Failures, tc.n, tail(r.Out, 20))
			}
			time.Sleep(quietAfterRun)
			after := cancelledLines(t, c)
			for name, n := range after {
				if n > before[name] {
					t.Errorf("%s logged %d new %q line(s) for dnecho's streams, want none:\n%s",
						name, n-before[name], clientCancelled, strings.Join(cancelled(c.LogTail(name, 200)), "\n"))
				}
			}
		})
	}
}

// cancelledLines counts the cancelled client streams in every DataNode log, by log name ("dn1").
func cancelledLines(t *testing.T, c *realozone.Cluster) map[string]int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(c.Dir, "logs", "dn*.log"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no DataNode logs in %s/logs (%v)", c.Dir, err)
	}
	counts := map[string]int{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		counts[strings.TrimSuffix(filepath.Base(f), ".log")] = len(cancelled(string(b)))
	}
	return counts
}

// cancelled returns the lines of a DataNode log that report a cancelled client stream.
func cancelled(log string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, clientService) && strings.Contains(l, clientCancelled) {
			out = append(out, l)
		}
	}
	return out
}
