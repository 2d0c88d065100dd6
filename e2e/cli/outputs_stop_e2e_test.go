package cli

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/output/sender"
	"github.com/dnecho/dnecho/testsupport/testkit"
	"github.com/dnecho/dnecho/testsupport/teststore"
)

// silentOutputs are n InfluxDB 2 outputs whose stores never answer (2.x: no CREATE DATABASE
// at the start, which would wait for the store too).
func silentOutputs(t *testing.T, n int) []string {
	var args []string
	for range n {
		args = append(args, "-o", "xk6-influxdb=http://"+testkit.NewSilent(t).Addr()+"/bucket")
	}
	return args
}

// influx2Env are the settings an InfluxDB 2 output needs.
var influx2Env = []string{"K6_INFLUXDB_ORGANIZATION=o", "K6_INFLUXDB_TOKEN=t"}

// Outputs stop side by side: three stores that never answer cost one stop timeout, not three.
// The run with three is compared with the same run with one: stopped one
// after the other, the three would take two stop timeouts more; side by side, none. Half that
// gap is the bound, whatever the start of the process costs on a busy machine.
func TestOutputsStopInParallel(t *testing.T) {
	t.Parallel()
	script := writeRunScript(t, "one.js", `export const options = { iterations: 1 }; export default function () {}`)
	took := map[int]time.Duration{}
	for _, n := range []int{1, 3} {
		r := dnechoEnvLimit(t, 60*time.Second, influx2Env, append(append([]string{"run", "-q"}, silentOutputs(t, n)...), script)...)
		if r.code != 0 || strings.Count(r.all(), "samples written") != n || r.took < sender.DefaultStopTimeout {
			t.Fatalf("%d outputs: exit %d after %s, want 0, a line per output and the stop timeout\n%s", n, r.code, r.took, r.all())
		}
		took[n] = r.took
	}
	if took[3]-took[1] > sender.DefaultStopTimeout {
		t.Errorf("one output took %s, three %s: the outputs were stopped one after the other", took[1], took[3])
	}
}

// A second Ctrl-C does not wait for outputs that are still stopping.
func TestSecondInterruptSkipsOutputs(t *testing.T) {
	t.Parallel()
	script := writeRunScript(t, "loop.js", `import { sleep } from 'k6';
export default function () { console.log('ITERATING'); sleep(0.1); }`)
	run := startBinary(t, dnechoBinary(t), influx2Env, append(append([]string{"run", "-d", "1m"}, silentOutputs(t, 3)...), script)...)
	run.waitFor(t, "ITERATING")
	run.signal(t, os.Interrupt)
	run.waitFor(t, "stopping gracefully")
	run.signal(t, os.Interrupt)
	res := run.wait(t)
	if res.code != 105 || res.took > 2*time.Second {
		t.Fatalf("exit %d %s after the second interrupt, want 105 at once\n%s", res.code, res.took, res.all())
	}
	if !strings.Contains(res.all(), "stopped at once before it finished") {
		t.Errorf("no line says the outputs were abandoned\n%s", res.all())
	}
}

// An output that never reached its store says why in its final line: the store's own answer
// (connection refused) or its silence, never the cancellation of the sends the stop cut short.
func TestOutputLineNamesTheCause(t *testing.T) {
	t.Parallel()
	script := writeRunScript(t, "one.js", `export const options = { iterations: 1 }; export default function () {}`)
	for _, tc := range []struct {
		name, addr, want string
	}{
		{"refused", "127.0.0.1:" + strconv.Itoa(teststore.FreePort(t)), "connection refused"},
		{"silent", testkit.NewSilent(t).Addr(), "no answer within the 5s stop timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := dnechoEnvLimit(t, 60*time.Second, influx2Env, "run", "-q", "-o", "xk6-influxdb=http://"+tc.addr+"/bucket", script)
			var line string
			for _, l := range strings.Split(r.all(), "\n") {
				if strings.Contains(l, "samples written") {
					line = l
				}
			}
			if !strings.Contains(line, "(error: ") || !strings.Contains(line, tc.want) || strings.Contains(line, "context canceled") {
				t.Errorf("output line %q, want the cause %q\n%s", line, tc.want, r.all())
			}
		})
	}
}
