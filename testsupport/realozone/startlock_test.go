package realozone

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// One start at a time: a second waits while the first holds the lock (here until its context
// ends, saying once that it waits), and gets it as soon as the first lets go.
func TestLockStartOneAtATime(t *testing.T) {
	t.Setenv("DNECHO_OZONE_CACHE", t.TempDir())
	unlock, err := lockStart(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var said strings.Builder
	if _, err := lockStart(ctx, &said); !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(said.String(), "waiting for another real cluster") {
		t.Fatalf("second start while the first holds the lock: %v, said %q; want it to wait and say so", err, said.String())
	}
	unlock()
	next, err := lockStart(context.Background(), nil)
	if err != nil {
		t.Fatalf("after the first let go: %v", err)
	}
	next()
}
