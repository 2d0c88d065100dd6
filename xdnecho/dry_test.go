package xdnecho

import (
	"context"
	"testing"

	"github.com/dnecho/dnecho/engine/execinfo"
)

// TestDryDefaults: with Defaults.Dry a Client is created without any cluster (what dnecho
// inspect and archive need), options are still validated, and calls fail.
func TestDryDefaults(t *testing.T) {
	useDefaults(t, Defaults{Dry: true})
	t.Setenv("OZONE_CONF_DIR", "")
	rn := mustLoad(t, `
import dnecho from 'k6/x/dnecho';
const client = new dnecho.Client({ containerId: 7 });
const p = client.pipeline();
export const options = { thresholds: { ['dnecho_reqs{container:' + p.containerId + '}']: ['count>0'] }, tags: { dns: String(p.datanodes.length) } };
export default function () { client.echo(); }`, nil)
	if got := string(rn.r.Options()); got != `{"thresholds":{"dnecho_reqs{container:7}":["count>0"]},"tags":{"dns":"0"}}` {
		t.Errorf("options %s", got)
	}
	vu := rn.vu(t, 1, nil)
	err := vu.RunIteration(context.Background(), execinfo.Iteration{}).Err
	wantErr(t, err, "did not contact the cluster")

	_, err = load(t, `import dnecho from 'k6/x/dnecho'; new dnecho.Client({ containerId: 1, nonsense: 1 }); export default function () {}`, nil)
	wantErr(t, err, "nonsense")
}
