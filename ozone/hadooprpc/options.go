package hadooprpc

import (
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/user"
	"time"
)

// Client defaults, from Hadoop's core-default.xml (docs/hadoop-rpc.md#pings-and-timeouts).
const (
	// DefaultConnectTimeout is ipc.client.connect.timeout.
	DefaultConnectTimeout = 20 * time.Second
	// DefaultPingInterval is ipc.ping.interval: read silence, with calls
	// outstanding, after which the client sends a ping.
	DefaultPingInterval = 60 * time.Second
	// DefaultIdleTimeout is ipc.client.connection.maxidletime: a connection
	// without outstanding calls is closed after this long.
	DefaultIdleTimeout = 10 * time.Second
)

// DefaultMaxDataLength is ipc.maximum.data.length / ipc.maximum.response.length
// (128 MiB), the largest frame either side accepts.
const DefaultMaxDataLength = 128 << 20

// DefaultProtocolVersion is clientProtocolVersion for every SCM protocol
// (docs/ozone-scm.md#endpoints).
const DefaultProtocolVersion = 1

// Options configures a Client. The zero value is usable: every zero field
// takes its default.
type Options struct {
	// User is the effectiveUser sent in the connection context. Default:
	// DefaultUser(). With Kerberos it must be the full principal
	// (docs/hadoop-rpc.md#connection-setup).
	User string
	// ClientID is the 16-byte client id; default a random UUID. Tests fix it.
	ClientID []byte
	// ProtocolVersion is clientProtocolVersion in every call; default 1.
	ProtocolVersion uint64
	// ConnectTimeout bounds the TCP connect and the handshake; default DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// PingInterval; default DefaultPingInterval.
	PingInterval time.Duration
	// IdleTimeout; default DefaultIdleTimeout.
	IdleTimeout time.Duration
	// MaxResponseLength is the largest accepted response frame; default DefaultMaxDataLength.
	MaxResponseLength int
	// Authenticator, when set, makes the client send the SASL preamble and
	// run it before the connection context. Nil means SIMPLE.
	Authenticator Authenticator
	// Dial opens the TCP connection; default a net.Dialer.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// DefaultUser is the SIMPLE-auth user Hadoop picks: $HADOOP_USER_NAME, else
// the operating-system user.
// Hadoop: org/apache/hadoop/security/UserGroupInformation.java (HADOOP_USER_NAME).
func DefaultUser() string {
	if u := os.Getenv("HADOOP_USER_NAME"); u != "" {
		return u
	}
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "unknown"
}

// withDefaults validates o and fills in defaults.
func (o Options) withDefaults() (Options, error) {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"ConnectTimeout", o.ConnectTimeout}, {"PingInterval", o.PingInterval}, {"IdleTimeout", o.IdleTimeout}} {
		if d.v < 0 {
			return o, fmt.Errorf("hadooprpc: option %s = %v: must be >= 0 (0 = default)", d.name, d.v)
		}
	}
	if o.MaxResponseLength < 0 {
		return o, fmt.Errorf("hadooprpc: option MaxResponseLength = %d: must be >= 0 (0 = default)", o.MaxResponseLength)
	}
	if o.ClientID != nil && len(o.ClientID) != 16 {
		return o, fmt.Errorf("hadooprpc: option ClientID has %d bytes: must be 16", len(o.ClientID))
	}
	if o.User == "" {
		o.User = DefaultUser()
	}
	if o.ClientID == nil {
		o.ClientID = make([]byte, 16)
		if _, err := rand.Read(o.ClientID); err != nil {
			return o, fmt.Errorf("hadooprpc: client id: %w", err)
		}
		o.ClientID[6] = o.ClientID[6]&0x0f | 0x40 // a version-4 UUID, like Java's
		o.ClientID[8] = o.ClientID[8]&0x3f | 0x80
	}
	if o.ProtocolVersion == 0 {
		o.ProtocolVersion = DefaultProtocolVersion
	}
	if o.ConnectTimeout == 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	if o.PingInterval == 0 {
		o.PingInterval = DefaultPingInterval
	}
	if o.IdleTimeout == 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.MaxResponseLength == 0 {
		o.MaxResponseLength = DefaultMaxDataLength
	}
	if o.Dial == nil {
		o.Dial = (&net.Dialer{}).DialContext
	}
	return o, nil
}
