package dashboard

import "time"

// Periods the dashboard picks from, each a whole multiple of the one before, so that a test that
// outlasts AutoPoints points can move to the next without splitting a period (nextPeriod).
// MinPeriod is the shortest: a point then still holds enough calls for its percentiles, and the
// samples' flush delays (Grace) stay a few periods.
var periods = []time.Duration{
	500 * time.Millisecond, time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second,
	time.Minute, 5 * time.Minute, 10 * time.Minute, 30 * time.Minute, time.Hour,
}

// MinPeriod is the shortest period the dashboard picks itself.
var MinPeriod = periods[0]

// AutoPoints is the most points a chart gets at one period before the period grows: enough to
// show a ramp's shape, few enough for a chart a few hundred pixels wide.
const AutoPoints = 300

// AutoPeriod is the period for a test expected to run for length: the shortest of periods that
// gives at most AutoPoints points, so that a test of 5 s or more has at least 10; MinPeriod when
// the length is unknown (0), to grow as the test goes on.
func AutoPeriod(length time.Duration) time.Duration {
	for _, p := range periods {
		if length <= AutoPoints*p {
			return p
		}
	}
	return periods[len(periods)-1]
}

// nextPeriod is the period after p, or 0 when p is the longest (or not one of periods).
func nextPeriod(p time.Duration) time.Duration {
	for i, q := range periods[:len(periods)-1] {
		if q == p {
			return periods[i+1]
		}
	}
	return 0
}
