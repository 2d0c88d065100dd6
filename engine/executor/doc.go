// Package executor runs k6-style scenarios: it decodes and validates `options.scenarios`, derives
// the `default` scenario from the vus/duration/iterations/stages shortcuts, plans VU requirements,
// splits work between instances with execution segments, and schedules iterations on virtual
// users with the six k6 executors (shared-iterations, per-vu-iterations, constant-vus,
// ramping-vus, constant-arrival-rate, ramping-arrival-rate).
//
// The package knows nothing about JavaScript: a script runtime plugs in through the small VU
// contract in vu.go (VUFactory, VU, ActiveVU). The timing maths (arrival-rate pacing, ramping VU
// steps, segment striping, plan requirements) are pure functions so they can be tested without a
// clock; only the Scheduler touches real time.
//
// Behaviour follows /work/shared/spec/k6-compat.md §2–§5, §8.1 and §12.1 (k6 v1.x semantics).
package executor
