package hadooprpc

import (
	"context"
	"errors"
	"fmt"
	"net"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/ozone/hadooprpc/wire"
	"github.com/dnecho/dnecho/proto/hadooppb"
)

// Authenticator runs the SASL exchange of a connection whose preamble
// announced SASL (docs/hadoop-rpc.md, SASL). Kerberos (GSSAPI) is one implementation.
type Authenticator interface {
	// Authenticate exchanges SASL messages through s until the server sends
	// SUCCESS. It returns the connection to use afterwards: s.Conn() when no
	// security layer was negotiated (QOP "auth"), or a net.Conn that wraps and
	// unwraps traffic for integrity/privacy (docs/kerberos.md); such a wrapper must
	// pass deadlines through to s.Conn(). ctx bounds the whole exchange.
	Authenticate(ctx context.Context, s *SASLConn) (net.Conn, error)
}

// SASLConn sends and receives SASL messages (callId -33) during negotiation.
type SASLConn struct {
	nc     net.Conn
	addr   string
	maxLen int
	first  bool // at least one reply has been read
}

// Conn returns the underlying connection.
func (s *SASLConn) Conn() net.Conn { return s.nc }

// Addr returns the server address as dialled ("host:port"), for the server-principal check.
func (s *SASLConn) Addr() string { return s.addr }

// MaxResponseLength is the largest response frame the client accepts.
func (s *SASLConn) MaxResponseLength() int { return s.maxLen }

// Send writes one SASL message with the header Java uses: callId -33, empty
// clientId, retryCount -1 (docs/hadoop-rpc.md#call-ids).
func (s *SASLConn) Send(m *hadooppb.RpcSaslProto) error {
	frame, err := wire.AppendFrame(nil, wire.RequestHeader(wire.CallIDSASL, []byte{}, -1), m)
	if err != nil {
		return err
	}
	_, err = s.nc.Write(frame)
	return err
}

// Recv reads one SASL reply. An ERROR or FATAL reply is a *RemoteError; a
// reply for another callId fails as in Java ("Non-SASL response during negotiation").
func (s *SASLConn) Recv() (*hadooppb.RpcSaslProto, error) {
	r, err := readResponse(s.nc, s.maxLen, !s.first)
	s.first = true
	if err != nil {
		return nil, err
	}
	h := r.header
	if h.GetStatus() != hadooppb.RpcResponseHeaderProto_SUCCESS {
		return nil, remoteError(h)
	}
	if int32(h.GetCallId()) != wire.CallIDSASL {
		return nil, fmt.Errorf("%w: Non-SASL response during negotiation (callId %d)", ErrBadResponse, int32(h.GetCallId()))
	}
	m := new(hadooppb.RpcSaslProto)
	if err := proto.Unmarshal(r.body, m); err != nil {
		return nil, fmt.Errorf("%w: SASL message: %v", ErrBadResponse, err)
	}
	return m, nil
}

// SimpleFallback is the Authenticator of a client that announces SASL but
// only accepts a SIMPLE-only server's "switch to simple" answer
// (docs/hadoop-rpc.md#simple-and-the-fallback): it sends NEGOTIATE and
// expects SUCCESS. It exists to exercise the SASL path without Kerberos.
type SimpleFallback struct{}

// ErrSASLRequired is returned by SimpleFallback when the server insists on a
// real SASL mechanism.
var ErrSASLRequired = errors.New("server requires SASL authentication")

// Authenticate implements Authenticator.
func (SimpleFallback) Authenticate(_ context.Context, s *SASLConn) (net.Conn, error) {
	if err := s.Send(&hadooppb.RpcSaslProto{State: hadooppb.RpcSaslProto_NEGOTIATE.Enum()}); err != nil {
		return nil, err
	}
	m, err := s.Recv()
	if err != nil {
		return nil, err
	}
	if m.GetState() != hadooppb.RpcSaslProto_SUCCESS {
		var offered []string
		for _, a := range m.GetAuths() {
			offered = append(offered, a.GetMethod()+"/"+a.GetMechanism())
		}
		return nil, fmt.Errorf("%w: server answered %v offering %v", ErrSASLRequired, m.GetState(), offered)
	}
	return s.nc, nil
}
