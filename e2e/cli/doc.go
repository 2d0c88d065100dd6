// Package cli is dnecho's end-to-end tier against the emulator: its tests build the dnecho binary
// once (TestMain) and drive it as a user does (freon, run, cluster, aggregate, archive, outputs,
// signals, exit codes), against mini clusters, throw-away KDCs and real stores. cmd/dnecho keeps
// the unit tests of its own functions. Under -short nothing is built and every test here skips.
package cli
