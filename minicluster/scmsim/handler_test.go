package scmsim

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/proto/hddspb"
	"github.com/dnecho/dnecho/proto/scmpb"
)

func call(t testing.TB, addr, user string, req *scmpb.ScmContainerLocationRequest) (*scmpb.ScmContainerLocationResponse, error) {
	t.Helper()
	c, err := hadooprpc.NewClient(addr, hadooprpc.Options{User: user})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp := new(scmpb.ScmContainerLocationResponse)
	return resp, c.Call(ctx, Protocol, "submitRequest", req, resp)
}

func request(t scmpb.Type) *scmpb.ScmContainerLocationRequest {
	return &scmpb.ScmContainerLocationRequest{CmdType: t.Enum(), TraceID: proto.String(""), Version: proto.Uint32(3)}
}

func getContainer(id int64) *scmpb.ScmContainerLocationRequest {
	r := request(scmpb.Type_GetContainer)
	r.GetContainerRequest = &scmpb.GetContainerRequestProto{ContainerID: &id}
	return r
}

// remoteFirstLine returns the class and first message line of a RemoteError.
func remoteFirstLine(t testing.TB, err error) (string, string) {
	t.Helper()
	var re *hadooprpc.RemoteError
	if !errors.As(err, &re) {
		t.Fatalf("err = %v, want a RemoteError", err)
	}
	return re.Class, hadooprpc.FirstLine(re.Message)
}

func TestErrorsAsSCMSendsThem(t *testing.T) {
	s := startSCM(t, Config{Admins: []string{"root"}})
	specCluster(t, s)
	getPipeline := request(scmpb.Type_GetPipeline)
	getPipeline.GetPipelineRequest = &scmpb.GetPipelineRequestProto{PipelineID: &hddspb.PipelineID{Id: proto.String(NewUUID())}}
	tests := []struct {
		name, user string
		req        *scmpb.ScmContainerLocationRequest
		class, msg string
	}{
		{"missing container", "root", getContainer(9), classContainerNotFound, "Container #9 not found"},
		{"not an admin", "alice", getContainer(1), classAccessControl, "Access denied for user alice. SCM superuser privilege is required."},
		{"missing pipeline", "alice", getPipeline, classPipelineNotFound, "PipelineID=" + getPipeline.GetGetPipelineRequest().GetPipelineID().GetId() + " not found"},
		{"not emulated", "root", request(scmpb.Type_GetScmInfo), classUnsupported, "scmsim does not emulate GetScmInfo"},
	}
	for _, tt := range tests {
		_, err := call(t, s.Addr(), tt.user, tt.req)
		if class, msg := remoteFirstLine(t, err); class != tt.class || msg != tt.msg {
			t.Errorf("%s: %s: %s", tt.name, class, msg)
		}
	}
	gp := request(scmpb.Type_GetPipeline)
	gp.GetPipelineRequest = &scmpb.GetPipelineRequestProto{PipelineID: &hddspb.PipelineID{Id: proto.String(vecPipeline)}}
	if resp, err := call(t, s.Addr(), "alice", gp); err != nil || resp.GetGetPipelineResponse().GetPipeline().GetId().GetId() != vecPipeline {
		t.Errorf("GetPipeline: %v %v", resp, err)
	}
}

func TestNotLeaderMessages(t *testing.T) {
	h, err := NewHA(3, Config{Hostname: "scm.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	specCluster(t, h)
	if err := h.SetLeader(1); err != nil {
		t.Fatal(err)
	}
	class, msg := remoteFirstLine(t, func() error { _, err := call(t, h.Addrs()[2], "u", getContainer(1)); return err }())
	want := "SCM Server:scm3(scm.example.com) is not the leader. Suggested leader is Server:" + h.Addrs()[1] + "."
	if class != classNotLeader || msg != want {
		t.Errorf("leader known: %s: %q\nwant %q", class, msg, want)
	}
	h.SetLeaderKnown(false)
	_, msg = remoteFirstLine(t, func() error { _, err := call(t, h.Addrs()[0], "u", getContainer(1)); return err }())
	if msg != "SCM Server:scm1(scm.example.com) is not the leader. Could not determine the leader node." {
		t.Errorf("leader unknown: %q", msg)
	}
	if resp, err := call(t, h.Addrs()[1], "u", getContainer(1)); err != nil || resp.GetGetContainerResponse().GetContainerInfo().GetContainerID() != 1 {
		t.Errorf("leader: %v %v", resp, err)
	}
	if err := h.SetLeader(3); err == nil {
		t.Error("SetLeader(3) of 3 nodes accepted")
	}
}

func TestStopRestart(t *testing.T) {
	s := startSCM(t, Config{})
	specCluster(t, s)
	addr := s.Addr()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := call(t, addr, "u", getContainer(1)); err == nil {
		t.Fatal("stopped SCM answered")
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	if s.Addr() != addr {
		t.Errorf("restarted on %s, want %s", s.Addr(), addr)
	}
	if _, err := call(t, addr, "u", getContainer(1)); err != nil {
		t.Fatalf("after restart: %v", err)
	}
}

func TestReadPipelineForClosedContainer(t *testing.T) {
	s := startSCM(t, Config{})
	specCluster(t, s)
	if err := s.AddContainer(Container{ID: 5, State: hddspb.LifeCycleState_CLOSED, PipelineID: vecPipeline}); err != nil {
		t.Fatal(err)
	}
	r := request(scmpb.Type_GetContainerWithPipeline)
	r.GetContainerWithPipelineRequest = &scmpb.GetContainerWithPipelineRequestProto{ContainerID: proto.Int64(5)}
	resp, err := call(t, s.Addr(), "u", r)
	if err != nil {
		t.Fatal(err)
	}
	p := resp.GetGetContainerWithPipelineResponse().GetContainerWithPipeline().GetPipeline()
	if p.GetState() != hddspb.PipelineState_PIPELINE_CLOSED || p.GetId().GetId() == vecPipeline ||
		len(p.GetMembers()) != 1 || p.GetMembers()[0].GetUuid() != vecDN {
		t.Errorf("read pipeline = %v", p)
	}
	if err := s.RemovePipeline(vecPipeline); err != nil {
		t.Fatal(err)
	}
	if err := s.RemovePipeline(vecPipeline); err == nil {
		t.Error("removing a missing pipeline succeeded")
	}
}
