// Package vumemory estimates whether a test's VUs fit in the memory the process may use, so that
// a run asking for far more VUs than fit is refused before it initialises any (without the check
// `run -u 1000000` grows by 300 MB/s until the machine runs out of memory).
package vumemory

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"strconv"

	"github.com/dnecho/dnecho/internal/heapfloor"
)

// PerVU is what one VU of a small script costs: 179 KiB, the max RSS of bench/scripts/vus.js at
// 1000 VUs minus at 1 VU, over 999 (BENCHMARKS.md, "memory per VU", measured by
// bench/harness/memory.go). A script whose init context holds more costs more per VU, so the
// estimate errs towards letting a run start.
const PerVU uint64 = 179 << 10

// meminfo is where Linux tells the memory available to new work without swapping.
const meminfo = "/proc/meminfo"

// Available is the memory the VUs may take and where that figure comes from.
type Available struct {
	Bytes  uint64
	Source string // "GOMEMLIMIT", a cgroup file, or "MemAvailable in /proc/meminfo"
}

// Measure returns the smallest of the process's memory limit (GOMEMLIMIT, the cgroup's limit:
// heapfloor.MemoryLimit) and the machine's available memory: a limit above what the machine has
// free is not memory the VUs can have. ok is false when neither is known.
func Measure() (a Available, ok bool) {
	limit, source := heapfloor.MemoryLimit()
	a = Available{Bytes: limit, Source: source}
	if b, err := os.ReadFile(meminfo); err == nil {
		if free, found := memAvailable(b); found && free < a.Bytes {
			a = Available{Bytes: free, Source: "MemAvailable in " + meminfo}
		}
	}
	return a, a.Bytes != math.MaxUint64
}

// memAvailable reads the MemAvailable line of /proc/meminfo ("MemAvailable:  19736724 kB").
func memAvailable(b []byte) (uint64, bool) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) == 3 && string(f[0]) == "MemAvailable:" && string(f[2]) == "kB" {
			n, err := strconv.ParseUint(string(f[1]), 10, 64)
			return n << 10, err == nil
		}
	}
	return 0, false
}

// Fit is how many VUs fit in a.
func (a Available) Fit() int64 { return int64(min(a.Bytes/PerVU, math.MaxInt64)) }

// Check returns an *Error when vus VUs need more memory than a holds.
func Check(vus int64, a Available) error {
	if vus <= a.Fit() {
		return nil
	}
	return &Error{VUs: vus, Avail: a}
}

// Error is the refusal of more VUs than fit.
type Error struct {
	VUs   int64
	Avail Available
}

// Error implements error.
func (e *Error) Error() string {
	return fmt.Sprintf("%d VUs need ~%s at ~%s per VU, but ~%s is available (%s); at most ~%d VUs fit",
		e.VUs, Size(e.Need()), Size(PerVU), Size(e.Avail.Bytes), e.Avail.Source, e.Avail.Fit())
}

// Need is the memory the VUs need, saturating at the largest uint64.
func (e *Error) Need() uint64 {
	if uint64(e.VUs) > math.MaxUint64/PerVU {
		return math.MaxUint64
	}
	return uint64(e.VUs) * PerVU
}

// Size prints a byte count in the largest binary unit it reaches, with two or three significant
// digits ("171 GiB", "1.5 GiB", "40 MiB").
func Size(n uint64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	v, u := float64(n), 0
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	if v < 10 && u > 0 {
		return fmt.Sprintf("%.1f %s", v, units[u])
	}
	return fmt.Sprintf("%.0f %s", v, units[u])
}
