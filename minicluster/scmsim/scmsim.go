// Package scmsim emulates an Ozone SCM's container-location service
// (StorageContainerLocationProtocol over Hadoop RPC) for tests, demos and
// `dnecho cluster`: containers, pipelines, container tokens, the admin check
// and SCM HA leadership. It runs on the strict rpcserver, so it
// refuses what a real SCM refuses. It listens on 127.0.0.1 only.
package scmsim

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dnecho/dnecho/minicluster/rpcserver"
	"github.com/dnecho/dnecho/ozone/token"
	"github.com/dnecho/dnecho/proto/hddspb"
)

// Protocol is the protocol name the emulator serves (version 1, method
// submitRequest). Ozone: StorageContainerLocationProtocolPB.
const Protocol = "org.apache.hadoop.hdds.scm.protocol.StorageContainerLocationProtocol"

// DefaultTokenExpiry is hdds.block.token.expiry.time, the container-token lifetime.
const DefaultTokenExpiry = 24 * time.Hour

// Config configures an emulated SCM. The zero value is an insecure SCM.
type Config struct {
	// Admins, when non-nil, turns the admin check on (as ozone.security.enabled
	// with ozone.administrators): GetContainer and GetContainerToken then
	// refuse users not listed with AccessControlException.
	Admins []string
	// TokensEnabled is hdds.container.token.enabled: GetContainerToken signs
	// real tokens; otherwise it returns the empty token.
	TokensEnabled bool
	// SecretKey signs container tokens; a zero key is replaced by a random one.
	SecretKey token.SecretKey
	// TokenExpiry is the token lifetime; default DefaultTokenExpiry.
	TokenExpiry time.Duration
	// Hostname names the SCM in ServerNotLeaderException messages; default "localhost".
	Hostname string
	// RPC configures the Hadoop RPC server (Kerberos-only emulation, class
	// names of Ozone ≤ 2.1, frame limit).
	RPC rpcserver.Options
}

func (c Config) withDefaults() (Config, error) {
	if c.TokenExpiry < 0 {
		return c, fmt.Errorf("scmsim: option TokenExpiry = %v: must be >= 0 (0 = %v)", c.TokenExpiry, DefaultTokenExpiry)
	}
	if c.TokenExpiry == 0 {
		c.TokenExpiry = DefaultTokenExpiry
	}
	if c.Hostname == "" {
		c.Hostname = "localhost"
	}
	if len(c.SecretKey.Key) == 0 {
		k, err := token.NewSecretKey(time.Time{})
		if err != nil {
			return c, fmt.Errorf("scmsim: %w", err)
		}
		c.SecretKey = k
	}
	return c, nil
}

// SCM is one emulated SCM node.
type SCM struct {
	cfg      Config
	st       *state
	index    int // position in the HA group
	peers    *HA // nil for a standalone SCM, which always leads
	requests atomic.Int64

	mu     sync.Mutex
	addr   string
	srv    *rpcserver.Server
	done   chan struct{}
	paused bool
}

// New returns a standalone SCM; call Start to serve.
func New(cfg Config) (*SCM, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &SCM{cfg: c, st: newState(c.SecretKey)}, nil
}

// Start listens on addr ("127.0.0.1:port"; "" or port 0 picks a free port)
// and serves in the background until Stop or Close.
func (s *SCM) Start(addr string) error {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("scmsim: start: %w", err)
	}
	if host != "127.0.0.1" {
		return fmt.Errorf("scmsim: start on %s: the emulator listens on 127.0.0.1 only", addr)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv != nil {
		return fmt.Errorf("scmsim: start: already serving on %s", s.addr)
	}
	srv, err := rpcserver.New(s.cfg.RPC)
	if err != nil {
		return fmt.Errorf("scmsim: %w", err)
	}
	srv.Register(Protocol, 1, "submitRequest", s.submitRequest)
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("scmsim: start: %w", err)
	}
	if s.paused {
		srv.Pause()
	}
	s.addr, s.srv, s.done = l.Addr().String(), srv, make(chan struct{})
	go func(done chan struct{}) {
		defer close(done)
		srv.Serve(l)
	}(s.done)
	return nil
}

// Addr returns the address served (kept after Stop, so Restart reuses it).
func (s *SCM) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr
}

// Stop stops serving and drops every connection, like a crashed SCM.
func (s *SCM) Stop() error {
	s.mu.Lock()
	srv, done := s.srv, s.done
	s.srv = nil
	s.mu.Unlock()
	if srv == nil {
		return nil
	}
	srv.Close()
	<-done
	return nil
}

// Pause makes the SCM hang as a SIGSTOPped one does: it keeps accepting connections (the
// kernel does that for a stopped process) and reads, handles and answers nothing until Resume.
// It lasts across Stop and Restart.
func (s *SCM) Pause() { s.setPaused(true) }

// Resume lets a paused SCM answer again, starting with what waited (as after SIGCONT).
func (s *SCM) Resume() { s.setPaused(false) }

func (s *SCM) setPaused(p bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.paused = p
	switch {
	case s.srv == nil:
	case p:
		s.srv.Pause()
	default:
		s.srv.Resume()
	}
}

// Paused reports whether Pause is in effect.
func (s *SCM) Paused() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.paused
}

// Connections counts the connections the SCM has accepted since it started serving, paused
// or not.
func (s *SCM) Connections() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv == nil {
		return 0
	}
	return s.srv.Accepted()
}

// Restart serves again on the address of the previous Start.
func (s *SCM) Restart() error {
	addr := s.Addr()
	if addr == "" {
		return errors.New("scmsim: restart: never started")
	}
	return s.Start(addr)
}

// Close stops the SCM for good.
func (s *SCM) Close() error { return s.Stop() }

// AddContainer adds or replaces a container.
func (s *SCM) AddContainer(c Container) error { return s.st.addContainer(c) }

// AddPipeline adds or replaces (by id) a pipeline; ListPipelines returns
// pipelines in the order they were first added.
func (s *SCM) AddPipeline(p *hddspb.Pipeline) error { return s.st.addPipeline(p) }

// RemovePipeline deletes a pipeline, leaving its containers without one.
func (s *SCM) RemovePipeline(id string) error { return s.st.removePipeline(id) }

// SecretKey is the key container tokens are signed with, for DataNode emulators.
func (s *SCM) SecretKey() token.SecretKey { return s.st.key }

// Requests counts the container-location requests this node has received.
func (s *SCM) Requests() int64 { return s.requests.Load() }
