package xdnecho

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/testsupport/minitest"
)

// TestOneLookupForManyVUs checks the single flight: VUs constructing the same Client at once in
// their init context cause one SCM lookup between them.
func TestOneLookupForManyVUs(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{})
	const src = `
import dnecho from 'k6/x/dnecho';
// VU 0 (the options VU) creates no Client, so every lookup happens in the concurrent VUs below.
export const client = __VU > 0 ? new dnecho.Client({ containerId: 1, scm: __ENV.SCM }) : null;
export const other = __VU > 0 ? new dnecho.Client({ containerId: Number(__ENV.OTHER), scm: __ENV.SCM, target: 'all' }) : null;
export default function () { client.echo(); other.echo(); }`

	// What one lookup of each container costs, measured on a first run.
	before := c.SCM().Requests()
	solo := mustLoad(t, src, map[string]string{"SCM": c.SCMAddrs()[0], "OTHER": "2"})
	solo.vu(t, 1, nil)
	perRun := c.SCM().Requests() - before
	if perRun < 2 {
		t.Fatalf("one VU made %d SCM requests, want at least 2 (two lookups)", perRun)
	}

	rn := mustLoad(t, src, map[string]string{"SCM": c.SCMAddrs()[0], "OTHER": "2"})
	before = c.SCM().Requests()
	const vus = 50
	var wg sync.WaitGroup
	errs := make(chan error, vus)
	for id := uint64(1); id <= vus; id++ {
		wg.Go(func() {
			vu, err := rn.r.NewVU(context.Background(), id, id)
			if err != nil {
				errs <- err
				return
			}
			_ = vu
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := c.SCM().Requests() - before; got != perRun {
		t.Fatalf("%d VUs made %d SCM requests, want %d (one lookup per container)", vus, got, perRun)
	}
}

func TestUnreachableSCMFailsInitQuickly(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close() // nothing listens there any more
	start := time.Now()
	_, err = load(t, `
import dnecho from 'k6/x/dnecho';
const client = new dnecho.Client({ containerId: 7, scm: __ENV.SCM, lookupTimeout: '500ms' });
export default function () { client.echo(); }`, map[string]string{"SCM": addr})
	wantErr(t, err, "dnecho.Client: container 7:", addr)
	if !strings.Contains(err.Error(), "no SCM answered") && !strings.Contains(err.Error(), "did not finish within 500ms") {
		t.Errorf("error does not say the SCM is unreachable: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("init failed after %s, want about the 500ms lookupTimeout", d)
	}
}

func TestUnknownContainer(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{})
	_, err := load(t, `
import dnecho from 'k6/x/dnecho';
const client = new dnecho.Client({ containerId: 99, scm: __ENV.SCM });
export default function () {}`, clusterEnv(c))
	wantErr(t, err, "dnecho.Client: container 99:")
}

func TestDefaults(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{})
	const src = `
import dnecho from 'k6/x/dnecho';
const client = new dnecho.Client({ containerId: 1 });
export default function () { globalThis.r = client.echo(); }`

	t.Setenv("OZONE_CONF_DIR", "")
	useDefaults(t, Defaults{})
	_, err := load(t, src, nil)
	wantErr(t, err, "no cluster given", "scm", "conf", "OZONE_CONF_DIR", "dnecho run --local-cluster")

	// --local-cluster: the defaults name the mini cluster.
	useDefaults(t, Defaults{SCM: c.SCMAddrs()})
	rn := mustLoad(t, src, nil)
	vu := rn.vu(t, 1, nil)
	iterate(t, vu)
	if r := obj(t, vu, "r"); r["ok"] != true {
		t.Fatalf("echo with the default cluster: %v", r)
	}

	// OZONE_CONF_DIR applies when there are no defaults.
	useDefaults(t, Defaults{})
	dir := t.TempDir()
	if err := c.WriteConf(dir); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OZONE_CONF_DIR", dir)
	rn = mustLoad(t, src, nil)
	vu = rn.vu(t, 1, nil)
	iterate(t, vu)
	if r := obj(t, vu, "r"); r["ok"] != true {
		t.Fatalf("echo with OZONE_CONF_DIR: %v", r)
	}
}

func TestPipelineInfo(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{})
	rn := mustLoad(t, `
import dnecho from 'k6/x/dnecho';
const client = new dnecho.Client({ containerId: 2, scm: __ENV.SCM });
export const initInfo = client.pipeline(); // allowed in init, e.g. to build thresholds
export default function () { globalThis.info = client.pipeline(); }`, clusterEnv(c))
	vu := rn.vu(t, 1, nil)
	iterate(t, vu)
	info := obj(t, vu, "info")
	if info["containerId"] != int64(2) || info["pipelineId"] != c.PipelineID() || info["containerState"] != "OPEN" {
		t.Errorf("pipeline() = %v", info)
	}
	dns := info["datanodes"].([]any)
	if len(dns) != len(c.DataNodes()) {
		t.Fatalf("datanodes = %v", dns)
	}
	for i, dn := range c.DataNodes() {
		got := dns[i].(map[string]any)
		if got["uuid"] != dn.UUID() || got["address"] != dn.Addr() || got["hostName"] == "" {
			t.Errorf("datanode %d = %v, want %s at %s", i, got, dn.UUID(), dn.Addr())
		}
	}
}

// TestSecureCluster covers container tokens fetched from SCM and TLS to the DataNodes, with the
// CA file given by the script and by the defaults (as --local-cluster gives it).
func TestSecureCluster(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{Tokens: true, TLS: true})
	dir := t.TempDir()
	if err := c.WriteConf(dir); err != nil {
		t.Fatal(err)
	}
	ca := filepath.Join(dir, minicluster.CAFile)
	const src = `
import dnecho from 'k6/x/dnecho';
const client = new dnecho.Client({ containerId: 1, conf: __ENV.CONF, tlsCA: __ENV.CA });
export default function () { globalThis.r = client.echo(); }`
	for _, tc := range []struct {
		name string
		env  map[string]string
		def  Defaults
	}{
		{"script", map[string]string{"CONF": dir, "CA": ca}, Defaults{}},
		{"defaults", nil, Defaults{ConfDir: dir, CAFiles: []string{ca}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			useDefaults(t, tc.def)
			rn := mustLoad(t, src, tc.env)
			vu := rn.vu(t, 1, nil)
			iterate(t, vu)
			if r := obj(t, vu, "r"); r["ok"] != true {
				t.Fatalf("echo over TLS with a token: %v", r)
			}
		})
	}
	// Without tlsCA the CA certificates come from the cluster's Ozone Manager, as freon takes them.
	useDefaults(t, Defaults{})
	vu := mustLoad(t, src, map[string]string{"CONF": dir}).vu(t, 1, nil)
	iterate(t, vu)
	if r := obj(t, vu, "r"); r["ok"] != true {
		t.Fatalf("echo over TLS with the OM's CA: %v", r)
	}
}
