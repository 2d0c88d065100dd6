package cli

import (
	"net"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/internal/exitcode"
	"github.com/dnecho/dnecho/minicluster"
)

// -D alone names the cluster (no --conf, no --scm, OZONE_CONF_DIR empty), as in Java freon, whose
// configuration is its defaults plus -D; given before dn-echo as Java's parent option or after it.
func TestFreonOverridesAloneNameTheCluster(t *testing.T) {
	dnechoBinary(t)
	single, err := minicluster.Start(minicluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = single.Close() })
	ha, err := minicluster.Start(minicluster.Options{SCMs: 3})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ha.Close() })
	host, port, _ := net.SplitHostPort(single.SCMAddrs()[0])
	cases := []struct {
		name string
		sets []string
		c    *minicluster.Cluster
	}{
		{"client address", []string{"ozone.scm.client.address=" + single.SCMAddrs()[0]}, single},
		{"names and client port", []string{"ozone.scm.names=" + host, "ozone.scm.client.port=" + port}, single},
		{"SCM HA keys", setsOf(ha.Config()), ha},
	}
	for _, tc := range cases {
		for _, before := range []bool{true, false} {
			args := []string{"freon", "dn-echo", "--container-id", "1", "-n", "20", "-t", "2"}
			var d []string
			for _, kv := range tc.sets {
				d = append(d, "-D", kv)
			}
			if before {
				args = append(append([]string{"freon"}, d...), args[1:]...)
			} else {
				args = append(args, d...)
			}
			t.Run(tc.name+map[bool]string{true: ", before dn-echo", false: ", after dn-echo"}[before], func(t *testing.T) {
				r := dnecho(t, 60*time.Second, args...)
				if r.code != 0 {
					t.Fatalf("exit %d: %s\n%s", r.code, strings.Join(args, " "), r.all())
				}
				mustContain(t, r, "Successful executions: 20")
			})
		}
	}
}

// Without anything that names an SCM the error says how to name one, -D included.
func TestFreonNoClusterNamesD(t *testing.T) {
	r := dnecho(t, 30*time.Second, "freon", "-D", "ozone.client.read.timeout=5s", "dn-echo", "--container-id", "1")
	if r.code != exitcode.Usage {
		t.Fatalf("exit %d, want %d\n%s", r.code, exitcode.Usage, r.all())
	}
	mustContain(t, r, "no cluster given", "-D ozone.scm.client.address=HOST:PORT")
	// An SCM HA service named by -D without its nodes is a usage error naming -D and the key.
	r = dnecho(t, 30*time.Second, "freon", "dn-echo", "--container-id", "1", "-D", "ozone.scm.service.ids=svc")
	if r.code != exitcode.Usage {
		t.Fatalf("exit %d, want %d\n%s", r.code, exitcode.Usage, r.all())
	}
	mustContain(t, r, "-D: config: SCM service \"svc\" has no nodes: ozone.scm.nodes.svc is not set")
}

// setsOf turns configuration properties into -D key=value arguments, in key order.
func setsOf(props map[string]string) []string {
	var out []string
	for k, v := range props {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// run takes -D alone as freon does: the Client of a script that names no cluster reaches the SCM
// the -D keys name.
func TestRunOverridesAloneNameTheCluster(t *testing.T) {
	dnechoBinary(t)
	c, err := minicluster.Start(minicluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	script := writeRunScript(t, "d.js", `import dnecho from 'k6/x/dnecho';
export const options = { vus: 1, iterations: 5 };
const client = new dnecho.Client({ containerId: 1 });
export default function () { if (!client.echo({}).ok) throw new Error('echo failed'); }`)
	r := dnecho(t, 60*time.Second, "run", "-D", "ozone.scm.client.address="+c.SCMAddrs()[0], script)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, "dnecho_reqs")
	// Without -D the script's Client says -D is a way to name the cluster.
	r = dnecho(t, 60*time.Second, "run", script)
	if r.code == 0 {
		t.Fatalf("exit 0 without a cluster\n%s", r.all())
	}
	mustContain(t, r, "no cluster given", "-D ozone.scm.client.address=HOST:PORT")
}
