package sender

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fast keeps retries short so the tests do not wait on back-off.
func fast(c Config) Config {
	c.Backoff, c.MaxBackoff, c.StopTimeout = time.Millisecond, 2*time.Millisecond, 5*time.Second
	return c
}

func TestSenderWritesEverything(t *testing.T) {
	var got atomic.Int64
	s := New(fast(Config{Workers: 3, QueueLimit: 100}), func(_ context.Context, b []byte) error { got.Add(int64(len(b))); return nil })
	s.Start()
	for range 100 {
		s.Enqueue(Payload{Body: []byte("xx"), Samples: 2})
	}
	s.Stop()
	w, d, err := s.Account()
	if w != 200 || d != 0 || err != nil || got.Load() != 200 {
		t.Fatalf("written %d dropped %d err %v sent %d bytes", w, d, err, got.Load())
	}
}

// A store that fails a few times and then recovers loses nothing; one that rejects a payload
// (permanent) or never answers loses exactly that payload's samples.
func TestSenderRetriesAndAccounts(t *testing.T) {
	cases := []struct {
		name          string
		send          func(n int) error
		written, drop int64
	}{
		{"recovers", func(n int) error {
			if n < 3 {
				return errors.New("connection refused")
			}
			return nil
		}, 10, 0},
		{"rejected", func(int) error { return Permanent(errors.New("HTTP 400")) }, 0, 10},
		{"down", func(int) error { return errors.New("connection refused") }, 0, 10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var calls atomic.Int64
			s := New(fast(Config{MaxAttempts: 5}), func(context.Context, []byte) error { return c.send(int(calls.Add(1)) - 1) })
			s.Start()
			s.Enqueue(Payload{Samples: 10})
			s.Stop()
			w, d, _ := s.Account()
			if w != c.written || d != c.drop {
				t.Errorf("written %d dropped %d, want %d %d", w, d, c.written, c.drop)
			}
		})
	}
}

// A store that hangs never blocks Enqueue: the queue drops its oldest payloads, and Stop gives up
// after StopTimeout with everything accounted for.
func TestSenderSlowStoreNeverBlocks(t *testing.T) {
	release := make(chan struct{})
	s := New(Config{QueueLimit: 4, StopTimeout: 10 * time.Millisecond, Backoff: time.Millisecond}, func(ctx context.Context, _ []byte) error {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return ctx.Err()
	})
	s.Start()
	for range 20 {
		s.Enqueue(Payload{Samples: 1}) // returns at once although no write completes
	}
	s.Stop()
	close(release)
	w, d, _ := s.Account()
	if w != 0 || d != 20 {
		t.Errorf("written %d dropped %d, want 0 and 20", w, d)
	}
}

// With Latest a newer cumulative payload replaces the waiting ones; written is the highest
// acknowledged running total.
func TestSenderLatest(t *testing.T) {
	gate := make(chan struct{})
	var mu sync.Mutex
	var seen []int64
	s := New(fast(Config{Latest: true}), func(_ context.Context, b []byte) error {
		<-gate
		mu.Lock()
		seen = append(seen, int64(b[0]))
		mu.Unlock()
		return nil
	})
	s.Start()
	s.Enqueue(Payload{Body: []byte{1}, Samples: 1})
	for i := byte(2); i <= 5; i++ {
		s.Enqueue(Payload{Body: []byte{i}, Samples: int64(i)})
	}
	close(gate)
	s.Stop()
	w, _, _ := s.Account()
	if w != 5 {
		t.Errorf("written %d, want 5", w)
	}
	mu.Lock()
	defer mu.Unlock()
	if seen[len(seen)-1] != 5 || len(seen) > 3 {
		t.Errorf("sent %v: want the first payload, maybe one more, and the newest last", seen)
	}
}

func TestHTTPPostClassifiesAnswers(t *testing.T) {
	for code, permanent := range map[int]bool{204: false, 400: true, 401: true, 404: true, 408: false, 429: false, 500: false, 503: false} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("X-Test") != "1" {
				w.WriteHeader(418)
				return
			}
			w.WriteHeader(code)
			w.Write([]byte("why"))
		}))
		err := HTTPPost{Client: srv.Client(), URL: srv.URL, Header: http.Header{"X-Test": {"1"}}}.Send(context.Background(), []byte("x"))
		srv.Close()
		switch {
		case code == 204 && err != nil:
			t.Errorf("204: %v", err)
		case code != 204 && (err == nil || IsPermanent(err) != permanent):
			t.Errorf("%d: err %v, permanent %v want %v", code, err, IsPermanent(err), permanent)
		}
	}
}

// The account names the store's own answers: a send that Stop cut short (context canceled) is
// not the cause of anything, so it never replaces an earlier error, and alone it says that the
// store did not answer in time.
func TestSenderAccountNamesTheCause(t *testing.T) {
	refused := errors.New("dial tcp 127.0.0.1:1: connect: connection refused")
	hang := func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
	cases := []struct {
		name string
		send func(ctx context.Context, n int) error
		want string
	}{
		{"refused, then hangs until Stop gives up", func(ctx context.Context, n int) error {
			if n == 0 {
				return refused
			}
			return hang(ctx)
		}, refused.Error()},
		{"never answers", func(ctx context.Context, _ int) error { return hang(ctx) }, "no answer within the 50ms stop timeout"},
		{"refused, then rejected", func(_ context.Context, n int) error {
			if n == 0 {
				return refused
			}
			return Permanent(errors.New("HTTP 500"))
		}, refused.Error() + "; last: HTTP 500"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var calls atomic.Int64
			second := make(chan struct{})
			cfg := fast(Config{MaxAttempts: 5})
			cfg.StopTimeout = 50 * time.Millisecond
			s := New(cfg, func(ctx context.Context, _ []byte) error {
				n := int(calls.Add(1)) - 1
				if n == 1 {
					close(second)
				}
				return c.send(ctx, n)
			})
			s.Start()
			s.Enqueue(Payload{Samples: 10})
			if c.name != "never answers" {
				<-second // the first answer is in
			}
			s.Stop()
			_, d, err := s.Account()
			if d != 10 || err == nil || err.Error() != c.want {
				t.Fatalf("dropped %d, err %v; want 10 and %q", d, err, c.want)
			}
		})
	}
}
