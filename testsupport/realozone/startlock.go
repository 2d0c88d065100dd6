package realozone

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// lockStart waits until no other real cluster is starting on this machine and returns the
// function that lets the next one start. A start keeps two cores busy for a minute or more; the
// test packages start theirs at once under go test's -p, and with three of them (e2e/realcluster,
// e2e/realsecure, e2e/realha) beside other work the single-SCM one was not ready within its 240 s
// (docs/real-ozone-ha.md). The lock is an flock on a file in CacheDir, so the kernel releases it
// when its holder dies; only the start is serialised, not the tests that follow.
func lockStart(ctx context.Context, progress io.Writer) (unlock func(), err error) {
	if err := os.MkdirAll(CacheDir(), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(CacheDir(), "start.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	said := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil // closing the file releases the lock
		}
		if err != syscall.EWOULDBLOCK {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
		}
		if !said && progress != nil {
			fmt.Fprintf(progress, "real ozone %s: waiting for another real cluster to finish starting\n", Version)
			said = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}
