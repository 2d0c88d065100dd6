// Package executor runs the scenarios of a k6-style test: a Scheduler starts each scenario at its
// startTime on a shared pool of VUs, and the six executors (shared-iterations, per-vu-iterations,
// constant-vus, ramping-vus, constant-arrival-rate, ramping-arrival-rate) drive their VUs until
// the regular end, give running iterations their gracefulStop and gracefulRampDown, drop
// arrival-rate iterations that find no idle VU, and emit vus, vus_max and dropped_iterations.
//
// The package knows nothing about JavaScript: a script runtime plugs in through the small VU
// contract in vu.go (VUFactory, VU, Activation), exchanging the types of package execinfo.
// Decoding and validating scenarios is package scenario's job; the timing maths (segments, ramps,
// arrival pacing, requirements) are package plan's pure functions. Only this package touches the
// clock, and only through package time, so tests run it on testing/synctest's virtual clock.
//
// Behaviour follows k6 v1.x: grafana/k6 lib/executor/*.go and execution/scheduler.go.
package executor
