// Package pacing holds the one schedule both front ends share for a constant rate: when call or
// iteration i of a run at a fixed rate is due. `dnecho run`'s constant-arrival-rate executor and
// freon's open loop (`--rate`) both use it, so the two start their calls at the same instants;
// neither front end imports the other for it.
package pacing

import (
	"math"
	"math/bits"
	"time"
)

// Never is the due time of a call that can never start (a rate of 0, or a time past the range
// of time.Duration).
const Never = time.Duration(math.MaxInt64)

// Constant is when call i (0-based) of a run at rate calls per unit is due, relative to the run's
// start: i·unit/rate, computed exactly in 128 bits so long runs neither drift nor overflow. Call 0
// is due at once; Never for a negative i, a rate or unit that is not positive, or an overflow.
func Constant(i, rate int64, unit time.Duration) time.Duration {
	if i < 0 || rate <= 0 || unit <= 0 {
		return Never
	}
	hi, lo := bits.Mul64(uint64(i), uint64(unit))
	if hi >= uint64(rate) {
		return Never
	}
	q, _ := bits.Div64(hi, lo, uint64(rate))
	if q > math.MaxInt64 {
		return Never
	}
	return time.Duration(q)
}
