package echo

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/ozone/config"
	"github.com/dnecho/dnecho/testsupport/minitest"
)

// events collects what an Observer hears.
type events struct {
	mu   sync.Mutex
	list []Event
}

func (e *events) observe(ev Event) {
	e.mu.Lock()
	e.list = append(e.list, ev)
	e.mu.Unlock()
}

func (e *events) all() []Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Event(nil), e.list...)
}

// kinds returns the events of kind k, and the index of the first one (-1 for none).
func (e *events) kinds(k EventKind) (out []Event, first int) {
	first = -1
	for i, ev := range e.all() {
		if ev.Kind == k {
			if first < 0 {
				first = i
			}
			out = append(out, ev)
		}
	}
	return out, first
}

// The first SCM of the service hangs: the lookup leaves it after its quiet time (here
// hdds.scmclient.rpc.timeout), says so in one line naming it, and is answered by the next one,
// long before the lookup timeout.
func TestLookupLeavesHungSCM(t *testing.T) {
	// Long enough for the live emulated SCMs to answer on a busy machine.
	const quiet, lookupTimeout = time.Second, time.Minute
	c, conf := minitest.Start(t, minicluster.Options{SCMs: 3})
	if err := c.HangSCM(0); err != nil {
		t.Fatal(err)
	}
	var ev events
	start := time.Now()
	s, err := Open(context.Background(), Spec{ContainerID: 1, LookupTimeout: lookupTimeout,
		Cluster: Cluster{ConfDir: conf, Overrides: []string{ // 5 s and 2 s by default, scaled down
			config.KeySCMClientRPCTimeout + "=" + quiet.String(), config.KeySCMClientRetryInterval + "=400ms"}}}, ev.observe)
	if err != nil {
		t.Fatalf("lookup with scm1 hung: %v", err)
	}
	s.Close()
	took := time.Since(start)
	retries, _ := ev.kinds(EventSCMRetry)
	addrs := c.SCMAddrs()
	want := "SCM scm1 (" + addrs[0] + ") did not answer in 1s: trying scm2 (" + addrs[1] + ")"
	if len(retries) != 1 || retries[0].Message != want {
		t.Fatalf("events %+v, want one retry: %q", ev.all(), want)
	}
	if took < quiet || took >= lookupTimeout/2 {
		t.Errorf("lookup took %s: want at least the quiet time %s and far less than the lookup timeout %s", took, quiet, lookupTimeout)
	}
}

// A follower listed first answers that it is not the leader: the lookup says so and where it
// goes next, and from then on never says it is still waiting for SCM to answer.
func TestLookupLogsRedirect(t *testing.T) {
	c, conf := minitest.Start(t, minicluster.Options{SCMs: 3})
	if err := c.HA().SetLeader(2); err != nil {
		t.Fatal(err)
	}
	var ev events
	s, err := Open(context.Background(), Spec{ContainerID: 1, Cluster: Cluster{ConfDir: conf}}, ev.observe)
	if err != nil {
		t.Fatalf("lookup: %v", err)
	}
	s.Close()
	addrs := c.SCMAddrs()
	redirects, first := ev.kinds(EventSCMRedirect)
	// The pause is the 2 s interval less the attempt's own time: its figure is not checked.
	want := "SCM scm1 (" + addrs[0] + ") is not the leader; it names scm3 (" + addrs[2] + ") as the leader: trying it in "
	if len(redirects) != 1 || !strings.HasPrefix(redirects[0].Message, want) || !redirects[0].Kind.Info() {
		t.Fatalf("events %+v, want one redirect: %q", ev.all(), want)
	}
	for _, e := range ev.all()[first:] {
		if e.Kind == EventSlowLookup || strings.Contains(e.Message, "still waiting") {
			t.Errorf("after SCM answered: %q", e.Message)
		}
	}
}

// The quiet time of one SCM attempt: hdds.scmclient.rpc.timeout when set, else 5 s; never more
// than a quarter of the lookup timeout.
func TestSCMAttemptTimeout(t *testing.T) {
	tests := []struct {
		set    string
		lookup time.Duration
		want   time.Duration
	}{
		{"", time.Minute, DefaultSCMAttemptTimeout},
		{"", 8 * time.Second, 2 * time.Second},
		{"750ms", time.Minute, 750 * time.Millisecond},
		{"15m", time.Minute, 15 * time.Second},
		{"1000", time.Minute, time.Second}, // a bare number is milliseconds
	}
	for _, tt := range tests {
		cfg := config.New()
		if tt.set != "" {
			cfg.Set(config.KeySCMClientRPCTimeout, tt.set)
		}
		settings, err := cfg.ClientSettings()
		if err != nil {
			t.Fatal(err)
		}
		if got := scmAttemptTimeout(settings, tt.lookup); got != tt.want {
			t.Errorf("rpc.timeout %q, lookup %s: %s, want %s", tt.set, tt.lookup, got, tt.want)
		}
	}
}
