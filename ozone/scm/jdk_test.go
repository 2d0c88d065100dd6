package scm

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/minicluster/scmsim"
	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/ozone/kerberos"
	"github.com/dnecho/dnecho/proto/hddspb"
	"github.com/dnecho/dnecho/proto/scmpb"
	"github.com/dnecho/dnecho/testsupport/jdkpeer"
	"github.com/dnecho/dnecho/testsupport/testkdc"
)

// cannedReplies are the bodies the JDK server answers GetContainer, ListPipelines and
// GetContainerToken with: container 1 on pipelineA.
func cannedReplies(t *testing.T) map[int][]byte {
	dn, err := scmsim.Datanode(dn1UUID, "10.0.0.11", "dn1.example.com", scmsim.DefaultStandalonePort)
	must(t, err)
	p, err := scmsim.Pipeline(pipelineA, hddspb.PipelineState_PIPELINE_OPEN, dn)
	must(t, err)
	pid, err := scmsim.PipelineID(pipelineA)
	must(t, err)
	ok := scmpb.ScmContainerLocationResponse_OK.Enum()
	msgs := map[scmpb.Type]*scmpb.ScmContainerLocationResponse{
		scmpb.Type_GetContainer: {CmdType: scmpb.Type_GetContainer.Enum(), Status: ok, GetContainerResponse: &scmpb.GetContainerResponseProto{
			ContainerInfo: &hddspb.ContainerInfoProto{ContainerID: proto.Int64(1), PipelineID: pid, State: hddspb.LifeCycleState_OPEN.Enum(),
				UsedBytes: proto.Uint64(0), NumberOfKeys: proto.Uint64(0), StateEnterTime: proto.Int64(0), Owner: proto.String("om"),
				DeleteTransactionId: proto.Int64(0), ReplicationType: hddspb.ReplicationType_RATIS.Enum()}}},
		scmpb.Type_ListPipelines: {CmdType: scmpb.Type_ListPipelines.Enum(), Status: ok,
			ListPipelineResponse: &scmpb.ListPipelineResponseProto{Pipelines: []*hddspb.Pipeline{p}}},
		scmpb.Type_GetContainerToken: {CmdType: scmpb.Type_GetContainerToken.Enum(), Status: ok,
			ContainerTokenResponse: &scmpb.GetContainerTokenResponseProto{Token: &hddspb.TokenProto{
				Identifier: []byte("id"), Password: []byte("pw"), Kind: proto.String("HDDS_CONTAINER_TOKEN"), Service: proto.String("#1")}}},
	}
	out := map[int][]byte{}
	for typ, m := range msgs {
		b, err := proto.Marshal(m)
		must(t, err)
		out[int(typ)] = b
	}
	return out
}

// The Go client against the JDK's GSSAPI SaslServer, the acceptor a real SCM runs, for each
// protection: the lookup and the token come back, and the JDK saw alice with that protection.
func TestLookupAgainstJDKSaslServer(t *testing.T) {
	peers := jdkpeer.Compile(t)
	k := testkdc.Start(t)
	k.AddPrincipals(t, "alice", "scm/localhost")
	userKT, scmKT := k.Keytab(t, "alice.keytab", "alice"), k.Keytab(t, "scm.keytab", "scm/localhost")
	replies := cannedReplies(t)
	for _, tc := range []struct{ jdk, want string }{
		{"auth", "auth"}, {"auth-int", "auth-int"}, {"auth-conf", "auth-conf"}, {"auth-conf,auth-int,auth", "auth-conf"},
	} {
		t.Run(tc.jdk, func(t *testing.T) {
			srv := peers.StartServer(t, k.Config, "scm/localhost@"+testkdc.Realm, scmKT, tc.jdk, replies)
			cred, err := kerberos.Login(kerberos.LoginOptions{Config: k.Config, CCache: k.Kinit(t, "alice", userKT, "")})
			must(t, err)
			defer cred.Close()
			prot := []hadooprpc.QOP{hadooprpc.QOPPrivacy, hadooprpc.QOPIntegrity, hadooprpc.QOPAuthentication}
			c := newClient(t, Options{Addresses: []string{srv.Addr}, MaxRetries: NoRetries, RPC: hadooprpc.Options{
				User: cred.Principal(), Authenticator: &hadooprpc.Kerberos{Credentials: cred, Protection: prot,
					Principal: hadooprpc.ServerPrincipal{Key: "hdds.scm.kerberos.principal", Configured: "scm/_HOST@" + testkdc.Realm}}}})
			lk, err := c.LookupPipeline(testCtx(t), 1, LookupFreon)
			must(t, err)
			if got := lk.Pipeline.GetMembers()[0].GetIpAddress(); got != "10.0.0.11" {
				t.Fatalf("member %s", got)
			}
			for i := 0; i < 3; i++ { // several calls on the one connection keep the sequence numbers in step
				tok, err := c.GetContainerToken(testCtx(t), 1)
				must(t, err)
				if tok.Service != "#1" {
					t.Fatalf("token %+v", tok)
				}
			}
			want := "USER alice@" + testkdc.Realm + " QOP " + tc.want
			if lines := srv.Lines(); !contains(lines, want) {
				t.Fatalf("JDK server printed %q, want a line %q", lines, want)
			}
		})
	}
}

func contains(lines []string, want string) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) == want {
			return true
		}
	}
	return false
}
