package dnsim

import (
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/proto/dnpb"
	"github.com/dnecho/dnecho/proto/hddspb"
	"github.com/dnecho/dnecho/testsupport/testwait"
)

func TestNewValidation(t *testing.T) {
	tests := []struct {
		name string
		opts Options
	}{
		{"bad uuid", Options{UUID: "not-a-uuid"}},
		{"negative replica index", Options{Containers: map[int64]int32{1: -1}}},
		{"negative payload cap", Options{MaxResponsePayload: -1}},
		{"bad error rate", Options{Faults: Faults{ErrorRate: 2}}},
		{"success as fault", Options{Faults: Faults{ErrorRate: 1, ErrorResult: dnpb.Result_SUCCESS}}},
		{"negative latency", Options{Faults: Faults{Latency: -time.Second}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(tt.opts); err == nil {
				t.Fatal("New accepted invalid options")
			}
		})
	}
}

func TestStartAddress(t *testing.T) {
	d, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{"0.0.0.0:0", "10.1.2.3:0", "[::1]:0", "nonsense"} {
		if err := d.Start(addr); err == nil {
			d.Stop()
			t.Fatalf("Start(%q) accepted a non-loopback address", addr)
		}
	}
	if err := d.Start(":0"); err != nil {
		t.Fatal(err)
	}
	defer d.Stop()
	if d.Port() == 0 || d.Addr() == "" {
		t.Fatalf("addr %q port %d", d.Addr(), d.Port())
	}
	if err := d.Start(":0"); err == nil {
		t.Fatal("second Start succeeded")
	}
}

func TestDetails(t *testing.T) {
	d := startDN(t, Options{UUID: testUUID})
	det := d.Details()
	if det.GetUuid() != testUUID || det.GetIpAddress() != "127.0.0.1" || det.GetHostName() != "localhost" {
		t.Fatalf("details %v", det)
	}
	// docs/ozone-scm.md#container-and-pipeline-messages worked example.
	if u := det.GetUuid128(); u.GetMostSigBits() != 4550048359981334995 || u.GetLeastSigBits() != -7346493568243191039 {
		t.Fatalf("uuid128 %v", u)
	}
	if u := det.GetId().GetUuid(); u.GetMostSigBits() != 4550048359981334995 || u.GetLeastSigBits() != -7346493568243191039 {
		t.Fatalf("id %v", u)
	}
	if len(det.Ports) != 4 || det.Ports[0].GetName() != "STANDALONE" || int(det.Ports[0].GetValue()) != d.Port() {
		t.Fatalf("ports %v", det.Ports)
	}
	// Three Ratis ports of their own, as a current DataNode publishes them.
	seen := map[uint32]bool{uint32(d.Port()): true}
	for i, name := range []string{"RATIS", "RATIS_ADMIN", "RATIS_SERVER"} {
		if p := det.Ports[i+1]; p.GetName() != name || p.GetValue() == 0 || seen[p.GetValue()] {
			t.Fatalf("ports %v", det.Ports)
		}
		seen[det.Ports[i+1].GetValue()] = true
	}
	if int(det.Ports[1].GetValue()) != d.RatisPort() {
		t.Fatalf("RATIS %v, RatisPort %d", det.Ports[1], d.RatisPort())
	}
	noRatis := startDN(t, Options{NoRatis: true})
	if ports := noRatis.Details().Ports; len(ports) != 1 || noRatis.RatisPort() != 0 {
		t.Fatalf("NoRatis publishes %v", ports)
	}
	if det.GetNetworkLocation() != "/default-rack" || det.GetNetworkName() != testUUID ||
		det.GetPersistedOpState() != hddspb.NodeOperationalState_IN_SERVICE {
		t.Fatalf("details %v", det)
	}
	random, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hddspb.ParseUUIDText(random.UUID()); err != nil || random.UUID()[14] != '4' {
		t.Fatalf("random uuid %q: %v", random.UUID(), err)
	}
}

func TestStopRestart(t *testing.T) {
	d := startDN(t, Options{Containers: map[int64]int32{1: 0}})
	port, ports := d.Port(), d.Details().Ports
	cc := dial(t, d)
	if _, err := call(t, cc, echoReq(1)); err != nil {
		t.Fatal(err)
	}
	d.Stop()
	d.Stop() // idempotent
	if _, err := call(t, cc, echoReq(1)); status.Code(err) != codes.Unavailable {
		t.Fatalf("call to a stopped DataNode: %v, want UNAVAILABLE", err)
	}
	if err := d.Restart(); err != nil {
		t.Fatal(err)
	}
	if d.Port() != port {
		t.Fatalf("restarted on port %d, want %d", d.Port(), port)
	}
	if got := d.Details().Ports; !proto.Equal(&hddspb.DatanodeDetailsProto{Ports: got}, &hddspb.DatanodeDetailsProto{Ports: ports}) {
		t.Fatalf("restarted with ports %v, want %v", got, ports)
	}
	// A fresh channel avoids waiting out the old one's reconnect backoff.
	if resp, err := call(t, dial(t, d), echoReq(1)); err != nil || resp.GetResult() != dnpb.Result_SUCCESS {
		t.Fatalf("after restart: %v %v", resp, err)
	}
}

func TestRestartBeforeStart(t *testing.T) {
	d, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Restart(); err == nil {
		t.Fatal("Restart before Start succeeded")
	}
}

func TestFaultErrorRate(t *testing.T) {
	d := startDN(t, Options{Containers: map[int64]int32{1: 0}})
	cc := dial(t, d)
	tests := []struct {
		name   string
		faults Faults
		code   codes.Code
		result dnpb.Result
		msg    string
	}{
		{"default result", Faults{ErrorRate: 1}, codes.OK, dnpb.Result_CONTAINER_INTERNAL_ERROR, DefaultFaultMessage},
		{"chosen result", Faults{ErrorRate: 1, ErrorResult: dnpb.Result_CLOSED_CONTAINER_IO, ErrorMessage: "closed"},
			codes.OK, dnpb.Result_CLOSED_CONTAINER_IO, "closed"},
		{"gRPC status", Faults{ErrorRate: 1, ErrorCode: codes.Unauthenticated}, codes.Unauthenticated, 0, ""},
		{"rate 0", Faults{}, codes.OK, dnpb.Result_SUCCESS, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := d.SetFaults(tt.faults); err != nil {
				t.Fatal(err)
			}
			resp, err := call(t, cc, echoReq(1))
			if status.Code(err) != tt.code {
				t.Fatalf("gRPC %v, want %v", err, tt.code)
			}
			if err != nil {
				return
			}
			if resp.GetResult() != tt.result || resp.GetMessage() != tt.msg || resp.Echo != nil && tt.result != dnpb.Result_SUCCESS {
				t.Fatalf("response %v", resp)
			}
		})
	}
	if got := d.Stats().Injected; got != 3 {
		t.Fatalf("injected %d, want 3", got)
	}
}

func TestFaultLatency(t *testing.T) {
	d := startDN(t, Options{Containers: map[int64]int32{1: 0}, Faults: Faults{Latency: 30 * time.Millisecond, Jitter: 10 * time.Millisecond}})
	start := time.Now()
	if _, err := call(t, dial(t, d), echoReq(1)); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 30*time.Millisecond {
		t.Fatalf("answered after %v, want >= 30ms", el)
	}
}

func TestFaultStall(t *testing.T) {
	d := startDN(t, Options{Containers: map[int64]int32{1: 0}})
	cc := dial(t, d)

	t.Run("until released", func(t *testing.T) {
		if err := d.SetFaults(Faults{Stall: true}); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := call(t, cc, echoReq(1))
			done <- err
		}()
		testwait.Eventually(t, testwait.Timeout, "a stalled call", func() bool { return d.Stats().Stalled == 1 })
		select {
		case err := <-done:
			t.Fatalf("stalled call returned early: %v", err)
		default:
		}
		if err := d.SetFaults(Faults{}); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatalf("released call: %v", err)
		}
	})

	t.Run("for a duration", func(t *testing.T) {
		if err := d.SetFaults(Faults{Stall: true, StallFor: 20 * time.Millisecond}); err != nil {
			t.Fatal(err)
		}
		defer d.SetFaults(Faults{})
		if _, err := call(t, cc, echoReq(1)); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("stop frees held calls", func(t *testing.T) {
		d2 := startDN(t, Options{Containers: map[int64]int32{1: 0}, Faults: Faults{Stall: true}})
		cc2 := dial(t, d2)
		done := make(chan error, 1)
		go func() {
			_, err := call(t, cc2, echoReq(1))
			done <- err
		}()
		testwait.Eventually(t, testwait.Timeout, "a stalled call", func() bool { return d2.Stats().Stalled == 1 })
		d2.Stop()
		if err := <-done; status.Code(err) != codes.Unavailable && status.Code(err) != codes.Canceled {
			t.Fatalf("held call after Stop: %v", err)
		}
	})
}

func TestTLS(t *testing.T) {
	d := startDN(t, Options{Containers: map[int64]int32{1: 0}, TLS: true})
	if len(d.CACertPEM()) == 0 {
		t.Fatal("no CA PEM")
	}
	resp, err := call(t, dial(t, d), echoReq(1))
	if err != nil || resp.GetResult() != dnpb.Result_SUCCESS {
		t.Fatalf("TLS call: %v %v", resp, err)
	}
}
