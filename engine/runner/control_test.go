package runner

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/null"
	"github.com/dnecho/dnecho/engine/options"
	"github.com/dnecho/dnecho/engine/restapi"
	"github.com/dnecho/dnecho/internal/exitcode"
	"github.com/dnecho/dnecho/testsupport/testwait"
)

// apiRun is a run with its REST API served by the real handler.
type apiRun struct {
	t    *testing.T
	srv  *httptest.Server
	done chan testRunOutput
}

func startAPIRun(t *testing.T, src string, cli options.Options) *apiRun {
	t.Helper()
	ctl := NewControl()
	r := &apiRun{t: t, srv: httptest.NewServer(restapi.Handler(ctl, nil)), done: make(chan testRunOutput, 1)}
	t.Cleanup(r.srv.Close)
	go func() {
		r.done <- runScript(t, src, cli, func(c *Config) { c.Control = ctl }, nil)
	}()
	return r
}

// call sends a request and returns the status code and body.
func (r *apiRun) call(method, path, body string) (int, string) {
	r.t.Helper()
	req, err := http.NewRequest(method, r.srv.URL+path, strings.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// status reads /v1/status's attributes.
func (r *apiRun) status() map[string]any {
	r.t.Helper()
	code, body := r.call(http.MethodGet, "/v1/status", "")
	var doc struct {
		Data struct {
			Type, ID   string
			Attributes map[string]any
		}
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil || code != 200 || doc.Data.Type != "status" || doc.Data.ID != "default" {
		r.t.Fatalf("GET /v1/status: %d %s (%v)", code, body, err)
	}
	return doc.Data.Attributes
}

// waitStatus polls /v1/status until its numeric status is want (a minute at most).
func (r *apiRun) waitStatus(want restapi.RunStatus) map[string]any {
	r.t.Helper()
	var s map[string]any
	if err := testwait.Until(time.Minute, fmt.Sprintf("status %d", want), func() bool {
		s = r.status()
		return s["status"] == float64(want)
	}); err != nil {
		r.t.Fatalf("%v: last %v", err, s)
	}
	return s
}

const patchResume = `{"data":{"attributes":{"paused":false,"stopped":false},"id":"default","type":"status"}}`

func TestAPIPausedRunResumes(t *testing.T) {
	r := startAPIRun(t, `
export const options = { vus: 2, iterations: 4 };
export function setup() { return { n: 7 }; }
export default function (data) { if (data.n !== 7) throw new Error("setup data " + JSON.stringify(data)); }
`, options.Options{Paused: null.From(true)})
	s := r.waitStatus(restapi.StatusPausedBeforeRun)
	if s["paused"] != true || s["vus-max"] != float64(2) || s["running"] != false {
		t.Errorf("paused status = %v", s)
	}
	for _, c := range []struct {
		method, path, body string
		code               int
		want               string
	}{
		{"PATCH", "/v1/status", `{"data":{"attributes":{"paused":true}}}`, 500,
			`{"errors":[{"status":"500","title":"Pause error","detail":"execution is already paused"}]}`},
		{"PATCH", "/v1/status", `{"data":{"attributes":{"vus":5}}}`, 500,
			`{"errors":[{"status":"500","title":"Execution config error","detail":"live VU configuration updates are not supported"}]}`},
		{"PATCH", "/v1/status", `{`, 400, `"title":"Invalid data"`},
		{"POST", "/v1/status", ``, 405, ``},
		{"DELETE", "/v1/setup", ``, 405, ``},
		{"GET", "/v1/setup", ``, 200, `{"data":{"type":"setupData","id":"default","attributes":{}}}`},
		{"GET", "/v1/metrics/nope", ``, 404, `{"errors":[{"status":"404","title":"Not Found","detail":"No metric with that ID was found"}]}`},
	} {
		code, body := r.call(c.method, c.path, c.body)
		if code != c.code || !strings.Contains(body, c.want) || (c.want == "" && body != "") {
			t.Errorf("%s %s %s: %d %s, want %d %s", c.method, c.path, c.body, code, body, c.code, c.want)
		}
	}
	if code, body := r.call("PATCH", "/v1/status", patchResume); code != 200 || !strings.Contains(body, `"paused":false`) {
		t.Errorf("resume: %d %s", code, body)
	}
	out := <-r.done
	if out.err != nil {
		t.Fatalf("run: %v\n%s", out.err, out.logs)
	}
	if s := r.status(); s["status"] != float64(restapi.StatusEnded) || s["running"] != false {
		t.Errorf("final status = %v", s)
	}
	code, body := r.call("GET", "/v1/metrics/iterations", "")
	if code != 200 || !strings.Contains(body, `"type":"metrics","id":"iterations","attributes":{"type":"counter","contains":"default","tainted":null,"sample":{"count":4,`) {
		t.Errorf("GET /v1/metrics/iterations: %d %s", code, body)
	}
}

// TestAPIPausedFromTheFirstAnswer: the API of a paused run says so from its first answer on,
// whether the command line or the script pauses it, and its status only moves forward to
// PausedBeforeRun (k6-operator's starter reads it). Each run is checked from its very start, so
// the answers given while the script loads count.
func TestAPIPausedFromTheFirstAnswer(t *testing.T) {
	for _, c := range []struct {
		name, options string
		cli           options.Options
	}{
		{"command line", `{ vus: 1, iterations: 1 }`, options.Options{Paused: null.From(true)}},
		{"script option", `{ vus: 1, iterations: 1, paused: true }`, options.Options{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for i := range 10 {
				r := startAPIRun(t, "export const options = "+c.options+";\nexport default function () {}", c.cli)
				var seen []any
				for last := float64(restapi.StatusCreated); last != float64(restapi.StatusPausedBeforeRun); {
					s := r.status()
					seen = append(seen, s["status"])
					st, _ := s["status"].(float64)
					if s["paused"] != true || st < last || st > float64(restapi.StatusPausedBeforeRun) {
						r.call("PATCH", "/v1/status", `{"data":{"attributes":{"stopped":true}}}`)
						<-r.done
						t.Fatalf("run %d: answer %v after statuses %v", i, s, seen)
					}
					last = st
				}
				r.call("PATCH", "/v1/status", patchResume)
				if out := <-r.done; out.err != nil {
					t.Fatalf("run %d: %v\n%s", i, out.err, out.logs)
				}
			}
		})
	}
}

// TestAPIAnswersAFailedLoad: requests held while the script loads are answered when the load
// fails, with the status Interrupted, rather than held for ever.
func TestAPIAnswersAFailedLoad(t *testing.T) {
	r := startAPIRun(t, "export default function ( {", options.Options{Paused: null.From(true)})
	if s := r.status(); s["status"] != float64(restapi.StatusInterrupted) || s["paused"] != false {
		t.Errorf("status of a run whose script did not load: %v", s)
	}
	if out := <-r.done; out.code != exitcode.ScriptException {
		t.Errorf("exit %d (%v), want %d", out.code, out.err, exitcode.ScriptException)
	}
}

// TestAPIOfARunNeverStarted: a command that fails before Run abandons its control, and the API
// answers Interrupted instead of holding requests while it lingers.
func TestAPIOfARunNeverStarted(t *testing.T) {
	ctl := NewControl()
	r := &apiRun{t: t, srv: httptest.NewServer(restapi.Handler(ctl, nil))}
	t.Cleanup(r.srv.Close)
	ctl.Abandon()
	if s := r.status(); s["status"] != float64(restapi.StatusInterrupted) || s["running"] != false {
		t.Errorf("status = %v", s)
	}
}

func TestAPIStop(t *testing.T) {
	for _, paused := range []bool{false, true} {
		r := startAPIRun(t, `
import { sleep } from 'k6';
export const options = { vus: 1, duration: '10m' };
export default function () { sleep(0.01); }
export function teardown() { console.log("teardown ran"); }
`, options.Options{Paused: null.From(paused)})
		if paused {
			r.waitStatus(restapi.StatusPausedBeforeRun)
		} else {
			r.waitStatus(restapi.StatusRunning)
		}
		if code, body := r.call("PATCH", "/v1/status", `{"data":{"attributes":{"stopped":true}}}`); code != 200 || !strings.Contains(body, `"stopped":true`) {
			t.Errorf("stop: %d %s", code, body)
		}
		out := <-r.done
		if out.code != exitcode.StoppedFromAPI || !strings.Contains(out.err.Error(), "test run stopped from REST API") {
			t.Errorf("paused %v: exit %d (%v), want 103", paused, out.code, out.err)
		}
		if ran := strings.Contains(out.logs, "teardown ran"); ran == paused {
			t.Errorf("paused %v: teardown ran = %v", paused, ran)
		}
		if s := r.status(); s["status"] != float64(restapi.StatusInterrupted) || s["stopped"] != true {
			t.Errorf("paused %v: final status = %v", paused, s)
		}
	}
}

// TestAPISetupByHand is k6-operator's flow for cloud runs: --no-setup --no-teardown, setup run
// on one instance through the API and its data handed to the others with PUT.
func TestAPISetupByHand(t *testing.T) {
	r := startAPIRun(t, `
export const options = { vus: 1, iterations: 1 };
export function setup() { return { from: "setup" }; }
export default function (data) { if (data.from !== "put") throw new Error("data " + JSON.stringify(data)); }
export function teardown(data) { console.log("teardown saw " + data.from); }
`, options.Options{Paused: null.From(true), NoSetup: null.From(true), NoTeardown: null.From(true)})
	r.waitStatus(restapi.StatusPausedBeforeRun)
	if code, body := r.call("POST", "/v1/setup", ""); code != 200 || body != `{"data":{"type":"setupData","id":"default","attributes":{"data":{"from":"setup"}}}}` {
		t.Errorf("POST /v1/setup: %d %s", code, body)
	}
	if code, body := r.call("PUT", "/v1/setup", `{"from":"put"}`); code != 200 || !strings.Contains(body, `"attributes":{"data":{"from":"put"}}`) {
		t.Errorf("PUT /v1/setup: %d %s", code, body)
	}
	if code, body := r.call("PUT", "/v1/setup", `{nope`); code != 400 || !strings.Contains(body, `"title":"Error parsing request body"`) {
		t.Errorf("PUT bad JSON: %d %s", code, body)
	}
	if code, _ := r.call("POST", "/v1/teardown", ""); code != 200 {
		t.Errorf("POST /v1/teardown: %d", code)
	}
	r.call("PATCH", "/v1/status", patchResume)
	out := <-r.done
	if out.err != nil || !strings.Contains(out.logs, "teardown saw put") {
		t.Errorf("run: %v\n%s", out.err, out.logs)
	}
	if code, body := r.call("POST", "/v1/teardown", ""); code != 500 || !strings.Contains(body, "the test run is over") {
		t.Errorf("teardown after the end: %d %s", code, body)
	}
}
