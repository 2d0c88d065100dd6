package raftsim

import (
	"sync"
	"time"

	"github.com/dnecho/dnecho/proto/ratispb"
)

// cacheKey identifies a write: Ratis de-duplicates by (client id, call id).
type cacheKey struct {
	client [16]byte
	call   uint64
}

// cacheEntry is one write's reply, pending until the write is applied on the replica.
type cacheEntry struct {
	created time.Time
	done    chan struct{}
	reply   *ratispb.RaftClientReplyProto // set before done is closed
	subs    []func()                      // called once reply is set
}

// retryCache is one replica's retry cache (Ratis: ratis-server/src/main/java/org/apache/ratis/
// server/impl/RetryCacheImpl.java): filled on every replica when it applies a write, consulted
// by the leader for writes only, entries evicted by a later request's repliedCallIds or after
// the expiry.
type retryCache struct {
	expiry  time.Duration
	mu      sync.Mutex
	m       map[cacheKey]*cacheEntry
	sweepAt int // size at which getOrCreate next drops expired entries
}

// minSweep is the smallest size at which a cache looks for expired entries. Sweeps happen when
// the cache has doubled since the last one, so they cost O(1) per entry over time (followers'
// caches are never evicted by repliedCallIds and grow to every write of the last 10 minutes).
const minSweep = 4096

func newRetryCache(expiry time.Duration) *retryCache {
	return &retryCache{expiry: expiry, m: map[cacheKey]*cacheEntry{}, sweepAt: minSweep}
}

// get returns the live entry for k, or nil.
func (c *retryCache) get(k cacheKey) *cacheEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.m[k]
	if e != nil && time.Since(e.created) > c.expiry {
		delete(c.m, k)
		return nil
	}
	return e
}

// getOrCreate returns the live entry for k, creating a pending one when there is none.
func (c *retryCache) getOrCreate(k cacheKey) *cacheEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.m[k]; e != nil && time.Since(e.created) <= c.expiry {
		return e
	}
	if len(c.m) >= c.sweepAt {
		for key, e := range c.m {
			if time.Since(e.created) > c.expiry {
				delete(c.m, key)
			}
		}
		c.sweepAt = max(minSweep, 2*len(c.m))
	}
	e := &cacheEntry{created: time.Now(), done: make(chan struct{})}
	c.m[k] = e
	return e
}

// evict drops the entries of calls the client has had replies to.
func (c *retryCache) evict(client [16]byte, calls []uint64) {
	if len(calls) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range calls {
		delete(c.m, cacheKey{client: client, call: id})
	}
}

// len counts the entries, for tests.
func (c *retryCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// complete sets e's reply (once) and tells the subscribers.
func (c *retryCache) complete(e *cacheEntry, reply *ratispb.RaftClientReplyProto) {
	c.mu.Lock()
	if e.reply != nil {
		c.mu.Unlock()
		return
	}
	e.reply = reply
	close(e.done)
	subs := e.subs
	e.subs = nil
	c.mu.Unlock()
	for _, f := range subs {
		f()
	}
}

// subscribe calls f once e has its reply (at once when it has).
func (c *retryCache) subscribe(e *cacheEntry, f func()) {
	c.mu.Lock()
	if e.reply == nil {
		e.subs = append(e.subs, f)
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	f()
}

// completed reports whether e has a reply.
func (c *retryCache) completed(e *cacheEntry) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return e.reply != nil
}
