package heapfloor

import (
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// limitShare is the part of a memory limit the floor may take: a container limited to 128 MiB
// (a small k6-operator runner pod, say) gets a 32 MiB floor, so the floor alone never brings a
// process near its limit.
const limitShare = 4

// cgroupLimits are the files that hold the container's memory limit: cgroup v2, then v1. Go does
// not read them for the collector (GOMEMLIMIT is not derived from them).
var cgroupLimits = []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}

// Fit returns floor, lowered to a quarter of the process's memory limit when one is set: the
// smallest of GOMEMLIMIT (debug.SetMemoryLimit) and the cgroup's limit.
func Fit(floor uint64) uint64 {
	limit, _ := MemoryLimit()
	return fit(floor, limit)
}

// MemoryLimit is the process's memory limit: the smallest of GOMEMLIMIT (or what the program set
// with debug.SetMemoryLimit) and the cgroup's limit, with where it comes from ("GOMEMLIMIT" or the
// cgroup file). Without a limit it returns math.MaxUint64 and "".
func MemoryLimit() (bytes uint64, source string) {
	bytes = math.MaxUint64
	if l := goLimit(); l != math.MaxUint64 {
		bytes, source = l, "GOMEMLIMIT"
	}
	for _, f := range cgroupLimits {
		if b, err := os.ReadFile(f); err == nil {
			if l := parseLimit(string(b)); l > 0 && l < bytes {
				bytes, source = l, f
			}
		}
	}
	return bytes, source
}

// fit lowers floor to limit/limitShare for the smallest limit; 0 or math.MaxUint64 means none.
func fit(floor uint64, limits ...uint64) uint64 {
	for _, l := range limits {
		if l > 0 && l != math.MaxUint64 {
			floor = min(floor, l/limitShare)
		}
	}
	return floor
}

// goLimit is GOMEMLIMIT (or what the program set), math.MaxUint64 when there is none.
func goLimit() uint64 {
	l := debug.SetMemoryLimit(-1) // a negative input reads the limit without changing it
	if l <= 0 || l == math.MaxInt64 {
		return math.MaxUint64
	}
	return uint64(l)
}

// parseLimit reads a cgroup memory limit: "max" (v2) and v1's page-rounded MaxInt64 mean none.
func parseLimit(s string) uint64 {
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil || n >= 1<<62 {
		return math.MaxUint64
	}
	return n
}
