package main

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"time"
)

// javaBaselineDivisor sets the short run of Java freon's CPU measurement: n/javaBaselineDivisor
// calls against the long run's n. A JVM spends seconds of CPU before the first call (class loading
// of Ozone's classpath, JIT, the SCM lookup) and some after the last (the report, shutdown hooks);
// both runs pay them, so the difference is the cost of the long run's extra calls alone. The
// short run is long enough that the JIT has compiled the call path (its first calls, the slowest,
// are in both runs): the difference is Java's steady-state cost, which is what dnecho is compared
// with. Subtracting a run of one call instead would charge JIT warm-up to the calls and flatter
// dnecho.
const javaBaselineDivisor = 5

// javaTool is Java `ozone freon dn-echo` with n calls, the row's transport flags and the same
// request as dnecho freon's, run from the cluster's jars with its client conf.
func (t *realTarget) javaTool(row realRow, n int) tool {
	args := append([]string{"dn-echo", "-t", realThreads, "-n", strconv.Itoa(n),
		"--container-id", strconv.FormatInt(t.container, 10), "--payload-req", "0", "--payload-resp", row.respKB()}, row.flags...)
	return tool{name: toolJava, parse: parseFreon, args: args,
		command: func(ctx context.Context, args ...string) *exec.Cmd { return t.cluster.Freon(ctx, args...) }}
}

// marginal returns long with its CPU per call replaced by the CPU of the calls long made beyond
// short: (long.cpu - short.cpu) / (long.calls - short.calls). The DataNodes' CPU per call is the
// same difference, so their background work during the JVM's start-up (heartbeats, Raft) is not
// charged to the calls either. Rate and latency stay long's.
func marginal(long, short result) (result, error) {
	extra := long.calls - short.calls
	if extra <= 0 {
		return result{}, fmt.Errorf("java-freon: the long run made %d calls, the short one %d: no difference to measure", long.calls, short.calls)
	}
	d := long.cpu - short.cpu
	if d <= 0 {
		return result{}, fmt.Errorf("java-freon: %d calls used %s of CPU and %d calls %s: the difference is not positive (the machine is too noisy to measure)",
			long.calls, long.cpu, short.calls, short.cpu)
	}
	long.cpuPerCall = d / time.Duration(extra)
	long.dnCPUPerCall = max(0, long.dnCPU-short.dnCPU) / time.Duration(extra)
	return long, nil
}
