package cli

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dnecho/dnecho/internal/exitcode"
	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/testsupport/minitest"
)

// javaVerboseList is what Java freon 2.2.0's --verbose printed after a run of `dn-echo
// --container-id 1 -n 5 -t 1 -p abc` (picocli's option order, the values as Java shows them).
var javaVerboseList = []string{
	"--number-of-tests=5", "--threads=1", "--duration=null", "--fail-at-end=false", "--prefix=abc",
	"--payload-req=0", "--payload-resp=0", "--container-id=1", "--sleep-time-ms=0", "--clients=1",
	"--read-only=true", "--ratis=false", "--help=false", "--version=false", "--verbose=true",
}

// --verbose, a parent option in Java inherited by its subcommands, is accepted before and after
// dn-echo, and lists the options after the report as Java does; then dnecho's own follow.
func TestFreonVerboseListsOptions(t *testing.T) {
	_, conf := minitest.Start(t, minicluster.Options{})
	run := []string{"dn-echo", "--conf", conf, "--container-id", "1", "-n", "5", "-t", "1", "-p", "abc", "--token", "none"}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"before dn-echo, log", append([]string{"freon", "--verbose"}, append(run, "--report", "log")...)},
		{"after dn-echo, console", append(append([]string{"freon"}, run...), "--verbose", "--report", "console")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := dnecho(t, 60*time.Second, tc.args...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.all())
			}
			got := optionLines(r)
			if len(got) < len(javaVerboseList) {
				t.Fatalf("option list %q, want it to start with Java's %q\n%s", got, javaVerboseList, r.all())
			}
			for i, want := range javaVerboseList {
				if got[i] != want {
					t.Errorf("option %d: %q, want %q", i, got[i], want)
				}
			}
			rest := strings.Join(got[len(javaVerboseList):], " ")
			for _, want := range []string{"--target=first", "--stream=new", "--token=none", "--report="} {
				if !strings.Contains(rest, want) {
					t.Errorf("dnecho's options lack %q: %s", want, rest)
				}
			}
		})
	}
	r := dnecho(t, 60*time.Second, append([]string{"freon"}, run...)...)
	if strings.Contains(r.all(), "Option:") {
		t.Errorf("an option list without --verbose:\n%s", r.all())
	}
}

// optionLines are the lines after "Option:", on stdout (console) or as freon.BaseFreonGenerator
// log lines.
var optionLogLine = regexp.MustCompile(`(?m)^\S+ \S+ \[shutdown-hook-0\] INFO freon\.BaseFreonGenerator: (--\S*=.*)$`)

func optionLines(r runResult) []string {
	if _, after, ok := strings.Cut(r.stdout, "Successful executions: 5\n\nOption:\n"); ok {
		var out []string
		for _, l := range strings.Split(after, "\n") {
			if !strings.HasPrefix(l, "--") {
				break
			}
			out = append(out, l)
		}
		return out
	}
	if !strings.Contains(r.stderr, "INFO freon.BaseFreonGenerator: \nOption:\n") {
		return nil
	}
	var out []string
	for _, m := range optionLogLine.FindAllStringSubmatch(r.stderr, -1) {
		out = append(out, m[1])
	}
	return out
}

// --server (Java: its metrics over HTTP at ozone.freon.http-address) serves the live web dashboard
// at that address while the run lasts.
func TestFreonServerServesDashboard(t *testing.T) {
	_, conf := minitest.Start(t, minicluster.Options{})
	r := startCmd(t, "freon", "--server", "-D", "ozone.freon.http-address=127.0.0.1:0",
		"dn-echo", "--conf", conf, "--container-id", "1", "--duration", "1m", "-t", "1", "--sleep-time-ms", "5")
	url := regexp.MustCompile(`web-dashboard: live page at (http://127\.0\.0\.1:\d+)`)
	r.waitForMatch(t, url)
	base := url.FindStringSubmatch(r.stderr.String())[1]
	resp, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "<html") {
		t.Errorf("GET %s/: %d %.200s", base, resp.StatusCode, body)
	}
	r.signal(t, syscall.SIGINT)
	if res := r.wait(t); res.code != exitcode.Interrupted {
		t.Errorf("exit %d after Ctrl-C, want %d\n%s", res.code, exitcode.Interrupted, res.all())
	}
}

// freon without a known generator is a usage error (Java's picocli exits 2), not a help page
// with exit 0.
func TestFreonUnknownSubcommand(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"freon", "bogus"}, `unknown command "bogus" for "dnecho freon"`},
		{[]string{"freon", "dn-ecoh"}, "did you mean dn-echo?"},
		{[]string{"freon"}, "missing required subcommand"},
		{[]string{"freon", "--verbose"}, "missing required subcommand"},
	}
	for _, tc := range cases {
		r := dnecho(t, 30*time.Second, tc.args...)
		if r.code != exitcode.Usage {
			t.Errorf("%v: exit %d, want %d\n%s", tc.args, r.code, exitcode.Usage, r.all())
		}
		if !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: stderr lacks %q:\n%s", tc.args, tc.want, r.stderr)
		}
	}
}
