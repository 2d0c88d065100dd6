package executor

import (
	"time"
)

// constantVUsDriver: a fixed number of VUs loop until the regular end.
type constantVUsDriver struct {
	sc  *scenarioRun
	vus int64
	dur time.Duration
}

func (r *constantVUsDriver) run() error {
	pvs, err := r.sc.getVUs(r.vus)
	if err != nil {
		return err
	}
	r.sc.eachVU(pvs, func(l *lease) { r.sc.loop(l, r.sc.nextLooping) })
	return nil
}

func (r *constantVUsDriver) progress(elapsed time.Duration) (float64, []string) {
	return timeFraction(elapsed, r.dur), []string{vusPart(r.vus), timePart(elapsed, r.dur)}
}
