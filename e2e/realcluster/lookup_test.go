package realcluster

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/minicluster"
)

// A container SCM does not know: real SCM's answer ends both freons with 255 and SCM's own
// message; the emulated SCM answers the same.
func TestUnknownContainerLikeRealSCM(t *testing.T) {
	c := cluster(t)
	_, emuConf := emulator(t, minicluster.Options{})
	const id = "987654"
	want := "Container #" + id + " not found"
	for name, conf := range map[string]string{"real": c.ClientConf, "emulator": emuConf} {
		r := dnecho(t, time.Minute, "freon", "dn-echo", "--conf", conf, "--container-id", id, "-n", "1", "-t", "1")
		if r.Code != 255 || !strings.Contains(r.Out, want) {
			t.Errorf("dnecho against the %s SCM: exit %d, want 255 and %q:\n%s", name, r.Code, want, tail(r.Out, 10))
		}
	}
	jr := javaFreon(t, c, 2*time.Minute, "dn-echo", "-n", "1", "-t", "1", "--container-id", id)
	if jr.Code == 0 || !strings.Contains(jr.Out, want) {
		t.Errorf("java freon: exit %d, want non-zero and %q:\n%s", jr.Code, want, tail(jr.Out, 10))
	}
}

// A CLOSED container: Echo over gRPC and Ratis reads still answer (Echo reads nothing); a Ratis
// write is refused by the leader's state machine with ContainerNotOpenException, which dnecho
// does not even try without --unsafe-write. The emulator, after its own close, does the same.
func TestClosedContainerLikeRealDataNodes(t *testing.T) {
	c := cluster(t)
	id := container(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.CloseContainer(ctx, id); err != nil {
		t.Fatal(err)
	}
	emu, emuConf := emulator(t, minicluster.Options{})
	if err := emu.CloseContainer(1); err != nil {
		t.Fatal(err)
	}
	peers := map[string][]string{
		"real":     {"--conf", c.ClientConf, "--container-id", fmt.Sprint(id)},
		"emulator": {"--conf", emuConf, "--container-id", "1"},
	}
	cases := []struct {
		mode []string
		code int
		want []string
	}{
		{nil, 0, []string{"(CLOSED)", "Successful executions: 3"}},
		{[]string{"--ratis", "--read-only"}, 0, []string{"Successful executions: 3"}},
		{[]string{"--ratis"}, 255, []string{"SCM lists it as CLOSED, not OPEN"}},
		{[]string{"--ratis", "--unsafe-write"}, 255, []string{"ContainerNotOpenException", "in CLOSED state", "Failures: 1"}},
	}
	for name, peer := range peers {
		for _, tc := range cases {
			args := append(append([]string{"freon", "dn-echo", "-n", "3", "-t", "1"}, peer...), tc.mode...)
			r := dnecho(t, time.Minute, args...)
			if r.Code != tc.code || !containsAll(r.Out, tc.want) {
				t.Errorf("%s %v: exit %d, want %d and %q:\n%s", name, tc.mode, r.Code, tc.code, tc.want, tail(r.Out, 10))
			}
		}
	}
	for _, mode := range [][]string{nil, {"--ratis", "--read-only"}} {
		jr := javaFreon(t, c, 2*time.Minute, append([]string{"dn-echo", "-n", "3", "-t", "1", "--container-id", fmt.Sprint(id)}, mode...)...)
		if jr.Code != 0 || !strings.Contains(jr.Out, "Successful executions: 3") {
			t.Errorf("java freon %v: exit %d:\n%s", mode, jr.Code, tail(jr.Out, 10))
		}
	}
	jr := javaFreon(t, c, 2*time.Minute, "dn-echo", "-n", "1", "-t", "1", "--ratis", "--container-id", fmt.Sprint(id))
	if jr.Code == 0 || !strings.Contains(jr.Out, "ContainerNotOpenException") {
		t.Errorf("java freon --ratis: exit %d, want non-zero and ContainerNotOpenException:\n%s", jr.Code, tail(jr.Out, 10))
	}
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
