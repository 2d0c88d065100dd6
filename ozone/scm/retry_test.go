package scm

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/dnecho/dnecho/ozone/hadooprpc"
)

func remote(class string) error {
	return fmt.Errorf("wrapped: %w", &hadooprpc.RemoteError{Class: class, Message: "x"})
}

// docs/ozone-scm.md#retry-decision, in order.
func TestDecide(t *testing.T) {
	tests := []struct {
		err  error
		want action
	}{
		{remote("org.apache.hadoop.security.AccessControlException"), actFail},
		{remote("org.apache.hadoop.ipc.RpcNoSuchMethodException"), actFail},
		{remote("org.apache.hadoop.ipc_.RpcNoSuchMethodException"), actFail},
		{remote("org.apache.hadoop.ipc_.RpcNoSuchProtocolException"), actFail},
		{remote("org.apache.hadoop.ipc.RPC$VersionMismatch"), actFail},
		{&hadooprpc.ConnError{Op: "read", Err: fmt.Errorf("%w: RPC response exceeds maximum data length", hadooprpc.ErrBadResponse)}, actFail},
		{hadooprpc.ErrClosed, actFail},
		{remote("org.apache.hadoop.hdds.scm.ha.RetriableWithNoFailoverException"), actRetry},
		{remote("org.apache.hadoop.hdds.scm.exceptions.SCMException"), actFail},
		{remote("org.apache.hadoop.hdds.scm.container.ContainerNotFoundException"), actFail},
		{remote("org.apache.hadoop.hdds.scm.container.ContainerReplicaNotFoundException"), actFail},
		{remote("org.apache.hadoop.hdds.scm.container.common.helpers.ContainerException"), actFail},
		{remote("org.apache.hadoop.hdds.scm.pipeline.PipelineNotFoundException"), actFail},
		{remote("org.apache.hadoop.hdds.scm.pipeline.DuplicatedPipelineIdException"), actFail},
		{remote("org.apache.hadoop.hdds.scm.pipeline.InvalidPipelineStateException"), actFail},
		{remote("org.apache.hadoop.hdds.scm.ha.NonRetriableException"), actFail},
		{remote("org.apache.hadoop.hdds.ratis.ServerNotLeaderException"), actFailover},
		{remote("org.apache.hadoop.hdds.scm.ha.RetriableWithFailOverException"), actFailover},
		{remote("org.apache.hadoop.ipc_.StandbyException"), actFailover},
		{remote("com.example.Unknown"), actFailover},
		{&hadooprpc.ConnError{Op: "read", Err: io.EOF}, actFailover},
		{&hadooprpc.ConnError{Op: "dial", Err: errors.New("connection refused")}, actFailover},
	}
	for _, tt := range tests {
		if got := decide(tt.err); got != tt.want {
			t.Errorf("decide(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}

func TestSuggestedLeader(t *testing.T) {
	notLeader := "org.apache.hadoop.hdds.ratis.ServerNotLeaderException"
	tests := []struct {
		class, msg string
		host       string
		port       int
		ok         bool
	}{
		{notLeader, "SCM Server:scm1(scm1.example.com) is not the leader. Suggested leader is Server:scm2.example.com:9860.", "scm2.example.com", 9860, true},
		{notLeader, "SCM Server:scm1(h) is not the leader. Suggested leader is Server:scm2:9860.\n\tat org.apache.X.y(X.java:1)\n\tat a.b:c", "scm2", 9860, true},
		{notLeader, "SCM Server:scm1(h) is not the leader. Suggested leader is Server:[2001:db8::2]:9860.", "2001:db8::2", 9860, true},
		{notLeader, "SCM Server:scm1(h) is not the leader. Suggested leader is Server:10.0.0.2:19860.", "10.0.0.2", 19860, true},
		{notLeader, "SCM Server:scm1(h) is not the leader. Could not determine the leader node.", "", 0, false},
		{"other.Exception", "Suggested leader is Server:scm2:9860.", "", 0, false},
	}
	for _, tt := range tests {
		host, port, ok := suggestedLeader(&hadooprpc.RemoteError{Class: tt.class, Message: tt.msg})
		if host != tt.host || port != tt.port || ok != tt.ok {
			t.Errorf("suggestedLeader(%q) = %q, %d, %v", tt.msg, host, port, ok)
		}
	}
}

func TestSameNode(t *testing.T) {
	tests := []struct {
		addr, host string
		port       int
		want       bool
	}{
		{"scm2.example.com:9860", "SCM2.Example.com", 9860, true},
		{"scm2.example.com:9860", "scm2.example.com", 9861, false},
		{"[::1]:9860", "0:0::1", 9860, true},
		{"127.0.0.1:9860", "127.0.0.1", 9860, true},
		{"scm2:9860", "scm3", 9860, false},
	}
	for _, tt := range tests {
		if got := sameNode(tt.addr, tt.host, tt.port); got != tt.want {
			t.Errorf("sameNode(%s, %s, %d) = %v", tt.addr, tt.host, tt.port, got)
		}
	}
}
