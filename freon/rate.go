package freon

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/dnecho/dnecho/internal/pacing"
)

// Rate is the pace of an open loop: Calls calls started every Per (a second or a minute).
// The zero Rate selects freon's closed loop.
type Rate struct {
	Calls int64
	Per   time.Duration
}

// rateForms is the text every --rate error ends with.
const rateForms = "want N or N/s (calls started per second) or N/m (per minute), N a whole number ≥ 1"

// ParseRate reads a --rate: "N" or "N/s" (per second) or "N/m" (per minute), N a whole
// number ≥ 1.
func ParseRate(s string) (Rate, error) {
	num, unit, hasUnit := strings.Cut(s, "/")
	per := time.Second
	if hasUnit {
		switch unit {
		case "s":
		case "m":
			per = time.Minute
		default:
			return Rate{}, fmt.Errorf("invalid --rate %q: %s", s, rateForms)
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 1 {
		return Rate{}, fmt.Errorf("invalid --rate %q: %s", s, rateForms)
	}
	return Rate{Calls: n, Per: per}, nil
}

// Open says whether r selects the open loop.
func (r Rate) Open() bool { return r.Calls > 0 && r.Per > 0 }

// String is the rate as --rate takes it, with its unit: "500/s", "30/m".
func (r Rate) String() string {
	if r.Per == time.Minute {
		return fmt.Sprintf("%d/m", r.Calls)
	}
	return fmt.Sprintf("%d/s", r.Calls)
}

// Due is when call i (0-based) is due, measured from the run's start: i·Per/Calls, the
// schedule of `dnecho run`'s constant-arrival-rate (pacing.Constant: exact in 128 bits, so
// long runs neither drift nor overflow). Call 0 is due at once.
func (r Rate) Due(i int64) time.Duration {
	return pacing.Constant(i, r.Calls, r.Per)
}

// Pace is the open loop's pacing as a pure function of the time since the run's start and
// the number of calls already taken (hits, so the next call is number hits, 0-based): how long
// to wait before starting it, or, when it is overdue, how late it starts. At most one of the
// two is non-zero. The runner asks it once per call; nothing in it reads a clock.
func (r Rate) Pace(elapsed time.Duration, hits int64) (wait, late time.Duration) {
	due := r.Due(hits)
	if due >= elapsed {
		return due - elapsed, 0
	}
	return 0, elapsed - due
}

// dueBefore is how many calls are due before d after the start: the least i with Due(i) ≥ d.
func (r Rate) dueBefore(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	// i·Per/Calls ≥ d from i ≥ d·Calls/Per; the float estimate is corrected both ways.
	i := int64(math.Min(float64(d)*float64(r.Calls)/float64(r.Per), math.MaxInt64/2))
	for i > 0 && r.Due(i-1) >= d {
		i--
	}
	for r.Due(i) < d {
		i++
	}
	return i
}
