// Package js runs k6-style JavaScript and TypeScript test scripts on goja.
//
// Each file is transformed once per test with esbuild (TypeScript types stripped, ES modules
// rewritten to CommonJS, a source map kept so errors point at the original file:line:column) and
// compiled once into a goja program (package loader). Every VU owns its own runtime and evaluates those programs in
// it. Imports resolve to local files (relative, with or without extension, read through
// Config.Files), to https:// modules (Config.Remote), to the built-in modules k6, k6/metrics,
// k6/execution, k6/timers, k6/encoding, k6/crypto and k6/data, or to the Go modules given in
// Config.Modules; anything else is an error that lists the modules there are.
//
// Each VU has an event loop (package eventloop): every lifecycle call — init, an iteration, setup,
// teardown, handleSummary — lasts until the promises, timers and module callbacks it started have
// settled, and a promise rejection nobody handles fails the call like an uncaught exception
// ("Uncaught (in promise) ..."). Lifecycle functions may be async.
//
// The caller (the CLI and the scheduler) drives a run like this:
//
//	r, err := js.Load(ctx, js.Config{Filename: path, Env: env, Registry: reg, Pusher: sink, Logger: log})
//	// err: *ScriptError (exit 107) for syntax errors, bad imports, init exceptions.
//	raw := r.Options() // the script's `options` as JSON; consolidate with the other layers
//	r.Configure(js.RunOptions{Options: consolidated, RunTags: tags, Throw: throw, Exec: sched, OnAbort: stop})
//	data, err := r.Setup(ctx)          // *ScriptError → 107 (no teardown), *TimeoutError → 100
//	vu, err := r.NewVU(ctx, id, idInTest) // or r.VUs(), the scheduler's factory of them
//	err = vu.Activate(&exec.Scenario{Name: "default", Executor: "constant-vus", Exec: "default"})
//	res := vu.RunIteration(iterCtx, exec.Iteration{...}) // res.Outcome: Completed, Interrupted, ...
//	vu.Flush()                          // when the VU goes idle
//	err = r.Teardown(ctx)               // *TimeoutError → 101
//	res, err := r.HandleSummary(ctx, summaryJSON)
//	if res.Handled { err = res.Write(os.Stdout, os.Stderr) } else { /* default summary */ }
//	rootGroup := r.Groups().Clone().Root() // root_group of the summary data
//	reason, failed := r.Outcome().Failed() // exec.test.fail → exit 110
//
// ExitCode maps the errors of this package (and modules.AbortError, exit 108) to exit codes.
//
// Samples (iterations, iteration_duration, data_sent, data_received, checks, group_duration and
// custom metrics) are buffered per VU and pushed to Config.Pusher in batches.
package js
