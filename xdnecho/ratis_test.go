package xdnecho

import (
	"testing"

	"github.com/dnecho/dnecho/echometrics"
	"github.com/dnecho/dnecho/engine/execinfo"
	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/testsupport/minitest"
)

// TestRatisOptions: `ratis: true` sends through the pipeline's Raft group, a write unless
// `readOnly: true`, as freon --ratis [--read-only]; samples carry the mode and the leader that
// answered. A call may ask for the other Raft type with its own readOnly.
func TestRatisOptions(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{Leader: 2})
	rn := mustLoad(t, `
import dnecho from 'k6/x/dnecho';
const write = new dnecho.Client({ containerId: 1, scm: __ENV.SCM, ratis: true });
const read = new dnecho.Client({ containerId: 1, scm: __ENV.SCM, ratis: true, readOnly: true });
const grpc = new dnecho.Client({ containerId: 1, scm: __ENV.SCM, ratis: false, readOnly: false });
export default function () {
  globalThis.leader = read.pipeline().leader;
  globalThis.out = [write.echo(), read.echo(), grpc.echo(), read.echo({ readOnly: false })].map((r) => r.ok);
}`, clusterEnv(c))
	vu := rn.vu(t, 1, &execinfo.Scenario{Name: "default", Executor: "shared-iterations"})
	iterate(t, vu)
	vu.Flush()
	if ok := global(vu, "out").([]any); len(ok) != 4 || ok[0] != true || ok[1] != true || ok[2] != true || ok[3] != true {
		t.Fatalf("results %v", ok)
	}
	leader := c.DataNodes()[2].UUID()
	if got := global(vu, "leader"); got != leader {
		t.Errorf("pipeline().leader = %v, want %s", got, leader)
	}
	want := []struct{ mode, datanode string }{
		{"ratis-write", leader}, {"ratis-read", leader}, {"grpc", c.DataNodes()[0].UUID()}, {"ratis-write", leader},
	}
	samples := rn.out.ByName(MetricReqDuration)
	if len(samples) != len(want) {
		t.Fatalf("%d samples", len(samples))
	}
	for i, w := range want {
		mode, _ := samples[i].Tags.Get(echometrics.TagMode)
		dn, _ := samples[i].Tags.Get(TagDataNode)
		if mode != w.mode || dn != w.datanode {
			t.Errorf("sample %d: mode %s datanode %s, want %s %s", i, mode, dn, w.mode, w.datanode)
		}
	}
	if s := c.Group().Stats(); s.LastIndex != 3 {
		t.Errorf("two writes: log %+v", s)
	}
}

// TestRatisUnsafeWriteOption: a write Client on a container SCM does not list OPEN fails in the
// init context with the reason; unsafeWrite: true overrides.
func TestRatisUnsafeWriteOption(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{})
	if err := c.SCM().AddContainer(closedContainer(c)); err != nil {
		t.Fatal(err)
	}
	_, err := load(t, `import dnecho from 'k6/x/dnecho';
const w = new dnecho.Client({ containerId: 9, scm: __ENV.SCM, ratis: true });
export default function () {}`, clusterEnv(c))
	wantErr(t, err, "refusing write-mode Echo through Ratis to container 9: SCM lists it as CLOSED")
	if _, err := load(t, `import dnecho from 'k6/x/dnecho';
const w = new dnecho.Client({ containerId: 9, scm: __ENV.SCM, ratis: true, unsafeWrite: true });
export default function () {}`, clusterEnv(c)); err != nil {
		t.Fatal(err)
	}
}
