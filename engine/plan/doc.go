// Package plan is the arithmetic of a k6-style test plan, free of clocks and of option decoding:
// execution segments and how they stripe VUs and iterations between instances, the ramping-vus
// steps and the VUs a ramp-down keeps reserved, the start time of every arrival-rate iteration,
// and the VU requirements of scenarios combined over time. Everything here is a pure function of
// its arguments, tested with tables (grafana/k6 lib/execution_segment.go, lib/executor/*.go).
package plan
