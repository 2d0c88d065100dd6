// Package wiretap is a TCP relay for tests that records every byte passing between a client and
// a server, to check what travels in clear.
package wiretap

import (
	"bytes"
	"net"
	"sync"
	"testing"
)

// Relay forwards connections from Addr to a target and records both directions.
type Relay struct {
	l    net.Listener
	mu   sync.Mutex
	seen bytes.Buffer
	wg   sync.WaitGroup
}

// Start listens on a loopback port and forwards every connection to target; it stops when the
// test ends.
func Start(t testing.TB, target string) *Relay {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &Relay{l: l}
	r.wg.Add(1)
	go r.accept(target)
	t.Cleanup(func() { l.Close(); r.wg.Wait() })
	return r
}

// Addr is the relay's address, to give the client instead of the server's.
func (r *Relay) Addr() string { return r.l.Addr().String() }

func (r *Relay) accept(target string) {
	defer r.wg.Done()
	for {
		in, err := r.l.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", target)
		if err != nil {
			in.Close()
			continue
		}
		r.wg.Add(2)
		go r.pipe(in, out)
		go r.pipe(out, in)
	}
}

func (r *Relay) pipe(from, to net.Conn) {
	defer r.wg.Done()
	defer to.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := from.Read(buf)
		r.mu.Lock()
		r.seen.Write(buf[:n])
		r.mu.Unlock()
		if n > 0 {
			if _, werr := to.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// Saw reports whether s appeared in clear in the recorded bytes.
func (r *Relay) Saw(s string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return bytes.Contains(r.seen.Bytes(), []byte(s))
}
