// Package k8s holds the Kubernetes manifests of a distributed dnecho test; its test checks that
// they parse and carry what k6-operator and Kubernetes need (no cluster runs here).
package k8s

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// docs decodes every document of a YAML file.
func docs(t *testing.T, name string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var out []map[string]any
	for {
		var d map[string]any
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, d)
	}
}

// get walks a decoded document by keys (and list indexes).
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func byKind(t *testing.T, ds []map[string]any, kind string) map[string]any {
	t.Helper()
	for _, d := range ds {
		if d["kind"] == kind {
			return d
		}
	}
	t.Fatalf("no %s", kind)
	return nil
}

func TestTestRun(t *testing.T) {
	ds := docs(t, "testrun.yaml")
	tr := byKind(t, ds, "TestRun")
	cm := byKind(t, ds, "ConfigMap")
	if tr["apiVersion"] != "k6.io/v1alpha1" || get(tr, "spec", "parallelism") != 3 {
		t.Errorf("TestRun header: %v %v", tr["apiVersion"], get(tr, "spec", "parallelism"))
	}
	name, file := get(tr, "spec", "script", "configMap", "name"), get(tr, "spec", "script", "configMap", "file")
	if name != get(cm, "metadata", "name") {
		t.Errorf("script ConfigMap %v, defined %v", name, get(cm, "metadata", "name"))
	}
	script, _ := get(cm, "data", file.(string)).(string)
	if !strings.Contains(script, "export default function") || !strings.Contains(script, "k6/x/dnecho") {
		t.Errorf("ConfigMap %s has no script:\n%s", file, script)
	}
	if img, _ := get(tr, "spec", "runner", "image").(string); !strings.Contains(img, "dnecho") {
		t.Errorf("runner image %q", img)
	}
	env, _ := get(tr, "spec", "runner", "env").([]any)
	found := false
	for _, e := range env {
		found = found || get(e, "name") == "DNECHO_AGGREGATOR"
	}
	if !found {
		t.Error("the runners are not pointed at the aggregator")
	}
}

func TestIndexedJobAndAggregator(t *testing.T) {
	job := byKind(t, docs(t, "indexed-job.yaml"), "Job")
	spec := get(job, "spec").(map[string]any)
	if spec["completionMode"] != "Indexed" || spec["completions"] != spec["parallelism"] || spec["backoffLimit"] != 0 ||
		get(spec, "template", "spec", "restartPolicy") != "Never" {
		t.Errorf("job spec: %v", spec)
	}
	args, _ := get(spec, "template", "spec", "containers", 0, "args", 0).(string)
	for _, want := range []string{"$JOB_COMPLETION_INDEX", "--execution-segment=$i/3:$((i+1))/3", "--execution-segment-sequence=0,1/3,2/3,1", "--aggregator"} {
		if !strings.Contains(args, want) {
			t.Errorf("job command lacks %q: %s", want, args)
		}
	}
	// The shell arithmetic gives each index its segment.
	for i, want := range []string{"0/3:1/3", "1/3:2/3", "2/3:3/3"} {
		out, err := exec.Command("sh", "-c", `i=`+string(rune('0'+i))+`; echo $i/3:$((i+1))/3`).Output()
		if err != nil || strings.TrimSpace(string(out)) != want {
			t.Errorf("index %d: %q %v, want %s", i, out, err, want)
		}
	}
	agg := docs(t, "aggregator.yaml")
	svc, aj := byKind(t, agg, "Service"), byKind(t, agg, "Job")
	if get(svc, "spec", "ports", 0, "port") != 6566 || !strings.Contains(args, get(svc, "metadata", "name").(string)+":6566") {
		t.Errorf("aggregator service %v is not what the job streams to", get(svc, "metadata", "name"))
	}
	aargs, _ := get(aj, "spec", "template", "spec", "containers", 0, "args").([]any)
	if len(aargs) < 3 || aargs[0] != "aggregate" || aargs[2] != "0.0.0.0:6566" {
		t.Errorf("aggregator args %v", aargs)
	}
}

// secretEnv is the Secret name and key an env entry of the list takes its value from.
func secretEnv(env any, name string) (secret, key any) {
	l, _ := env.([]any)
	for _, e := range l {
		if get(e, "name") == name {
			return get(e, "valueFrom", "secretKeyRef", "name"), get(e, "valueFrom", "secretKeyRef", "key")
		}
	}
	return nil, nil
}

// TestToken: the aggregator and every runner read the token from the same Secret; the manifests
// carry no token themselves.
func TestToken(t *testing.T) {
	aj := byKind(t, docs(t, "aggregator.yaml"), "Job")
	secret, key := secretEnv(get(aj, "spec", "template", "spec", "containers", 0, "env"), "DNECHO_AGGREGATOR_TOKEN")
	if secret == nil || key == nil {
		t.Fatal("the aggregator reads no token from a Secret")
	}
	for _, f := range []string{"aggregator.yaml", "testrun.yaml", "indexed-job.yaml"} {
		for _, d := range docs(t, f) {
			if d["kind"] == "Secret" {
				t.Errorf("%s defines the Secret: its value would be the same for everyone", f)
			}
		}
	}
	runners := map[string]any{
		"testrun.yaml":     get(byKind(t, docs(t, "testrun.yaml"), "TestRun"), "spec", "runner", "env"),
		"indexed-job.yaml": get(byKind(t, docs(t, "indexed-job.yaml"), "Job"), "spec", "template", "spec", "containers", 0, "env"),
	}
	for f, env := range runners {
		if s, k := secretEnv(env, "DNECHO_AGGREGATOR_TOKEN"); s != secret || k != key {
			t.Errorf("%s: token from %v/%v, the aggregator's from %v/%v", f, s, k, secret, key)
		}
		// The runners may start before the aggregator's pod is scheduled.
		found := false
		l, _ := env.([]any)
		for _, e := range l {
			if get(e, "name") == "DNECHO_AGGREGATOR_TIMEOUT" {
				d, err := time.ParseDuration(fmt.Sprint(get(e, "value")))
				found = err == nil && d >= time.Minute
			}
		}
		if !found {
			t.Errorf("%s: no DNECHO_AGGREGATOR_TIMEOUT of a minute or more", f)
		}
	}
}

// TestResultsOutliveThePod: the aggregator writes its export and report to a persistent volume,
// which results.yaml mounts to copy them out.
func TestResultsOutliveThePod(t *testing.T) {
	agg := docs(t, "aggregator.yaml")
	claim := get(byKind(t, agg, "PersistentVolumeClaim"), "metadata", "name")
	pod := get(byKind(t, agg, "Job"), "spec", "template", "spec")
	args, _ := get(pod, "containers", 0, "args").([]any)
	mounts := mountedClaims(pod)
	for i, a := range args {
		if (a == "--report" || a == "--summary-export") && i+1 < len(args) {
			path, _ := args[i+1].(string)
			if c, ok := mounts[filepath.Dir(path)]; !ok || c != claim {
				t.Errorf("%s %s is not on the claim %v (mounts %v)", a, path, claim, mounts)
			}
		}
	}
	rp := get(byKind(t, docs(t, "results.yaml"), "Pod"), "spec")
	if c, ok := mountedClaims(rp)["/results"]; !ok || c != claim {
		t.Errorf("results.yaml mounts %v, not the claim %v at /results", mountedClaims(rp), claim)
	}
}

// mountedClaims maps the mount paths of a pod spec's first container to their claim names.
func mountedClaims(pod any) map[string]any {
	claims := map[string]any{}
	vols, _ := get(pod, "volumes").([]any)
	mounts, _ := get(pod, "containers", 0, "volumeMounts").([]any)
	for _, m := range mounts {
		for _, v := range vols {
			if get(v, "name") == get(m, "name") && get(v, "persistentVolumeClaim") != nil {
				claims[get(m, "mountPath").(string)] = get(v, "persistentVolumeClaim", "claimName")
			}
		}
	}
	return claims
}

// TestDockerfile: no Docker engine runs here, so the image's contract is checked in its text:
// a static build, k6 on PATH as a link to dnecho, an unprivileged user.
func TestDockerfile(t *testing.T) {
	_, self, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(self), "..", "..", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"CGO_ENABLED=0", "ln -s /usr/bin/dnecho /usr/bin/k6", "USER 12345", "FROM alpine"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
}
