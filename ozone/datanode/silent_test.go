package datanode

import (
	"context"
	"net"
	"strconv"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/proto/hddspb"
	"github.com/dnecho/dnecho/testsupport/testkit"
)

// silentListener is a frozen DataNode or a black-holed host as seen from the client.
func silentListener(t *testing.T) (host string, port uint32) {
	t.Helper()
	h, p, _ := net.SplitHostPort(testkit.NewSilent(t).Addr())
	n, _ := strconv.Atoi(p)
	return h, uint32(n)
}

// Both stream modes give up on a silent DataNode at the call deadline, with DEADLINE_EXCEEDED,
// instead of waiting for gRPC's connect timeout (20 s).
func TestSilentDataNodeBoundedByDeadline(t *testing.T) {
	host, port := silentListener(t)
	id := "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
	p := &hddspb.Pipeline{Members: []*hddspb.DatanodeDetailsProto{{
		Uuid: proto.String(id), IpAddress: proto.String(host), HostName: proto.String("silent"),
		Ports: []*hddspb.Port{{Name: proto.String("STANDALONE"), Value: proto.Uint32(port)}},
	}}}
	for _, mode := range []StreamMode{StreamPerRequest, StreamReused} {
		t.Run(string(mode), func(t *testing.T) {
			c := newClient(t, p, Options{Streams: mode, Timeout: 300 * time.Millisecond})
			prep, err := c.Prepare(Request{ContainerID: 1, ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			res, err := c.Echo(context.Background(), prep)
			took := time.Since(start)
			if err == nil {
				t.Fatal("echo to a silent DataNode succeeded")
			}
			if res.GRPCCode != codes.DeadlineExceeded {
				t.Errorf("gRPC code %v (%v), want DeadlineExceeded", res.GRPCCode, err)
			}
			if took > 5*time.Second {
				t.Errorf("took %s with a 300ms deadline", took)
			}
			// The caller's cancellation ends a call that is still opening its stream too.
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(100*time.Millisecond, cancel)
			c2 := newClient(t, p, Options{Streams: mode, Timeout: time.Minute})
			start = time.Now()
			if _, err := c2.Echo(ctx, prep); err == nil {
				t.Fatal("cancelled echo succeeded")
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("cancel took %s to end the call", took)
			}
		})
	}
}
