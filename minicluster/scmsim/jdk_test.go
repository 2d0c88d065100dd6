package scmsim

import (
	"encoding/hex"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/minicluster/krbacceptor"
	"github.com/dnecho/dnecho/minicluster/rpcserver"
	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/ozone/hadooprpc/wire"
	"github.com/dnecho/dnecho/proto/hadooppb"
	"github.com/dnecho/dnecho/proto/scmpb"
	"github.com/dnecho/dnecho/testsupport/jdkpeer"
	"github.com/dnecho/dnecho/testsupport/rpcservertest"
	"github.com/dnecho/dnecho/testsupport/testkdc"
)

// The JDK's GSSAPI SaslClient, what a Java Ozone client runs, against the emulated SCM's
// acceptor: every protection, from a keytab and from a kinit ticket cache; the admin check runs
// on the principal's short name.
func TestJDKClientAgainstEmulator(t *testing.T) {
	peers := jdkpeer.Compile(t)
	k := testkdc.Start(t)
	k.AddPrincipals(t, "alice", "bob", "scm/localhost")
	userKT, bobKT, scmKT := k.Keytab(t, "alice.keytab", "alice"), k.Keytab(t, "bob.keytab", "bob"), k.Keytab(t, "scm.keytab", "scm/localhost")
	acc, err := krbacceptor.New(scmKT, "scm/localhost@"+testkdc.Realm)
	if err != nil {
		t.Fatal(err)
	}
	all := []hadooprpc.QOP{hadooprpc.QOPAuthentication, hadooprpc.QOPIntegrity, hadooprpc.QOPPrivacy}
	s := startSCM(t, Config{Admins: []string{"alice"}, RPC: rpcserver.Options{Kerberos: acc, Protection: all}})
	specCluster(t, s)
	alice := "alice@" + testkdc.Realm
	clientID := []byte("0123456789abcdef")
	call := func(user string) (ctx, req []byte) {
		ctx = rpcservertest.Frame(t, wire.RequestHeader(wire.CallIDContext, clientID, -1), &hadooppb.IpcConnectionContextProto{
			UserInfo: &hadooppb.UserInformationProto{EffectiveUser: &user}, Protocol: proto.String(Protocol)})
		r := &scmpb.ScmContainerLocationRequest{CmdType: scmpb.Type_GetContainer.Enum(), TraceID: proto.String(""), Version: proto.Uint32(3),
			GetContainerRequest: &scmpb.GetContainerRequestProto{ContainerID: proto.Int64(1)}}
		return ctx, rpcservertest.Frame(t, wire.RequestHeader(0, clientID, 0), &hadooppb.RequestHeaderProto{MethodName: proto.String("submitRequest"),
			DeclaringClassProtocolName: proto.String(Protocol), ClientProtocolVersion: proto.Uint64(1)}, r)
	}
	for _, tc := range []struct{ qop, want, keytab, ccache string }{
		{"auth", "auth", userKT, ""},
		{"auth-int", "auth-int", "", k.Kinit(t, "alice", userKT, "")},
		{"auth-conf", "auth-conf", userKT, ""},
		{"auth,auth-int,auth-conf", "auth", "", k.Kinit(t, "alice", userKT, "")},
	} {
		t.Run(tc.qop, func(t *testing.T) {
			ctx, req := call(alice)
			out := peers.Run(t, jdkpeer.Client{Krb5Conf: k.Config, Addr: s.Addr(), QOP: tc.qop, Principal: alice,
				Keytab: tc.keytab, CCache: tc.ccache, Context: ctx, Call: req})
			if !strings.Contains(out, "QOP "+tc.want+"\n") {
				t.Fatalf("negotiated: %s", out)
			}
			_, body, ok := strings.Cut(out, "REPLY ")
			if !ok {
				t.Fatalf("no reply: %s", out)
			}
			b, err := hex.DecodeString(strings.TrimSpace(body))
			if err != nil {
				t.Fatal(err)
			}
			var resp scmpb.ScmContainerLocationResponse
			if err := proto.Unmarshal(b, &resp); err != nil || resp.GetGetContainerResponse().GetContainerInfo().GetContainerID() != 1 {
				t.Fatalf("reply %v, %v", &resp, err)
			}
		})
	}
	t.Run("not an administrator", func(t *testing.T) {
		bob := "bob@" + testkdc.Realm
		ctx, req := call(bob)
		out := peers.Run(t, jdkpeer.Client{Krb5Conf: k.Config, Addr: s.Addr(), QOP: "auth-conf", Principal: bob, Keytab: bobKT, Context: ctx, Call: req})
		if !strings.Contains(out, "ERROR org.apache.hadoop.security.AccessControlException: Access denied for user "+bob+". SCM superuser privilege is required.") {
			t.Fatalf("got %s", out)
		}
	})
}
