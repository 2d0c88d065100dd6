// Package scenario reads and checks the scenarios of a k6-style test: it decodes
// `options.scenarios` strictly (an unknown key is an error naming it), derives the `default`
// scenario from the vus/duration/iterations/stages shortcuts, and validates every scenario with
// k6's messages, which the CLI reports with exit code 104. Each executor's Config also describes
// itself for the run header and states its VU plan for one instance of a segmented test, using
// the arithmetic of package plan. Running scenarios is package executor's job.
//
// Behaviour follows k6 v1.x: grafana/k6 lib/executor/*.go (configs and their validation) and
// lib/executor/execution_config_shortcuts.go (the shortcuts).
package scenario
