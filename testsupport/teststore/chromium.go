package teststore

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Browser is a headless Debian Chromium driven over the DevTools protocol. It records every
// console error, uncaught exception and error entry of the browser log of the pages it opens.
type Browser struct {
	ctx context.Context

	mu   sync.Mutex
	errs []string
}

// NewBrowser starts Chromium with a profile in a temp dir; it is stopped at the end of the test.
func NewBrowser(t testing.TB) *Browser {
	t.Helper()
	bin := Binary(t, "chromium")
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1300, 1100),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("no-default-browser-check", true),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	b := &Browser{ctx: ctx}
	// The first Run starts the browser; it must not carry a deadline (it would stop the browser).
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[int]("1")); err != nil {
		cancel()
		cancelA()
		t.Fatalf("start chromium: %v", err)
	}
	msgs := chromedp.Console(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException {
				b.mu.Lock()
				b.errs = append(b.errs, m.String())
				b.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done; cancelA() })
	return b
}

// Do runs actions with a deadline.
func (b *Browser) Do(t testing.TB, limit time.Duration, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, limit)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("chromium: %v (page errors: %v)", err, b.Errors())
	}
}

// Eval evaluates a JavaScript expression in the page.
func Eval[T any](t testing.TB, b *Browser, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("chromium: evaluate %s: %v (page errors: %v)", expr, err, b.Errors())
	}
	return v
}

// Screenshot saves the page as name.png in DNECHO_TEST_ARTIFACTS, or in the test's temp dir, and
// returns the path.
func (b *Browser) Screenshot(t testing.TB, name string) string {
	t.Helper()
	dir := os.Getenv("DNECHO_TEST_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("chromium: screenshot: %v", err)
	}
	p := filepath.Join(dir, name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", p)
	return p
}

// Errors returns the page errors seen so far.
func (b *Browser) Errors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.errs...)
}
