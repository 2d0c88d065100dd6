package config

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Ratis client keys of the Echo's Raft client (docs/ozone-ratis.md#client-retry-defaults;
// apache/ozone: hadoop-hdds/common/src/main/java/org/apache/hadoop/hdds/ratis/conf/RatisClientConfig.java).
// Their TIME values without a unit are milliseconds (@Config's timeUnit default, apache/ozone:
// hadoop-hdds/config/src/main/java/org/apache/hadoop/hdds/conf/Config.java).
const (
	KeyRatisRequestTimeout = "hdds.ratis.raft.client.rpc.request.timeout"
	KeyRatisMaxOutstanding = "hdds.ratis.raft.client.async.outstanding-requests.max"
	KeyRatisWriteTimeout   = "hdds.ratis.client.request.write.timeout"
	KeyRatisWatchTimeout   = "hdds.ratis.client.request.watch.timeout"
	KeyRatisMultilinear    = "hdds.ratis.client.multilinear.random.retry.policy"
	KeyRatisExpBaseSleep   = "hdds.ratis.client.exponential.backoff.base.sleep"
	KeyRatisExpMaxSleep    = "hdds.ratis.client.exponential.backoff.max.sleep"
	KeyRatisExpMaxRetries  = "hdds.ratis.client.exponential.backoff.max.retries"
)

// RatisClient are the Raft client settings a configuration sets. A zero (or nil) field is not
// set: the client keeps Ozone 2.2.0's default for it.
type RatisClient struct {
	RequestTimeout             time.Duration
	MaxOutstanding             int
	WriteTimeout, WatchTimeout time.Duration
	// Multilinear is the multilinear random retry policy: Count retries sleeping about Sleep
	// each, step after step.
	Multilinear               []RetryStep
	ExpBaseSleep, ExpMaxSleep time.Duration
	ExpMaxRetries             int
	// Err reports the keys that could not be read. Only the Ratis path uses these settings, so
	// it is that path's error, not the configuration's (a gRPC run does not fail on them).
	Err error
}

// RetryStep is one (sleep, count) pair of a multilinear retry policy.
type RetryStep struct {
	Sleep time.Duration
	Count int
}

// ratisClient reads the Ratis client keys; a key that is set must hold a positive value.
func (c *Config) ratisClient() RatisClient {
	r := &settingsReader{c: c}
	rc := RatisClient{
		RequestTimeout: r.positiveDuration(KeyRatisRequestTimeout),
		MaxOutstanding: r.positiveInt(KeyRatisMaxOutstanding),
		WriteTimeout:   r.positiveDuration(KeyRatisWriteTimeout),
		WatchTimeout:   r.positiveDuration(KeyRatisWatchTimeout),
		ExpBaseSleep:   r.positiveDuration(KeyRatisExpBaseSleep),
		ExpMaxSleep:    r.positiveDuration(KeyRatisExpMaxSleep),
		ExpMaxRetries:  r.positiveInt(KeyRatisExpMaxRetries),
	}
	if v := r.c.GetTrimmed(KeyRatisMultilinear, ""); v != "" {
		steps, err := ParseMultilinear(v)
		if err != nil {
			r.errs = append(r.errs, fmt.Errorf("config: %s: %w", KeyRatisMultilinear, err))
		}
		rc.Multilinear = steps
	}
	rc.Err = errors.Join(r.errs...)
	return rc
}

// positiveDuration reads a TIME key (milliseconds without a unit); 0 when unset or empty.
func (r *settingsReader) positiveDuration(key string) time.Duration {
	return positive(r, key, "duration", func() (time.Duration, error) { return r.c.GetDuration(key, 0, time.Millisecond) })
}

// positiveInt reads a count; 0 when unset or empty.
func (r *settingsReader) positiveInt(key string) int {
	return positive(r, key, "whole number", func() (int, error) { return r.c.GetInt(key, 0) })
}

// positive reads a set key with get and books an error unless it holds a positive what.
func positive[T int | time.Duration](r *settingsReader, key, what string, get func() (T, error)) T {
	text := r.c.GetTrimmed(key, "")
	if text == "" {
		return 0
	}
	v, err := get()
	if err == nil && v <= 0 {
		err = fmt.Errorf("config: %s: %q: want a positive %s", key, text, what)
	}
	if err != nil {
		r.errs = append(r.errs, err)
		return 0
	}
	return v
}

// ParseMultilinear reads a multilinear random retry policy: comma-separated pairs of a sleep
// (a duration, milliseconds without a unit) and a positive retry count, "5s, 5, 10s, 5" (Ratis:
// RetryPolicies.parseMultipleLinearRandomRetry).
func ParseMultilinear(v string) ([]RetryStep, error) {
	parts := strings.Split(v, ",")
	if len(parts)%2 != 0 {
		return nil, fmt.Errorf("%q: want pairs of a sleep and a count, got %d values", v, len(parts))
	}
	steps := make([]RetryStep, 0, len(parts)/2)
	for i := 0; i < len(parts); i += 2 {
		sleepText, countText := strings.TrimSpace(parts[i]), strings.TrimSpace(parts[i+1])
		sleep, err := ParseHadoopDuration(sleepText, time.Millisecond)
		if err != nil || sleep <= 0 {
			return nil, fmt.Errorf("%q: sleep %q of pair %d is not a positive duration", v, sleepText, i/2+1)
		}
		count, err := strconv.Atoi(countText)
		if err != nil || count <= 0 {
			return nil, fmt.Errorf("%q: count %q of pair %d is not a positive whole number", v, countText, i/2+1)
		}
		steps = append(steps, RetryStep{Sleep: sleep, Count: count})
	}
	return steps, nil
}
