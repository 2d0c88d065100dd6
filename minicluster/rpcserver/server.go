// Package rpcserver is the emulator's Hadoop IPC v9 server with the protobuf engine, strict in
// the ways a real Hadoop/Ozone server is (docs/hadoop-rpc.md#minimal-server): the preamble, the
// connection context, out-of-band calls, the lookup of protocol, version and method, ERROR and
// FATAL replies with Java's class names, SASL (the SIMPLE switch, and Kerberos GSSAPI with every
// protection through minicluster/krbacceptor), and a pause that makes it a stopped process. The
// emulated SCM (scmsim) and OM (omsim) run on it; tests use it as a scripted server. It speaks
// ozone/hadooprpc/wire's bytes, as the client does.
package rpcserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/minicluster/krbacceptor"
	"github.com/dnecho/dnecho/ozone/hadooprpc"
)

// Options configures a Server. The zero value is a SIMPLE-auth server
// with Ozone ≥ 2.2 class names and the 128 MiB frame limit.
type Options struct {
	// KerberosOnly emulates a secure server without Kerberos support in the
	// emulator: a SIMPLE client gets FATAL "SIMPLE authentication is not
	// enabled.  Available:[KERBEROS]"; a SASL client gets a NEGOTIATE offering
	// only KERBEROS/GSSAPI, and any GSSAPI attempt fails.
	KerberosOnly bool
	// KerberosPrincipal is the server principal advertised in NEGOTIATE
	// (protocol/serverId@REALM); default the Kerberos acceptor's, else
	// "scm/localhost@EXAMPLE.COM".
	KerberosPrincipal string
	// Kerberos, when set, makes a Kerberos-only server that completes SASL
	// GSSAPI with this acceptor, as a secure Hadoop server does with the JDK's
	// GSSAPI SaslServer (docs/kerberos.md). KerberosOnly is then implied.
	Kerberos *krbacceptor.Acceptor
	// Protection lists the security layers offered (hadoop.rpc.protection);
	// default authentication only.
	Protection []hadooprpc.QOP
	// OfferToken lists TOKEN/DIGEST-MD5 before KERBEROS in NEGOTIATE, with a
	// challenge, as a server with a delegation-token secret manager (the
	// Ozone Manager) does. This server cannot complete it.
	OfferToken bool
	// LegacyIPCPackage names IPC-layer exceptions "org.apache.hadoop.ipc.*"
	// like Ozone ≤ 2.1, instead of the "org.apache.hadoop.ipc_.*" fork.
	LegacyIPCPackage bool
	// MaxDataLength is the largest request frame; a larger one closes the
	// connection. Default hadooprpc.DefaultMaxDataLength.
	MaxDataLength int
}

// CallInfo describes the call a Handler serves.
type CallInfo struct {
	// User is the effectiveUser of the connection context ("" if none was
	// sent); with Kerberos, the authenticated principal ("alice@REALM").
	User string
	// Protocol is the declaringClassProtocolName of the call.
	Protocol   string
	Method     string
	RemoteAddr net.Addr
	CallID     int32
	RetryCount int32
	ClientID   []byte
}

// Handler serves one method. req is the request message's bytes; decode it
// with UnmarshalRequest. Errors become replies: a *hadooprpc.RemoteError keeps its
// class, message, code and fatality; an error wrapping ErrBadRequest is FATAL
// FATAL_DESERIALIZING_REQUEST; anything else is a java.io.IOException.
// Handlers run concurrently and must return when ctx ends (connection closed).
type Handler func(ctx context.Context, call CallInfo, req []byte) (proto.Message, error)

// UnmarshalRequest decodes a request for a Handler, marking failures so the
// server answers FATAL_DESERIALIZING_REQUEST (docs/hadoop-rpc.md#calls-and-lookup-errors).
func UnmarshalRequest(b []byte, m proto.Message) error {
	if err := proto.Unmarshal(b, m); err != nil {
		return fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	return nil
}

// ErrBadRequest marks a request the server cannot decode; handlers wrap it
// (see UnmarshalRequest) to get a FATAL_DESERIALIZING_REQUEST reply.
var ErrBadRequest = errors.New("request does not decode")

// ErrClosed is returned by Serve after Close.
var ErrClosed = errors.New("rpcserver: server closed")

// ipcPackage is the Java package of IPC-layer exception classes: Ozone ≥ 2.2
// runs a fork under "ipc_", older releases Hadoop's "ipc"
// (docs/hadoop-rpc.md#exception-class-names).
const (
	ipcPackage       = "org.apache.hadoop.ipc_."
	legacyIPCPackage = "org.apache.hadoop.ipc."
)

type protocolEntry struct {
	version uint64
	methods map[string]Handler
}

// Server is a Hadoop IPC v9 server with the protobuf engine, strict in the
// ways a real Hadoop/Ozone server is (docs/hadoop-rpc.md#minimal-server).
type Server struct {
	opts    Options
	ipc     string // Java package of IPC-layer exceptions
	offered byte   // the security-layer mask of opts.Protection

	mu        sync.Mutex
	protocols map[string]*protocolEntry
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{}
	closed    bool
	paused    chan struct{} // closed by Resume; nil while running
	accepted  atomic.Int64
	wg        sync.WaitGroup
}

// New returns a server with no protocols registered.
func New(opts Options) (*Server, error) {
	if opts.MaxDataLength < 0 {
		return nil, fmt.Errorf("rpcserver: option MaxDataLength = %d: must be >= 0 (0 = default)", opts.MaxDataLength)
	}
	if opts.MaxDataLength == 0 {
		opts.MaxDataLength = hadooprpc.DefaultMaxDataLength
	}
	if opts.Kerberos != nil {
		opts.KerberosOnly = true
		if opts.KerberosPrincipal == "" {
			opts.KerberosPrincipal = opts.Kerberos.Principal()
		}
	}
	if opts.KerberosPrincipal == "" {
		opts.KerberosPrincipal = "scm/localhost@EXAMPLE.COM"
	}
	if len(opts.Protection) == 0 {
		opts.Protection = []hadooprpc.QOP{hadooprpc.QOPAuthentication}
	}
	s := &Server{opts: opts, ipc: ipcPackage, protocols: map[string]*protocolEntry{},
		listeners: map[net.Listener]struct{}{}, conns: map[*conn]struct{}{}}
	for _, q := range opts.Protection {
		s.offered |= byte(q)
	}
	if opts.LegacyIPCPackage {
		s.ipc = legacyIPCPackage
	}
	return s, nil
}

// Register serves method of protocol at version. All methods of a protocol
// share one version; registering another version replaces the protocol.
func (s *Server) Register(protocol string, version uint64, method string, h Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.protocols[protocol]
	if p == nil || p.version != version {
		p = &protocolEntry{version: version, methods: map[string]Handler{}}
		s.protocols[protocol] = p
	}
	p.methods[method] = h
}

// lookup resolves a call as the Java server does: protocol, then version,
// then method (docs/hadoop-rpc.md#calls-and-lookup-errors).
func (s *Server) lookup(protocol string, version uint64, method string) (Handler, *hadooprpc.RemoteError) {
	s.mu.Lock()
	p := s.protocols[protocol]
	var h Handler
	if p != nil {
		h = p.methods[method]
	}
	s.mu.Unlock()
	switch {
	case p == nil:
		return nil, &hadooprpc.RemoteError{Class: s.ipc + "RpcNoSuchProtocolException", Detail: hadooprpc.ErrorNoSuchProtocol,
			Message: "Unknown protocol: " + protocol}
	case p.version != version:
		return nil, &hadooprpc.RemoteError{Class: s.ipc + "RPC$VersionMismatch", Detail: hadooprpc.ErrorRPCServer,
			Message: fmt.Sprintf("Protocol %s version mismatch. (client = %d, server = %d)", protocol, version, p.version)}
	case h == nil:
		return nil, &hadooprpc.RemoteError{Class: s.ipc + "RpcNoSuchMethodException", Detail: hadooprpc.ErrorNoSuchMethod,
			Message: fmt.Sprintf("Unknown method %s called on %s protocol.", method, protocol)}
	}
	return h, nil
}

// Serve accepts connections on l until Close. It always returns an error:
// ErrClosed after Close.
func (s *Server) Serve(l net.Listener) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		l.Close()
		return ErrClosed
	}
	s.listeners[l] = struct{}{}
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()
	for {
		nc, err := l.Accept()
		if err != nil {
			s.mu.Lock()
			delete(s.listeners, l)
			closed := s.closed
			s.mu.Unlock()
			if closed {
				return ErrClosed
			}
			return fmt.Errorf("rpcserver: accept on %s: %w", l.Addr(), err)
		}
		s.accepted.Add(1)
		if !s.startConn(nc) {
			return ErrClosed
		}
	}
}

func (s *Server) startConn(nc net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		nc.Close()
		return false
	}
	sc := newConn(s, nc)
	s.conns[sc] = struct{}{}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		sc.serve()
		s.mu.Lock()
		delete(s.conns, sc)
		s.mu.Unlock()
	}()
	return true
}

// Accepted counts the connections the server has accepted.
func (s *Server) Accepted() int64 { return s.accepted.Load() }

// Pause makes the server behave as a stopped process (SIGSTOP) until Resume: connections are
// still accepted, as the kernel of a stopped process completes TCP handshakes and takes the
// bytes sent, but nothing is read, handled or answered, and replies already under way are held.
func (s *Server) Pause() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.paused == nil {
		s.paused = make(chan struct{})
	}
}

// Resume lets a paused server read, handle and answer again, starting with what waited.
func (s *Server) Resume() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.paused != nil {
		close(s.paused)
		s.paused = nil
	}
}

// awake waits while the server is paused; false when ctx ends first.
func (s *Server) awake(ctx context.Context) bool {
	s.mu.Lock()
	paused := s.paused
	s.mu.Unlock()
	if paused == nil {
		return true
	}
	select {
	case <-paused:
		return true
	case <-ctx.Done():
		return false
	}
}

// Close stops the listeners, closes every connection (cancelling running
// handlers) and waits for all server goroutines to exit.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	for l := range s.listeners {
		l.Close()
	}
	for sc := range s.conns {
		sc.shutdown()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return nil
}
