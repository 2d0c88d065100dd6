package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scenarioScript reports which scenario ran and how, through its summary export.
const scenarioScript = `
import exec from 'k6/execution';
import { Counter } from 'k6/metrics';
const ran = new Counter('ran');
export const options = { scenarios: { mine: { executor: 'per-vu-iterations', vus: 2, iterations: 2 } } };
export default function () { ran.add(1, { sc: exec.scenario.name, env: __ENV.GREETING || 'none' }); }
`

// TestRunOptionLayering: flags beat K6_* variables, which beat the script, which beats the
// config file; a shortcut flag replaces the script's scenarios with a warning.
func TestRunOptionLayering(t *testing.T) {
	t.Parallel()
	path := writeRunScript(t, "sc.js", scenarioScript)

	r := dnecho(t, runLimit, "run", "-d", "1s", "-u", "1", path)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, `cli\" level configuration overrode scenarios configuration entirely`,
		"* default: 1 looping VUs for 1s (gracefulStop: 30s)")
	if strings.Contains(r.stdout, "* mine") {
		t.Errorf("the script's scenario survived -d:\n%s", r.stdout)
	}

	// K6_ITERATIONS also replaces the scenarios; -i on the command line beats it.
	export := filepath.Join(t.TempDir(), "s.json")
	r = dnechoEnv(t, []string{"K6_ITERATIONS=3", "K6_VUS=1"}, "run", "-q", "--summary-export", export, path)
	if r.code != 0 || readExport(t, export).count("ran") != 3 {
		t.Fatalf("K6_ITERATIONS=3: exit %d, ran %v\n%s", r.code, readExport(t, export).count("ran"), r.all())
	}
	r = dnechoEnv(t, []string{"K6_ITERATIONS=3"}, "run", "-q", "-i", "5", "--summary-export", export, path)
	if got := readExport(t, export).count("ran"); r.code != 0 || got != 5 {
		t.Fatalf("-i 5 over K6_ITERATIONS=3: exit %d, ran %v", r.code, got)
	}

	// The config file is the lowest layer: the script's scenarios win over its iterations.
	cfg := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(cfg, []byte(`{"iterations": 7, "summaryTrendStats": ["avg", "p(99)"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r = dnecho(t, runLimit, "run", "-q", "-c", cfg, "--summary-export", export, path)
	if got := readExport(t, export).count("ran"); r.code != 0 || got != 4 {
		t.Fatalf("config file: exit %d, ran %v\n%s", r.code, got, r.all())
	}
	if _, ok := readExport(t, export).Metrics["iteration_duration"]["p(99)"]; !ok {
		t.Errorf("summaryTrendStats from the config file ignored: %v", readExport(t, export).Metrics["iteration_duration"])
	}
	r = dnecho(t, runLimit, "run", "-q", "-c", filepath.Join(t.TempDir(), "missing.json"), path)
	if r.code != 104 {
		t.Errorf("missing config file: exit %d, want 104", r.code)
	}
}

// TestRunEnvAndTags checks -e, --include-system-env-vars and run tags on the samples.
func TestRunEnvAndTags(t *testing.T) {
	t.Parallel()
	path := writeRunScript(t, "env.js", `
import exec from 'k6/execution';
export default function () {
  if (__ENV.GREETING !== 'hi') exec.test.fail('GREETING=' + __ENV.GREETING);
  if (__ENV.FROM_SYSTEM !== (__ENV.EXPECT_SYSTEM === '1' ? 'yes' : undefined)) exec.test.fail('FROM_SYSTEM=' + __ENV.FROM_SYSTEM);
}`)
	r := dnechoEnv(t, []string{"FROM_SYSTEM=yes"}, "run", "-q", "-e", "GREETING=hi", "-e", "EXPECT_SYSTEM=1", path)
	if r.code != 0 {
		t.Errorf("with system env: exit %d\n%s", r.code, r.all())
	}
	r = dnechoEnv(t, []string{"FROM_SYSTEM=yes"}, "run", "-q", "--include-system-env-vars=false", "-e", "GREETING=hi", path)
	if r.code != 0 {
		t.Errorf("without system env: exit %d\n%s", r.code, r.all())
	}
}

// TestRunTypeScript runs a TypeScript script with a local import.
func TestRunTypeScript(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lib.ts"), []byte(`
export interface Point { x: number; y: number }
export function norm(p: Point): number { return Math.sqrt(p.x * p.x + p.y * p.y); }
`), 0o644); err != nil {
		t.Fatal(err)
	}
	main := filepath.Join(dir, "main.ts")
	if err := os.WriteFile(main, []byte(`
import { check } from 'k6';
import { norm, Point } from './lib.ts';
const p: Point = { x: 3, y: 4 };
export default function (): void {
  check(norm(p), { 'norm is 5': (n: number) => n === 5 });
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := dnecho(t, runLimit, "run", "--no-color", "-i", "2", main)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, "script: "+main, "✓ norm is 5", "checks_succeeded", "100.00% 2 out of 2")
	if strings.Contains(r.stdout, "\x1b[") {
		t.Errorf("colours with --no-color:\n%q", r.stdout)
	}
}

// TestRunScriptFromStdin runs `dnecho run -`.
func TestRunScriptFromStdin(t *testing.T) {
	t.Parallel()
	r := dnechoStdin(t, "export default function () { console.log('FROM STDIN'); }", "run", "-q", "-")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, "FROM STDIN")
}

// TestRunLogFormat checks --log-format json and raw.
func TestRunLogFormat(t *testing.T) {
	t.Parallel()
	path := writeRunScript(t, "log.js", `export default function () { console.warn('careful now'); }`)
	r := dnecho(t, runLimit, "run", "-q", "--log-format", "json", path)
	if r.code != 0 || !strings.Contains(r.stderr, `"msg":"careful now"`) || !strings.Contains(r.stderr, `"level":"WARN"`) {
		t.Errorf("json log: exit %d stderr %q", r.code, r.stderr)
	}
	r = dnechoEnv(t, []string{"K6_LOG_FORMAT=raw"}, "run", "-q", path)
	if r.code != 0 || strings.TrimSpace(r.stderr) != "careful now" {
		t.Errorf("raw log: exit %d stderr %q", r.code, r.stderr)
	}
}
