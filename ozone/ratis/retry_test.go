package ratis

import (
	"testing"
	"time"
)

func TestRetryPolicy(t *testing.T) {
	p := DefaultRetryPolicy()
	const mid = 0.5 // randomise → exactly the listed sleep
	tests := []struct {
		name  string
		t     reqType
		f     failure
		n     int
		age   time.Duration
		sleep time.Duration
		retry bool
	}{
		{"read, first failure", typeRead, failIO, 1, 0, 10 * time.Millisecond, true},
		{"read, 4th LeaderNotReady", typeRead, failNotReady, 4, 0, 80 * time.Millisecond, true},
		{"read, 1000th failure capped", typeRead, failIO, 1000, 0, time.Second, true},
		{"read older than 5m", typeRead, failIO, 1, 5*time.Minute + 1, 0, false},
		{"read gives up on GroupMismatch", typeRead, failFinal, 1, 0, 0, false},
		{"write, first NotLeader", typeWrite, failNotLeader, 1, 0, 5 * time.Second, true},
		{"write, 6th LeaderNotReady", typeWrite, failNotReady, 6, 0, 10 * time.Second, true},
		{"write, 35th I/O failure", typeWrite, failIO, 35, 0, 60 * time.Second, true},
		{"write, 36th I/O failure", typeWrite, failIO, 36, 0, 0, false},
		{"write older than 5m", typeWrite, failNotLeader, 1, 5*time.Minute + 1, 0, false},
		{"write, ResourceUnavailable", typeWrite, failResource, 1, 0, 8 * time.Second, true},
		{"write, 4th timeout capped", typeWrite, failTimeout, 4, 0, 40 * time.Second, true},
		{"watch timeout is final", typeWatch, failTimeout, 1, 0, 0, false},
		{"watch older than 3m", typeWatch, failIO, 1, 3*time.Minute + 1, 0, false},
		{"write, StateMachine is final", typeWrite, failFinal, 1, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sleep, retry := p.decide(tt.t, tt.f, tt.n, tt.age, mid)
			if sleep != tt.sleep || retry != tt.retry {
				t.Fatalf("decide = %s, %v; want %s, %v", sleep, retry, tt.sleep, tt.retry)
			}
		})
	}
	if s, _ := p.decide(typeWrite, failNotLeader, 1, 0, 0); s != 2500*time.Millisecond {
		t.Errorf("lowest random sleep %s", s)
	}
	if s, ok := (&RetryPolicy{}).decide(typeRead, failNotReady, 1000, time.Hour, mid); !ok || s != 0 {
		t.Errorf("without read settings (Ratis): %s %v, want retried forever without sleeping", s, ok)
	}
	if _, ok := (&RetryPolicy{NoRetry: true}).decide(typeRead, failNotLeader, 1, 0, 0); ok {
		t.Error("NoRetry retried")
	}
	master := &RetryPolicy{ExpBase: time.Second, ExpMax: 5 * time.Second, ExpMaxRetries: 2, WriteTimeout: time.Minute}
	if s, ok := master.decide(typeWrite, failResource, 1, 0, mid); !ok || s != 2*time.Second {
		t.Errorf("master exponential, n=1: %s %v", s, ok)
	}
	if _, ok := master.decide(typeWrite, failResource, 2, 0, mid); ok {
		t.Error("master exponential retried twice")
	}
}
