package scmsim

import (
	"context"
	"fmt"
	"slices"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/minicluster/rpcserver"
	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/ozone/kerberos"
	"github.com/dnecho/dnecho/ozone/token"
	"github.com/dnecho/dnecho/proto/hddspb"
	"github.com/dnecho/dnecho/proto/scmpb"
)

// Java exception classes SCM answers with (docs/ozone-scm.md#what-scm-returns,
// docs/ozone-scm.md#admin-checks, docs/ozone-scm.md#leader-check-on-the-server).
const (
	classNotLeader         = "org.apache.hadoop.hdds.ratis.ServerNotLeaderException"
	classContainerNotFound = "org.apache.hadoop.hdds.scm.container.ContainerNotFoundException"
	classPipelineNotFound  = "org.apache.hadoop.hdds.scm.pipeline.PipelineNotFoundException"
	classAccessControl     = "org.apache.hadoop.security.AccessControlException"
	classUnsupported       = "java.lang.UnsupportedOperationException"
)

// javaError builds an ERROR reply whose text, like a real server's, goes on
// with a stack trace, so clients must read only the first line.
func javaError(class, msg, method string) *hadooprpc.RemoteError {
	return &hadooprpc.RemoteError{
		Class:   class,
		Message: msg + "\n\tat org.apache.hadoop.hdds.scm.server.SCMClientProtocolServer." + method + "(scmsim)\n\tat java.base/java.lang.Thread.run(Thread.java:840)",
	}
}

// submitRequest serves StorageContainerLocationProtocolService.submitRequest.
// Ozone: hadoop-hdds/server-scm/.../StorageContainerLocationProtocolServerSideTranslatorPB.java.
func (s *SCM) submitRequest(_ context.Context, call rpcserver.CallInfo, b []byte) (proto.Message, error) {
	s.requests.Add(1)
	var req scmpb.ScmContainerLocationRequest
	if err := rpcserver.UnmarshalRequest(b, &req); err != nil {
		return nil, err
	}
	if err := s.checkLeader(); err != nil {
		return nil, err
	}
	resp := &scmpb.ScmContainerLocationResponse{CmdType: req.CmdType, Status: scmpb.ScmContainerLocationResponse_OK.Enum()}
	var err error
	switch req.GetCmdType() {
	case scmpb.Type_GetContainer:
		resp.GetContainerResponse, err = s.getContainer(call.User, req.GetGetContainerRequest().GetContainerID())
	case scmpb.Type_GetContainerWithPipeline:
		resp.GetContainerWithPipelineResponse, err = s.getContainerWithPipeline(req.GetGetContainerWithPipelineRequest().GetContainerID())
	case scmpb.Type_ListPipelines:
		resp.ListPipelineResponse = s.listPipelines()
	case scmpb.Type_GetPipeline:
		resp.GetPipelineResponse, err = s.getPipeline(req.GetGetPipelineRequest().GetPipelineID())
	case scmpb.Type_GetContainerToken:
		resp.ContainerTokenResponse, err = s.getContainerToken(call.User, req.GetContainerTokenRequest().GetContainerID().GetId())
	default:
		err = javaError(classUnsupported, fmt.Sprintf("scmsim does not emulate %v", req.GetCmdType()), "submitRequest")
	}
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// checkLeader refuses on followers. Every type served here needs the
// leader (docs/ozone-scm.md#leader-check-on-the-server).
func (s *SCM) checkLeader() error {
	if s.peers == nil {
		return nil
	}
	s.st.mu.Lock()
	leader, known := s.st.leader, s.st.leaderKnown
	s.st.mu.Unlock()
	if leader == s.index {
		return nil
	}
	msg := fmt.Sprintf("SCM Server:scm%d(%s) is not the leader. ", s.index+1, s.cfg.Hostname)
	if hint := s.peerAddr(leader); known && hint != "" {
		msg += "Suggested leader is Server:" + hint + "."
	} else {
		msg += "Could not determine the leader node."
	}
	return javaError(classNotLeader, msg, "checkLeader")
}

// checkAdmin is SCM's checkAdminAccess, on the caller's short name: a Kerberos principal
// alice@REALM is the administrator "alice" (docs/ozone-scm.md, admin checks).
func (s *SCM) checkAdmin(user, method string) error {
	if s.cfg.Admins == nil || slices.Contains(s.cfg.Admins, kerberos.ShortName(user)) {
		return nil
	}
	return javaError(classAccessControl,
		fmt.Sprintf("Access denied for user %s. SCM superuser privilege is required.", user), method)
}

func (s *SCM) container(id int64) (containerEntry, error) {
	s.st.mu.Lock()
	e, ok := s.st.containers[uint64(id)]
	s.st.mu.Unlock()
	if !ok || id < 0 {
		return containerEntry{}, javaError(classContainerNotFound, fmt.Sprintf("Container #%d not found", id), "getContainer")
	}
	return e, nil
}

func (s *SCM) getContainer(user string, id int64) (*scmpb.GetContainerResponseProto, error) {
	if err := s.checkAdmin(user, "getContainer"); err != nil {
		return nil, err
	}
	e, err := s.container(id)
	if err != nil {
		return nil, err
	}
	return &scmpb.GetContainerResponseProto{ContainerInfo: proto.Clone(e.info).(*hddspb.ContainerInfoProto)}, nil
}

// getContainerWithPipeline has no admin check. An OPEN container gets its
// own pipeline; otherwise SCM builds a CLOSED read pipeline from the
// replicas. Ozone: SCMClientProtocolServer.getContainerWithPipelineCommon.
func (s *SCM) getContainerWithPipeline(id int64) (*scmpb.GetContainerWithPipelineResponseProto, error) {
	e, err := s.container(id)
	if err != nil {
		return nil, err
	}
	s.st.mu.Lock()
	p := s.st.pipelineLocked(e.info.GetPipelineID())
	s.st.mu.Unlock()
	replicas := e.replicas
	if replicas == nil && p != nil {
		replicas = p.GetMembers()
	}
	if e.info.GetState() != hddspb.LifeCycleState_OPEN || p == nil {
		p = readPipeline(e.info, replicas)
	}
	return &scmpb.GetContainerWithPipelineResponseProto{ContainerWithPipeline: &hddspb.ContainerWithPipeline{
		ContainerInfo: proto.Clone(e.info).(*hddspb.ContainerInfoProto),
		Pipeline:      proto.Clone(p).(*hddspb.Pipeline),
	}}, nil
}

// readPipeline mirrors PipelineManager.createPipelineForRead: a random id,
// state CLOSED, the container's replication, the replicas as members.
func readPipeline(info *hddspb.ContainerInfoProto, replicas []*hddspb.DatanodeDetailsProto) *hddspb.Pipeline {
	pid, _ := PipelineID(NewUUID())
	return &hddspb.Pipeline{
		Members:              replicas,
		State:                hddspb.PipelineState_PIPELINE_CLOSED.Enum(),
		Type:                 info.ReplicationType,
		Factor:               info.ReplicationFactor,
		Id:                   pid,
		LeaderID:             proto.String(""),
		CreationTimeStamp:    proto.Uint64(uint64(time.Now().UnixMilli())),
		MemberReplicaIndexes: make([]uint32, len(replicas)),
	}
}

func (s *SCM) listPipelines() *scmpb.ListPipelineResponseProto {
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	out := &scmpb.ListPipelineResponseProto{}
	for _, p := range s.st.pipelines {
		out.Pipelines = append(out.Pipelines, proto.Clone(p).(*hddspb.Pipeline))
	}
	return out
}

func (s *SCM) getPipeline(id *hddspb.PipelineID) (*scmpb.GetPipelineResponseProto, error) {
	s.st.mu.Lock()
	p := s.st.pipelineLocked(id)
	s.st.mu.Unlock()
	if p == nil {
		return nil, javaError(classPipelineNotFound, fmt.Sprintf("PipelineID=%s not found", id.GetId()), "getPipeline")
	}
	return &scmpb.GetPipelineResponseProto{Pipeline: proto.Clone(p).(*hddspb.Pipeline)}, nil
}

// getContainerToken signs a token for the calling user; like SCM it does not
// check that the container exists.
func (s *SCM) getContainerToken(user string, id uint64) (*scmpb.GetContainerTokenResponseProto, error) {
	if err := s.checkAdmin(user, "getContainerToken"); err != nil {
		return nil, err
	}
	tok := token.Token{} // hdds.container.token.enabled = false: all four parts empty
	if s.cfg.TokensEnabled {
		var err error
		tok, err = token.NewContainerToken(s.st.key, user, id, time.Now().Add(s.cfg.TokenExpiry))
		if err != nil {
			return nil, err
		}
	}
	return &scmpb.GetContainerTokenResponseProto{Token: tok.Proto()}, nil
}
