// Command rawecho is the floor for `make bench`: bench/floor's client (request encoded once, reply
// checked in place, no allocation of its own per call) driven by n calls shared by t goroutines,
// like freon's closed loop, with nothing else: no retries, no result classification, each call's
// latency stored in one preallocated array (4 bytes a call, no pointers: nothing for the garbage
// collector to scan, and a live heap about as small as freon's, so both collect as often). dnecho's
// CPU per call is reported as a ratio to this program's.
//
// -addr and -uuid may list several DataNodes (comma-separated, in the same order): call i then
// goes to DataNode i mod count over a connection of its own, the round-robin of dnecho's
// --target all, so `make bench`'s scaling rows can show what spreading calls over more
// connections costs the transport alone.
//
// It prints one line: calls, failures, wall time, calls/s, p50/p99 in ms and the process's heap
// allocations per call (runtime.MemStats.Mallocs, connection set-up included), and exits 1 when
// a call failed.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dnecho/dnecho/bench/floor"
	"github.com/dnecho/dnecho/internal/heapfloor"
)

// config is the command line.
type config struct {
	addr, uuid, cpuProfile string
	container              int64
	calls, threads, respKB int
	reuse                  bool
	deadline               time.Duration
	window                 int
	latency                bool
}

func main() {
	var c config
	flag.StringVar(&c.addr, "addr", "127.0.0.1:9859", "DataNode address, or addresses comma-separated (round-robin, new streams only)")
	flag.StringVar(&c.uuid, "uuid", "", "DataNode uuid, or uuids comma-separated in -addr's order")
	flag.Int64Var(&c.container, "container", 1, "container id")
	flag.IntVar(&c.calls, "n", 100000, "calls")
	flag.IntVar(&c.threads, "t", 1, "goroutines")
	flag.BoolVar(&c.reuse, "reuse", false, "one stream per goroutine instead of one per call")
	flag.IntVar(&c.respKB, "resp-kb", 0, "response payload KiB")
	// Java sends every Echo with a deadline (grpc-timeout header, ozone.client.read.timeout), so
	// the floor does too by default: both then put the same bytes on the wire.
	flag.DurationVar(&c.deadline, "deadline", floor.DefaultDeadline, "per-call deadline on new streams (0: none)")
	flag.IntVar(&c.window, "window", 0, "static HTTP/2 flow-control window in bytes (0: grpc-go's default, BDP estimation)")
	flag.BoolVar(&c.latency, "latency", true, "time every call (off: p50/p99 print as 0)")
	flag.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the calls to this file")
	flag.Parse()
	if c.calls < 1 || c.threads < 1 {
		fmt.Fprintln(os.Stderr, "rawecho: -n and -t must be at least 1")
		os.Exit(2)
	}
	// The floor runs under the same garbage-collection policy as dnecho, so that the ratios
	// compare the call paths and not two GC settings.
	stopFloor := heapfloor.Start(heapfloor.DefaultFloor)
	err := run(c, os.Stdout)
	stopFloor()
	if err != nil {
		fmt.Fprintln(os.Stderr, "rawecho:", err)
		os.Exit(1)
	}
}

// run makes the calls and prints the result line to out.
func run(c config, out io.Writer) error {
	conns, err := dial(c)
	defer func() {
		for _, conn := range conns {
			conn.Close()
		}
	}()
	if err != nil {
		return err
	}
	if c.cpuProfile != "" {
		f, err := os.Create(c.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var micros []uint32 // by call number
	if c.latency {
		micros = make([]uint32, c.calls)
	}
	workers := make([]*worker, c.threads)
	for i := range workers {
		workers[i] = &worker{conns: conns, reuse: c.reuse, micros: micros}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Go(func() { w.run(&next, int64(c.calls)) })
	}
	wg.Wait()
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	return report(out, workers, micros, c.calls, elapsed, after.Mallocs-before.Mallocs)
}

// dial opens one connection per DataNode of -addr, each with its own request (the request names
// the DataNode's uuid).
func dial(c config) ([]*floor.Conn, error) {
	addrs, uuids := strings.Split(c.addr, ","), strings.Split(c.uuid, ",")
	if len(addrs) != len(uuids) {
		return nil, fmt.Errorf("-addr lists %d DataNodes and -uuid %d: give one uuid per address", len(addrs), len(uuids))
	}
	if c.reuse && len(addrs) > 1 {
		return nil, fmt.Errorf("-reuse takes one -addr (round-robin is for new streams)")
	}
	var conns []*floor.Conn
	for i, addr := range addrs {
		req, err := floor.NewRequest(c.container, uuids[i], int32(c.respKB*1024))
		if err != nil {
			return conns, err
		}
		conn, err := floor.Dial(addr, req, floor.Options{Deadline: c.deadline, Window: int32(c.window)})
		if err != nil {
			return conns, fmt.Errorf("DataNode %s: %w", addr, err)
		}
		conns = append(conns, conn)
	}
	return conns, nil
}

// report prints the result line; when calls failed it returns one of the errors.
func report(out io.Writer, workers []*worker, micros []uint32, calls int, elapsed time.Duration, mallocs uint64) error {
	var failed int64
	var first error
	for _, w := range workers {
		failed += w.failed
		if first == nil {
			first = w.err
		}
	}
	slices.Sort(micros) // failed calls are 0 and sort first; any failure fails the run anyway
	ms := func(q float64) float64 {
		if len(micros) == 0 {
			return 0
		}
		return float64(micros[int(q*float64(len(micros)-1))]) / 1000
	}
	fmt.Fprintf(out, "calls=%d failed=%d seconds=%.3f calls_per_s=%.1f p50_ms=%.3f p99_ms=%.3f allocs_per_call=%.1f\n",
		calls, failed, elapsed.Seconds(), float64(calls)/elapsed.Seconds(), ms(0.50), ms(0.99), float64(mallocs)/float64(calls))
	if first != nil {
		return fmt.Errorf("%d calls failed, one with: %w", failed, first)
	}
	return nil
}

// worker is one goroutine's calls and what it measured.
type worker struct {
	conns  []*floor.Conn // call i goes to conns[i mod len(conns)]; a reused stream is on conns[0]
	reuse  bool
	stream *floor.Stream // reused-stream mode; nil until the first call and after a failure
	reply  floor.Reply
	micros []uint32 // latency by call number, shared: each call writes its own element; nil: off
	failed int64
	err    error // the first failure
}

// run makes calls until the shared counter passes calls.
func (w *worker) run(next *atomic.Int64, calls int64) {
	ctx := context.Background()
	for {
		i := next.Add(1) - 1
		if i >= calls {
			break
		}
		var t0 time.Time
		if w.micros != nil {
			t0 = time.Now()
		}
		if err := w.call(ctx, w.conns[i%int64(len(w.conns))]); err != nil {
			w.failed++
			if w.err == nil {
				w.err = err
			}
			continue
		}
		if w.micros != nil {
			w.micros[i] = uint32(time.Since(t0) / time.Microsecond)
		}
	}
	if w.stream != nil {
		_ = w.stream.Close()
	}
}

func (w *worker) call(ctx context.Context, conn *floor.Conn) error {
	if !w.reuse {
		return conn.Call(ctx, &w.reply)
	}
	if w.stream == nil {
		s, err := conn.OpenStream(ctx)
		if err != nil {
			return err
		}
		w.stream = s
	}
	if err := w.stream.Call(&w.reply); err != nil {
		_ = w.stream.Close() // the stream is over; this only releases it
		w.stream = nil
		return err
	}
	return nil
}
