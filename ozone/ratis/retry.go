package ratis

import (
	"time"
)

// RetryPolicy is Ozone's request-type dependent retry policy (Ozone: hadoop-hdds/common/src/main/
// java/org/apache/hadoop/hdds/ratis/retrypolicy/RequestTypeDependentRetryPolicyCreator.java;
// Ratis: ratis-client/.../retry/RequestTypeDependentRetryPolicy.java). It is consulted when a
// request fails with NotLeader, LeaderNotReady, a broken stream or a timeout; Raft exceptions in
// replies (a rejected write) are never retried.
//
// Writes: ResourceUnavailable and timeouts back off exponentially, everything else follows the
// multilinear list, and no write is retried once older than WriteTimeout. Watches likewise
// within WatchTimeout, but a timeout is final. Reads have no Ozone policy: Ratis retries them
// forever without sleeping, which against a pipeline that cannot be reached is a busy loop that
// never ends (one read spun 1.3 cores until interrupted). dnecho's default therefore backs reads
// off (ReadBackoff*) and gives up on one older than ReadTimeout, so that the call ends with its
// last failure and the echo session can look the container up again; a policy with those fields
// zero behaves as Ratis does. A NotLeader that names the leader is retried at once whatever the
// sleep. Counts are per exception class (the n-th NotLeader of this request).
type RetryPolicy struct {
	// Multilinear is hdds.ratis.client.multilinear.random.retry.policy: Count attempts sleeping
	// Sleep each, then the next step; each sleep is randomised to [0.5, 1.5) of its value.
	Multilinear []Step
	// ExpBase, ExpMax, ExpMaxRetries: hdds.ratis.client.exponential.backoff.* — the n-th
	// occurrence sleeps min(ExpBase·2ⁿ, ExpMax), randomised, while n < ExpMaxRetries.
	ExpBase, ExpMax time.Duration
	ExpMaxRetries   int
	// WriteTimeout and WatchTimeout are hdds.ratis.client.request.{write,watch}.timeout.
	WriteTimeout, WatchTimeout time.Duration
	// ReadBackoffBase and ReadBackoffMax (not Java settings): the n-th failure of a read sleeps
	// min(base·2ⁿ⁻¹, max), randomised; zero: no sleep, as in Ratis.
	ReadBackoffBase, ReadBackoffMax time.Duration
	// ReadTimeout (not a Java setting): no read is retried once older; zero: retried forever.
	ReadTimeout time.Duration
	// NoRetry fails a request at its first failure (not a Java setting).
	NoRetry bool
}

// Step is one (sleep, count) pair of a multilinear policy.
type Step struct {
	Sleep time.Duration
	Count int
}

// DefaultRetryPolicy is Ozone 2.2.0's (master has shorter budgets; docs/ozone-ratis.md#client-retry-defaults),
// with dnecho's bound on reads: backoff from 10 ms to 1 s, and the write timeout as their budget.
func DefaultRetryPolicy() *RetryPolicy {
	return &RetryPolicy{
		Multilinear: []Step{{5 * time.Second, 5}, {10 * time.Second, 5}, {15 * time.Second, 5},
			{20 * time.Second, 5}, {25 * time.Second, 5}, {60 * time.Second, 10}},
		ExpBase: 4 * time.Second, ExpMax: 40 * time.Second, ExpMaxRetries: 1<<31 - 1,
		WriteTimeout: 5 * time.Minute, WatchTimeout: 3 * time.Minute,
		ReadBackoffBase: 10 * time.Millisecond, ReadBackoffMax: time.Second, ReadTimeout: 5 * time.Minute,
	}
}

// failure is the class of a failed attempt, as the policy tells them apart.
type failure int

const (
	failNotLeader failure = iota // NotLeaderException
	failNotReady                 // LeaderNotReadyException
	failResource                 // ResourceUnavailableException (a stream error)
	failTimeout                  // no reply within RequestTimeout
	failIO                       // a broken stream, a stream ended without replies, a stepping-down leader
	failFinal                    // GroupMismatchException and anything that is not an I/O failure
	numFailures
)

// reqType is a request's Raft type.
type reqType int

const (
	typeRead reqType = iota
	typeWrite
	typeWatch
)

// decide says whether to retry a request after its n-th failure of class f (n ≥ 1), age after
// it was first submitted, and how long to sleep first; rnd is a uniform number in [0, 1).
func (p *RetryPolicy) decide(t reqType, f failure, n int, age time.Duration, rnd float64) (time.Duration, bool) {
	if p.NoRetry || f == failFinal {
		return 0, false
	}
	switch t {
	case typeRead:
		if p.ReadTimeout > 0 && age > p.ReadTimeout {
			return 0, false
		}
		return p.readBackoff(n, rnd), true
	case typeWrite:
		if age > p.WriteTimeout {
			return 0, false
		}
	case typeWatch:
		if age > p.WatchTimeout || f == failTimeout {
			return 0, false
		}
	}
	if f == failResource || f == failTimeout {
		return p.exponential(n, rnd)
	}
	return p.multilinear(n, rnd)
}

// readBackoff is the sleep before retrying a read after its n-th failure of one class.
func (p *RetryPolicy) readBackoff(n int, rnd float64) time.Duration {
	if p.ReadBackoffBase <= 0 {
		return 0
	}
	return randomise(doubled(p.ReadBackoffBase, p.ReadBackoffMax, n-1), rnd)
}

func (p *RetryPolicy) exponential(n int, rnd float64) (time.Duration, bool) {
	if n >= p.ExpMaxRetries {
		return 0, false
	}
	return randomise(doubled(p.ExpBase, p.ExpMax, n), rnd), true
}

// doubled is min(base·2ⁿ, max), without overflowing.
func doubled(base, max time.Duration, n int) time.Duration {
	if n < 62 && base<<n > 0 && base<<n < max {
		return base << n
	}
	return max
}

func (p *RetryPolicy) multilinear(n int, rnd float64) (time.Duration, bool) {
	for _, s := range p.Multilinear {
		if n <= s.Count {
			return randomise(s.Sleep, rnd), true
		}
		n -= s.Count
	}
	return 0, false
}

// randomise scales d by a factor in [0.5, 1.5), as Ratis's random retry policies do.
func randomise(d time.Duration, rnd float64) time.Duration {
	return time.Duration(float64(d) * (0.5 + rnd))
}
