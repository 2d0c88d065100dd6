package runner

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/dnecho/dnecho/engine/scenario"
	"github.com/dnecho/dnecho/internal/exitcode"
	"github.com/dnecho/dnecho/internal/vumemory"
)

// checkVUMemory refuses a plan whose VUs (this instance's share of every scenario's vus and
// maxVUs, as the scheduler will create them) need more memory than the process may use, before
// any VU exists: initialising them would only grow the process until the machine ran out.
func (t *testRun) checkVUMemory() error {
	if t.cfg.NoVUMemoryCheck {
		return nil
	}
	avail, ok := vumemory.Measure()
	if !ok {
		return nil
	}
	req := scenario.Requirements(t.opts.Scenarios, t.opts.Tuple)
	if err := vumemory.Check(req.MaxVUs, avail); err != nil {
		return withCode(exitcode.InvalidConfig, fmt.Errorf("too many VUs for the memory (%s): %w", t.largestScenarios(), err))
	}
	return nil
}

// largestScenarios names the scenarios that need the most VUs, with their counts, so that the
// user knows which setting to lower.
func (t *testRun) largestScenarios() string {
	type need struct {
		name string
		vus  int64
	}
	var needs []need
	for _, sc := range t.opts.Scenarios {
		req := scenario.Requirements([]scenario.Config{sc}, t.opts.Tuple)
		needs = append(needs, need{sc.Base().Name, req.MaxVUs})
	}
	slices.SortStableFunc(needs, func(a, b need) int { return cmp.Compare(b.vus, a.vus) })
	var parts []string
	for i, n := range needs {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(needs)-i))
			break
		}
		parts = append(parts, fmt.Sprintf("scenario %q: %d VUs", n.name, n.vus))
	}
	return strings.Join(parts, ", ")
}
