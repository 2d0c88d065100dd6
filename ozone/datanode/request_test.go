package datanode

import (
	"encoding/hex"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/proto/hddspb"
)

const testUUID = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"

func detail(uuid, ip string, port uint32, state hddspb.NodeOperationalState) *hddspb.DatanodeDetailsProto {
	return &hddspb.DatanodeDetailsProto{
		Uuid:             proto.String(uuid),
		IpAddress:        proto.String(ip),
		HostName:         proto.String("host-" + ip),
		Ports:            []*hddspb.Port{{Name: proto.String("STANDALONE"), Value: proto.Uint32(port)}},
		PersistedOpState: state.Enum(),
	}
}

// TestPreparedBytes checks the request the client puts on the wire against
// docs/ozone-echo.md#test-vectors vectors V1 and V4.
func TestPreparedBytes(t *testing.T) {
	p := &hddspb.Pipeline{Members: []*hddspb.DatanodeDetailsProto{
		detail(testUUID, "10.0.0.1", 9859, hddspb.NodeOperationalState_IN_SERVICE),
		detail("00000000-0000-4000-8000-000000000002", "10.0.0.2", 9859, hddspb.NodeOperationalState_IN_SERVICE),
	}}
	c := newClient(t, p, Options{})
	tests := []struct {
		name string
		req  Request
		hex  string
	}{
		{"V1", Request{ContainerID: 1, ReadOnly: true},
			"081612001801222433663235303465302d346638392d343164332d396130632d303330356538326333333031c00103d201080a00100018002001"},
		{"V4", Request{ContainerID: 7, Token: "AAAAAA", Payload: []byte{0, 1, 2, 3}, PayloadSizeResp: 1024, SleepTimeMs: 5, ReadOnly: true},
			"081612001807222433663235303465302d346638392d343164332d396130632d303330356538326333333031ba0106414141414141c00103d2010d0a040001020310800818052001"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prep, err := c.Prepare(tt.req)
			if err != nil {
				t.Fatal(err)
			}
			for i, e := range prep.reqs {
				// Every member gets the first member's uuid (docs/ozone-echo.md), and the bytes
				// grpc-go is handed are the vector's.
				b := e.bufs.Materialize()
				if got := hex.EncodeToString(b); got != tt.hex {
					t.Errorf("member %d:\n got %s\nwant %s", i, got, tt.hex)
				}
				if e.size != len(b) {
					t.Errorf("member %d: size %d, want %d", i, e.size, len(b))
				}
			}
		})
	}
}

func TestPrepareTooLarge(t *testing.T) {
	p := &hddspb.Pipeline{Members: []*hddspb.DatanodeDetailsProto{detail(testUUID, "10.0.0.1", 1, hddspb.NodeOperationalState_IN_SERVICE)}}
	c := newClient(t, p, Options{MaxMessageSize: 100})
	if _, err := c.Prepare(Request{ContainerID: 1, Payload: make([]byte, 100)}); err == nil {
		t.Fatal("Prepare accepted a request above MaxMessageSize")
	}
}

func TestMembers(t *testing.T) {
	const (
		u1 = "00000000-0000-4000-8000-000000000001"
		u2 = "00000000-0000-4000-8000-000000000002"
		u3 = "00000000-0000-4000-8000-000000000003"
		u4 = "00000000-0000-4000-8000-000000000004"
	)
	inService, decom, maint := hddspb.NodeOperationalState_IN_SERVICE, hddspb.NodeOperationalState_DECOMMISSIONING, hddspb.NodeOperationalState_IN_MAINTENANCE
	noState := detail(u4, "10.0.0.4", 0, inService)
	noState.PersistedOpState = nil
	p := &hddspb.Pipeline{Members: []*hddspb.DatanodeDetailsProto{
		detail(u1, "10.0.0.1", 1001, decom),
		detail(u2, "10.0.0.2", 1002, inService),
		detail(u3, "10.0.0.3", 1003, maint),
		noState,
	}}
	tests := []struct {
		name string
		opts Options
		want []DataNode
	}{
		{"java order, port 0 is 9859", Options{}, []DataNode{
			{u2, "10.0.0.2:1002"}, {u4, "10.0.0.4:9859"}, {u1, "10.0.0.1:1001"}, {u3, "10.0.0.3:1003"}}},
		{"hostnames and another default port", Options{UseHostname: true, DefaultPort: 7}, []DataNode{
			{u2, "host-10.0.0.2:1002"}, {u4, "host-10.0.0.4:7"}, {u1, "host-10.0.0.1:1001"}, {u3, "host-10.0.0.3:1003"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := newClient(t, p, tt.opts).Members()
			if len(got) != len(tt.want) {
				t.Fatalf("members %v", got)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("member %d = %v, want %v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestMemberUUIDSources(t *testing.T) {
	id := &hddspb.UUID{MostSigBits: proto.Int64(4550048359981334995), LeastSigBits: proto.Int64(-7346493568243191039)}
	other := &hddspb.UUID{MostSigBits: proto.Int64(1), LeastSigBits: proto.Int64(2)}
	tests := []struct {
		name string
		m    *hddspb.DatanodeDetailsProto
		want string
	}{
		{"id first", &hddspb.DatanodeDetailsProto{Id: &hddspb.DatanodeIDProto{Uuid: id}, Uuid128: other, Uuid: proto.String("x")}, testUUID},
		{"then uuid128", &hddspb.DatanodeDetailsProto{Uuid128: id, Uuid: proto.String("x")}, testUUID},
		{"then uuid", &hddspb.DatanodeDetailsProto{Uuid: proto.String(testUUID)}, testUUID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := memberUUID(tt.m)
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	if _, err := memberUUID(&hddspb.DatanodeDetailsProto{}); err == nil {
		t.Fatal("member without id accepted")
	}
}

func TestNewErrors(t *testing.T) {
	good := detail(testUUID, "10.0.0.1", 1, hddspb.NodeOperationalState_IN_SERVICE)
	noPort := detail(testUUID, "10.0.0.1", 1, hddspb.NodeOperationalState_IN_SERVICE)
	noPort.Ports = []*hddspb.Port{{Name: proto.String("RATIS"), Value: proto.Uint32(9858)}}
	noAddr := detail(testUUID, "", 1, hddspb.NodeOperationalState_IN_SERVICE)
	twin := detail("00000000-0000-4000-8000-000000000002", "10.0.0.1", 2, hddspb.NodeOperationalState_IN_SERVICE)
	pipe := func(ms ...*hddspb.DatanodeDetailsProto) *hddspb.Pipeline { return &hddspb.Pipeline{Members: ms} }
	tests := []struct {
		name string
		p    *hddspb.Pipeline
		opts Options
	}{
		{"no members", pipe(), Options{}},
		{"nil pipeline", nil, Options{}},
		{"no STANDALONE port", pipe(noPort), Options{}},
		{"no address", pipe(noAddr), Options{}},
		{"unknown target", pipe(good), Options{Target: "nowhere"}},
		{"ambiguous target", pipe(good, twin), Options{Target: "10.0.0.1"}},
		{"bad stream mode", pipe(good), Options{Streams: "sometimes"}},
		{"negative timeout", pipe(good), Options{Timeout: -1}},
		{"bad default port", pipe(good), Options{DefaultPort: 70000}},
		{"TLS without CA", pipe(good), Options{TLS: &TLSOptions{}}},
		{"TLS CA file missing", pipe(good), Options{TLS: &TLSOptions{CAFiles: []string{"/nonexistent/ca.pem"}}}},
		{"TLS CA not PEM", pipe(good), Options{TLS: &TLSOptions{CAPEM: []byte("nope")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(tt.p, tt.opts)
			if err == nil {
				c.Close()
				t.Fatal("New accepted it")
			}
		})
	}
}
