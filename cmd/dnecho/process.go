package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"golang.org/x/term"
)

// environ returns the process environment as a map.
func environ() map[string]string {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			env[k] = v
		}
	}
	return env
}

// isTerminal reports whether w is a terminal (a colour, a progress bar or a prompt is for one).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// termWidth is the width of the terminal w, or 0 when w is none or it is not known.
func termWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok {
		return 0
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0
	}
	return width
}

// streams are the process's standard streams, injectable for tests.
type streams struct {
	in       io.Reader
	out, err io.Writer
}

// signals turns the first SIGINT, SIGTERM or SIGHUP (a closed terminal or ssh session) into a
// graceful stop (soft is cancelled) and the second into an immediate one (hard is cancelled).
type signals struct {
	soft, hard context.Context
	stop       func()
}

func watchSignals() *signals {
	soft, cancelSoft := context.WithCancel(context.Background())
	hard, cancelHard := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		n := 0
		for {
			select {
			case <-ch:
				n++
				if n == 1 {
					fmt.Fprintln(os.Stderr, "\nstopping gracefully (Ctrl-C again to stop now)...")
					cancelSoft()
				} else {
					cancelHard()
					return
				}
			case <-done:
				return
			}
		}
	}()
	return &signals{soft: soft, hard: hard, stop: func() {
		signal.Stop(ch)
		close(done)
		cancelSoft()
		cancelHard()
	}}
}
