package target_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/ozone/scm"
	"github.com/dnecho/dnecho/ozone/target"
	"github.com/dnecho/dnecho/ozone/token"
)

func start(t *testing.T, o minicluster.Options) (*minicluster.Cluster, string) {
	t.Helper()
	c, err := minicluster.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	dir := t.TempDir()
	if err := c.WriteConf(dir); err != nil {
		t.Fatal(err)
	}
	return c, dir
}

func noEnv(string) string { return "" }

func TestResolveFromConfAndFromSCMAddress(t *testing.T) {
	c, dir := start(t, minicluster.Options{})
	for name, o := range map[string]target.Options{
		"conf":          {ConfDir: dir, ContainerID: 2, Getenv: noEnv},
		"scm":           {SCM: c.SCMAddrs(), ContainerID: 2, Getenv: noEnv},
		"single lookup": {SCM: c.SCMAddrs(), ContainerID: 2, Lookup: scm.LookupWithPipeline, Getenv: noEnv},
		"env":           {ContainerID: 2, Getenv: func(k string) string { return map[string]string{"OZONE_CONF_DIR": dir}[k] }},
	} {
		t.Run(name, func(t *testing.T) {
			tg, err := target.Resolve(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if got := target.PipelineID(tg.Pipeline); got != c.PipelineID() {
				t.Errorf("pipeline %s, want %s", got, c.PipelineID())
			}
			if n := len(tg.Pipeline.GetMembers()); n != 3 {
				t.Errorf("%d members, want 3", n)
			}
			if tg.Token != "" {
				t.Errorf("token %q on a token-less cluster", tg.Token)
			}
		})
	}
}

func TestResolveTokenModes(t *testing.T) {
	_, dir := start(t, minicluster.Options{Tokens: true})
	tg, err := target.Resolve(context.Background(), target.Options{ConfDir: dir, ContainerID: 1, Getenv: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := token.Decode(tg.Token)
	if err != nil {
		t.Fatalf("auto token %q does not decode: %v", tg.Token, err)
	}
	if tok.Kind != "HDDS_CONTAINER_TOKEN" || tok.Service != "#1" {
		t.Errorf("token kind %q service %q", tok.Kind, tok.Service)
	}
	tg, err = target.Resolve(context.Background(), target.Options{ConfDir: dir, ContainerID: 1, Token: target.TokenNone, Getenv: noEnv})
	if err != nil || tg.Token != "" {
		t.Errorf("token none: %q, %v", tg.Token, err)
	}
	tg, err = target.Resolve(context.Background(), target.Options{ConfDir: dir, ContainerID: 1, Token: "AAAAAA", Getenv: noEnv})
	if err != nil || tg.Token != "AAAAAA" {
		t.Errorf("literal token: %q, %v", tg.Token, err)
	}
	if _, err := target.Resolve(context.Background(), target.Options{ConfDir: dir, ContainerID: 1, Token: "!", Getenv: noEnv}); err == nil {
		t.Error("an undecodable literal token was accepted")
	}
}

func TestResolveErrors(t *testing.T) {
	_, dir := start(t, minicluster.Options{})
	if _, err := target.Resolve(context.Background(), target.Options{ContainerID: 1, Getenv: noEnv}); !errors.Is(err, target.ErrNoCluster) {
		t.Errorf("no cluster: %v", err)
	}
	if _, err := target.Resolve(context.Background(), target.Options{ConfDir: dir, ContainerID: 0, Getenv: noEnv}); err == nil {
		t.Error("container id 0 accepted")
	}
	_, err := target.Resolve(context.Background(), target.Options{ConfDir: dir, ContainerID: 42, Getenv: noEnv})
	if !errors.Is(err, scm.ErrContainerNotFound) {
		t.Errorf("unknown container: %v", err)
	}
	start := time.Now()
	_, err = target.Resolve(context.Background(), target.Options{SCM: []string{"127.0.0.1:1"}, ContainerID: 1, LookupTimeout: time.Second, Getenv: noEnv})
	if err == nil || time.Since(start) > 10*time.Second {
		t.Errorf("unreachable SCM: %v after %s", err, time.Since(start))
	}
}

func TestDataNodeOptionsTLSNeedsCA(t *testing.T) {
	c, dir := start(t, minicluster.Options{TLS: true})
	tg, err := target.Resolve(context.Background(), target.Options{ConfDir: dir, ContainerID: 1, Getenv: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.DataNodeOptions(datanode.Options{}, nil); err == nil {
		t.Fatal("TLS enabled by the config without a CA file was accepted")
	}
	o, err := tg.DataNodeOptions(datanode.Options{}, []string{c.Info().CAFile})
	if err == nil && o.TLS == nil {
		t.Fatal("TLS options missing")
	}
	if o.Timeout != 30*time.Second {
		t.Errorf("deadline %s, want the 30s default of ozone.client.read.timeout", o.Timeout)
	}
}

func TestPoolSpreadsTasksOverClients(t *testing.T) {
	_, dir := start(t, minicluster.Options{})
	tg, err := target.Resolve(context.Background(), target.Options{ConfDir: dir, ContainerID: 1, Getenv: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := target.NewPool(tg, datanode.Options{}, 0); err == nil {
		t.Error("a pool of 0 clients was created")
	}
	p, err := target.NewPool(tg, datanode.Options{}, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Len() != 3 || p.For(0) == p.For(1) || p.For(1) != p.For(4) {
		t.Errorf("client i mod 3 not honoured")
	}
	prep, err := p.Prepare(datanode.Request{ContainerID: 1, ReadOnly: true})
	if err != nil || len(prep) != 3 {
		t.Fatalf("prepare: %v", err)
	}
	for i := range uint64(3) {
		if _, err := p.For(i).Echo(context.Background(), prep[i]); err != nil {
			t.Errorf("client %d: %v", i, err)
		}
	}
}
