package echo

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dnecho/dnecho/ozone/config"
	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/ozone/ratis"
)

// Session is an open echo workload: the container's pipeline found, the token fetched, a pool of
// DataNode clients and the Spec's request prepared. Echo and Prepare are safe for concurrent use
// by any number of workers. Close it when done.
//
// Long runs outlive pipeline changes (DataNodes restarted on new ports, a pipeline closed and
// replaced): when every call has failed with UNAVAILABLE for Spec.ReresolveAfter, the session
// looks the container up again (at most once per ReresolveAfter, each lookup bounded by
// LookupTimeout, reported through the Observer and counted by Reresolutions) and moves to what
// SCM lists now. Spec.NoReresolve keeps the first pipeline, as the Java tool does.
type Session struct {
	spec Spec
	obs  Observer
	gen  atomic.Pointer[generation]
	def  *Call

	health health
	net    *netRegistry // the clients' connections, for WatchNetwork
	writes atomic.Bool  // a Ratis write was prepared: a new pipeline must pass checkWrite too

	ctx    context.Context // parent of re-resolution lookups; cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	closed   bool
	calls    map[callKey]*Call
	payloads map[int64][]byte
	retired  []*retiredGen
}

// generation is one pipeline the session sends to, with its clients.
type generation struct {
	placement *Placement
	pool      *pool
	pipeline  string // placement.PipelineID(), formatted once for every Result
}

func newGeneration(t *Placement, p *pool) *generation {
	return &generation{placement: t, pool: p, pipeline: t.PipelineID()}
}

// Open validates spec, looks the container up from SCM and prepares the session. While SCM is
// slow to answer, obs hears EventSlowLookup. When ctx ends during the lookup (Ctrl-C) the error
// wraps ErrInterrupted. Errors about the Spec are *FieldError.
func Open(ctx context.Context, spec Spec, obs Observer) (*Session, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	spec = spec.withDefaults()
	t, err := lookup(ctx, spec, obs)
	if err != nil {
		return nil, err
	}
	return newSession(spec, t, obs)
}

// newSession builds a session on a looked-up placement; spec is valid and has its defaults.
func newSession(spec Spec, t *Placement, obs Observer) (*Session, error) {
	conns := newNetRegistry()
	p, err := newGenerationPool(spec, t, conns)
	if err != nil {
		return nil, err
	}
	s := &Session{spec: spec, obs: obs, net: conns, calls: map[callKey]*Call{}, payloads: map[int64][]byte{}}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.gen.Store(newGeneration(t, p))
	if s.def, err = s.Prepare(spec.Request); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// newGenerationPool makes the client pool for a placement; its connections are registered with
// conns.
func newGenerationPool(spec Spec, t *Placement, conns *netRegistry) (*pool, error) {
	o, err := datanodeOptions(spec, t)
	if err != nil {
		return nil, err
	}
	o.Conns = conns
	var ro *ratis.Options
	if spec.Transport == TransportRatis {
		if err := t.Settings.Ratis.Err; err != nil {
			return nil, err
		}
		ro = ratisOptions(spec, t, o)
		ro.Conns = conns
	}
	p, err := newPool(t, o, ro, spec.Clients)
	var te *datanode.TargetError
	if errors.As(err, &te) {
		return nil, &FieldError{Field: FieldTarget, Value: spec.Target, Reason: te.Reason}
	}
	return p, err
}

// datanodeOptions are the DataNode client options the Spec and the configuration imply: the
// read timeout as deadline, host names instead of IPs, the default STANDALONE port, and TLS.
func datanodeOptions(spec Spec, t *Placement) (datanode.Options, error) {
	o := datanode.Options{
		Target:      datanode.Target(spec.Target),
		Streams:     spec.Stream.mode(),
		Transport:   spec.GRPCClient.transport(),
		NoRetry:     spec.NoRetry,
		Timeout:     spec.Deadline,
		UseHostname: t.Settings.UseDatanodeHostname,
		DefaultPort: t.Settings.ContainerIPCPort,
	}
	if o.Timeout == 0 {
		o.Timeout = t.Settings.ReadTimeout
	}
	if t.Settings.GRPCTLS || len(spec.TLSCA) > 0 {
		if len(spec.TLSCA) == 0 && len(t.CAPEM) > 0 {
			o.TLS = &datanode.TLSOptions{CAPEM: t.CAPEM, TestCert: t.Settings.GRPCTLSTestCert}
			return o, nil
		}
		if len(spec.TLSCA) == 0 {
			return o, &FieldError{Field: FieldTLSCA, Reason: "needed: the configuration enables TLS to the DataNodes " +
				"(ozone.security.enabled and hdds.grpc.tls.enabled); give the CA certificate file(s) that signed the DataNodes' certificates"}
		}
		o.TLS = &datanode.TLSOptions{CAFiles: spec.TLSCA, TestCert: t.Settings.GRPCTLSTestCert}
	}
	return o, nil
}

// ratisOptions are the Raft client options the Spec and the configuration imply: Ozone 2.2.0's
// retry policy with the configuration's hdds.ratis.* overrides (none with NoRetry), the Deadline
// (else the configured request timeout) per attempt, host names, and the same TLS as the gRPC
// path without its test-cert override (docs/ozone-ratis.md#tls).
//
// A read that cannot be served is retried (with backoff) for ReresolveAfter and then fails with
// its last failure, so that reads, like every other call, feed the re-resolution rule; Ratis
// alone would retry it forever.
func ratisOptions(spec Spec, t *Placement, o datanode.Options) *ratis.Options {
	rc := t.Settings.Ratis
	ro := &ratis.Options{UseHostname: o.UseHostname, RequestTimeout: spec.Deadline, MaxOutstanding: rc.MaxOutstanding}
	if ro.RequestTimeout == 0 {
		ro.RequestTimeout = rc.RequestTimeout
	}
	if spec.NoRetry {
		ro.Retry = &ratis.RetryPolicy{NoRetry: true}
	} else {
		ro.Retry = retryPolicy(rc)
		if !spec.NoReresolve {
			ro.Retry.ReadTimeout = spec.ReresolveAfter
		}
	}
	if o.TLS != nil {
		tls := *o.TLS
		tls.TestCert = false
		ro.TLS = &tls
	}
	if ro.RequestTimeout == 0 {
		ro.RequestTimeout = ratis.DefaultRequestTimeout
	}
	return ro
}

// retryPolicy is the default Raft retry policy with what the configuration sets.
func retryPolicy(rc config.RatisClient) *ratis.RetryPolicy {
	p := ratis.DefaultRetryPolicy()
	if rc.Multilinear != nil {
		p.Multilinear = make([]ratis.Step, len(rc.Multilinear))
		for i, st := range rc.Multilinear {
			p.Multilinear[i] = ratis.Step{Sleep: st.Sleep, Count: st.Count}
		}
	}
	set := func(dst *time.Duration, v time.Duration) {
		if v > 0 {
			*dst = v
		}
	}
	set(&p.WriteTimeout, rc.WriteTimeout)
	set(&p.WatchTimeout, rc.WatchTimeout)
	set(&p.ExpBase, rc.ExpBaseSleep)
	set(&p.ExpMax, rc.ExpMaxSleep)
	if rc.ExpMaxRetries > 0 {
		p.ExpMaxRetries = rc.ExpMaxRetries
	}
	return p
}

// Prepare validates r and encodes it for the session; equal requests share one Call. Over gRPC
// the request is always read-only, as freon sends it. Over Ratis a write is refused unless SCM
// lists the container OPEN on its pipeline (or Spec.UnsafeWrite): an *UnsafeWriteError.
func (s *Session) Prepare(r Request) (*Call, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	if s.spec.Transport == TransportRatis && !r.ReadOnly && !s.spec.UnsafeWrite {
		if err := checkWrite(s.gen.Load().placement); err != nil {
			return nil, err
		}
		s.writes.Store(true)
	}
	k := callKey{
		payloadReq: r.PayloadReq,
		resp:       responseSize(r.PayloadResp, r.Uncapped),
		sleepMs:    r.SleepMs,
		readOnly:   r.ReadOnly || s.spec.Transport == TransportGRPC,
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, datanode.ErrClosed
	}
	if c, ok := s.calls[k]; ok {
		return c, nil
	}
	if len(s.calls) >= maxCalls { // a script varying sizes on every call must not grow these forever
		clear(s.calls)
		clear(s.payloads)
	}
	c := &Call{s: s, req: datanode.Request{
		ContainerID:     s.spec.ContainerID,
		Payload:         s.payloadLocked(k.payloadReq),
		PayloadSizeResp: k.resp,
		SleepTimeMs:     k.sleepMs,
		ReadOnly:        k.readOnly,
	}}
	g := s.gen.Load()
	cl, err := g.pool.client(0)
	if err == nil {
		_, err = c.prepared(g, 0, cl) // checks the message size now, not on the first call
	}
	if err != nil {
		return nil, err
	}
	s.calls[k] = c
	return c, nil
}

// maxCalls bounds the session's cache of prepared requests (and their payloads).
const maxCalls = 256

// callKey is what makes two requests the same on the wire.
type callKey struct {
	payloadReq int64
	resp       int32
	sleepMs    int32
	readOnly   bool
}

func (s *Session) payloadLocked(n int64) []byte {
	if b, ok := s.payloads[n]; ok {
		return b
	}
	b := payload(n)
	s.payloads[n] = b
	return b
}

// Echo sends the Spec's request once through the client worker uses (see Call.Echo).
func (s *Session) Echo(ctx context.Context, worker uint64) Result { return s.def.Echo(ctx, worker) }

// Mode is how the Spec's request travels (echo.Call.Mode of Session.Echo).
func (s *Session) Mode() Mode { return s.def.Mode() }

// Spec returns the session's Spec, with its defaults filled in.
func (s *Session) Spec() Spec { return s.spec.clone() }

// Placement returns where calls go, as the latest lookup found it.
func (s *Session) Placement() *Placement { return s.gen.Load().placement }

// Members returns the DataNodes of the current pipeline in the order calls try them (over
// Ratis, the one the first client takes for the leader first).
func (s *Session) Members() []datanode.DataNode {
	cl, err := s.gen.Load().pool.client(0)
	if err != nil {
		return nil
	}
	return cl.members()
}

// Reresolutions counts the times the session moved to another pipeline or other addresses.
func (s *Session) Reresolutions() int64 { return s.health.moved.Load() }

// Close stops a lookup in progress and closes every client; calls made afterwards fail with
// datanode.ErrClosed (label CANCELLED). Close is idempotent.
func (s *Session) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	retired := s.retired
	s.retired = nil
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
	for _, r := range retired {
		r.close()
	}
	s.gen.Load().pool.close()
}

// retiredGen is a replaced generation whose clients close once calls in flight on them are over.
type retiredGen struct {
	timer *time.Timer
	gen   *generation
}

func (r *retiredGen) close() {
	r.timer.Stop()
	r.gen.pool.close()
}
