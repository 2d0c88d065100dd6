package xdnecho

import "sync"

// workers run echoAsync calls off the VUs' goroutines. A goroutine that finishes a call waits
// for the next one rather than exiting: a fresh goroutine per call would grow its stack through
// the gRPC call every time (about a fifth of the CPU of an async call, measured). There are as
// many workers as calls were ever in flight at once; Close stops them.
type workers struct {
	jobs chan func()
	stop chan struct{}

	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

func newWorkers() *workers {
	return &workers{jobs: make(chan func()), stop: make(chan struct{})}
}

// do runs job on an idle worker, or on a new one.
func (w *workers) do(job func()) {
	select {
	case w.jobs <- job:
		return
	default:
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		// The test run is over (its sessions closed): the call fails at once; no worker to keep.
		go job()
		return
	}
	w.wg.Go(func() {
		job()
		for {
			select {
			case j := <-w.jobs:
				j()
			case <-w.stop:
				return
			}
		}
	})
}

// close stops the idle workers and waits for the busy ones to finish their call.
func (w *workers) close() {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.stop)
	}
	w.mu.Unlock()
	w.wg.Wait()
}
