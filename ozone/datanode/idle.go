package datanode

import "sync"

// idleStreams holds a DataNode's idle long-lived streams, of either transport; the last one put
// back is the first taken.
type idleStreams[S any] struct {
	mu     sync.Mutex
	idle   []S
	closed bool
}

// take removes and returns the most recently put stream, if any.
func (l *idleStreams[S]) take() (s S, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(l.idle)
	if n == 0 {
		return s, false
	}
	s = l.idle[n-1]
	var zero S
	l.idle[n-1] = zero
	l.idle = l.idle[:n-1]
	return s, true
}

// keep puts s back unless the list is closed or holds max streams; it reports whether it did.
func (l *idleStreams[S]) keep(s S, max int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || len(l.idle) >= max {
		return false
	}
	l.idle = append(l.idle, s)
	return true
}

// close empties the list for good and returns what it held.
func (l *idleStreams[S]) close() []S {
	l.mu.Lock()
	defer l.mu.Unlock()
	idle := l.idle
	l.idle, l.closed = nil, true
	return idle
}
