package xdnecho

import (
	"strings"
	"testing"

	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/testsupport/minitest"
)

func TestClientOptionErrors(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{})
	cases := []struct {
		opts string
		want []string
	}{
		{`{ containerId: 1, scm: __ENV.SCM, contianerId: 2 }`, []string{`unknown option "contianerId"`, "allowed: containerId, scm, conf, set, user, principal, keytab, lookup, lookupTimeout, target, stream, transport, ratis, readOnly, unsafeWrite, clients, deadline, retries, token, tlsCA, reresolve, reresolveAfter, throw, tags"}},
		{`{ scm: __ENV.SCM }`, []string{"option containerId is required"}},
		{`undefined`, []string{"options are required"}},
		{`{ containerId: 0 }`, []string{"option containerId 0: want a positive whole number"}},
		{`{ containerId: 1.5 }`, []string{"option containerId 1.5"}},
		{`{ containerId: '1' }`, []string{"option containerId '1' is a string: want a number, e.g. containerId: 1"}},
		{`{ containerId: 1, scm: __ENV.SCM, target: '' }`, []string{`option target "": is empty; use "first", "all"`}},
		{`{ containerId: 1, scm: __ENV.SCM, target: 'nowhere' }`, []string{`option target nowhere: matches no member of the pipeline`, "UUID, host or address:port of one of"}},
		{`{ containerId: 1, stream: 'shared' }`, []string{`option stream "shared": use new or reuse`}},
		{`{ containerId: 1, transport: 'h3' }`, []string{`option transport "h3": use grpc or h2`}},
		{`{ containerId: 1, ratis: true, transport: 'h2' }`, []string{`option transport "h2": does not apply to the Ratis transport`}},
		{`{ containerId: 1, lookup: 'fast' }`, []string{`option lookup "fast": use freon or single`}},
		{`{ containerId: 1, clients: 0 }`, []string{"option clients 0: want a whole number from 1 to 1024"}},
		{`{ containerId: 1, deadline: 'soon' }`, []string{`option deadline "soon": want a duration`}},
		{`{ containerId: 1, deadline: -5 }`, []string{"option deadline -5ms: must be at least 1ms"}},
		{`{ containerId: 1, retries: 'no' }`, []string{"option retries no: want true or false"}},
		{`{ containerId: 1, token: '' }`, []string{`option token "": is empty`}},
		{`{ containerId: 1, tags: { a: {} } }`, []string{`option tags: the value of "a" must be a string, number or boolean`}},
		{`{ containerId: 1, set: [] }`, []string{"option set: want an object"}},
		{`{ containerId: 1, scm: __ENV.SCM, token: 'not-a-token' }`, []string{"option token: does not decode as a Hadoop token"}},
	}
	for _, tc := range cases {
		t.Run(tc.opts, func(t *testing.T) {
			_, err := load(t, `
import dnecho from 'k6/x/dnecho';
const client = new dnecho.Client(`+tc.opts+`);
export default function () {}`, clusterEnv(c))
			wantErr(t, err, append([]string{"dnecho.Client: "}, tc.want...)...)
		})
	}
}

func TestClientOptionsAccepted(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{})
	dir := t.TempDir()
	if err := c.WriteConf(dir); err != nil {
		t.Fatal(err)
	}
	env := clusterEnv(c)
	env["CONF"] = dir
	env["DN"] = c.DataNodes()[1].UUID()
	rn := mustLoad(t, `
import { Client } from 'k6/x/dnecho';
const clients = [
  new Client({ containerId: 1, scm: __ENV.SCM.split(','), lookup: 'single', deadline: 5000, lookupTimeout: '10s',
               retries: false, token: 'none', tags: { team: 'storage', n: 1, b: true } }),
  new Client({ containerId: 3, conf: __ENV.CONF, set: { 'ozone.client.read.timeout': '5s' }, target: __ENV.DN, stream: 'reuse', transport: 'h2' }),
  new Client({ containerId: 1, scm: __ENV.SCM, conf: undefined, tlsCA: undefined, clients: 3, target: 'first', throw: false }),
];
export default function () { globalThis.out = clients.map((c) => c.echo()); }`, env)
	vu := rn.vu(t, 1, nil)
	iterate(t, vu)
	for i, r := range global(vu, "out").([]any) {
		m := r.(map[string]any)
		if m["ok"] != true {
			t.Errorf("client %d: %v", i, m)
		}
	}
	if got := global(vu, "out").([]any)[1].(map[string]any)["datanode"]; got != env["DN"] {
		t.Errorf("target by uuid went to %v, want %s", got, env["DN"])
	}
}

func TestInitContextRules(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{})
	_, err := load(t, `
import dnecho from 'k6/x/dnecho';
const client = new dnecho.Client({ containerId: 1, scm: __ENV.SCM });
client.echo();
export default function () {}`, clusterEnv(c))
	wantErr(t, err, "client.echo() is not allowed in the init context")

	_, err = load(t, `
import dnecho from 'k6/x/dnecho';
const client = dnecho.Client({ containerId: 1, scm: __ENV.SCM });
export default function () {}`, clusterEnv(c))
	wantErr(t, err, "dnecho.Client must be called with new")

	rn := mustLoad(t, `
import dnecho from 'k6/x/dnecho';
export default function () {
  try { new dnecho.Client({ containerId: 1, scm: __ENV.SCM }); globalThis.msg = 'created'; }
  catch (e) { globalThis.msg = String(e); }
}`, clusterEnv(c))
	vu := rn.vu(t, 1, nil)
	iterate(t, vu)
	if msg := global(vu, "msg").(string); !strings.Contains(msg, MsgClientOutsideInit) {
		t.Errorf("Client in VU code: %q", msg)
	}
}
