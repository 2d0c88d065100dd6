package aggregate_test

import (
	"testing"

	"github.com/dnecho/dnecho/engine/summary"
	"github.com/dnecho/dnecho/testsupport/testkit"
)

// groups checks in the root group, in nested groups and in setup (which every instance runs);
// the group "empty" holds none. Each instance runs one VU in the same order, and the results
// depend only on the iteration's number in the whole test, so the merged counts are fixed.
const groups = `
import exec from 'k6/execution';
import { check, group } from 'k6';
export const options = { scenarios: { s: { executor: 'shared-iterations', vus: 3, iterations: 30 } } };
export function setup() { check(1, { 'setup ok': true }); }
export default function () {
  const i = exec.scenario.iterationInTest;
  check(i, { 'is even': (v) => v % 2 === 0, 'always': true });
  group('outer', () => {
    check(i, { 'below ten': (v) => v < 10 });
    group('inner', () => { check(i, { 'deep': true }); });
  });
  group('empty', () => {});
}
`

// TestMergedGroupTree pins the aggregator's group tree, merged from the check and group deltas
// of three instances, in the handleSummary data's and the --summary-export document's
// root_group (golden files; -update rewrites them).
func TestMergedGroupTree(t *testing.T) {
	addr, wait := startAggregator(t)
	for i, r := range runInstances(t, groups, addr, thirds, false) {
		if r.err != nil {
			t.Fatalf("instance %d: %v", i, r.err)
		}
	}
	res := wait()
	d, err := summary.Build(summary.Input{Snapshot: res.Snapshot, Duration: res.Duration})
	if err != nil {
		t.Fatal(err)
	}
	data, err := d.JSON()
	if err != nil {
		t.Fatal(err)
	}
	testkit.Golden(t, "merged_groups_handle_summary.json", testkit.JSONMember(t, data, "root_group"))
	export, err := d.Export()
	if err != nil {
		t.Fatal(err)
	}
	testkit.Golden(t, "merged_groups_summary_export.json", testkit.JSONMember(t, export, "root_group"))
}
