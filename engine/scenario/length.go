package scenario

import "time"

// Length is how long the scenarios start iterations, when that is known before the test: the
// latest regular end (startTime plus duration, or the stages) of the scenarios that run for a
// time. It is 0 (unknown) when a scenario that runs a number of iterations might end later, since
// its maxDuration only bounds it, and when no scenario runs for a time. gracefulStop is left out:
// a test seldom needs it.
func Length(cs []Config) time.Duration {
	var timed, counted time.Duration
	for _, c := range cs {
		end := c.Base().StartOffset() + c.RegularDuration()
		switch c.Base().Executor {
		case SharedIterations, PerVUIterations:
			counted = max(counted, end)
		default:
			timed = max(timed, end)
		}
	}
	if counted > timed {
		return 0
	}
	return timed
}
