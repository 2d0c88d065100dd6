package cli

import (
	"archive/tar"
	"bytes"
	"strings"
	"testing"
	"time"
)

// Bad values are refused before any network work, at once, with one line naming the flag or key.
// The SCM at 127.0.0.1:1 never answers: a check that came after the lookup
// would take its whole timeout.
func TestBadInputsFailFast(t *testing.T) {
	t.Parallel()
	freon := []string{"freon", "dn-echo", "--scm", "127.0.0.1:1", "--container-id", "1"}
	junk := writeRunScript(t, "junk.tar", "\x00\x01 export default function () {} \xff\xfe")
	var plain bytes.Buffer // a tar of a script, not an archive dnecho wrote
	tw := tar.NewWriter(&plain)
	if err := tw.WriteHeader(&tar.Header{Name: "test.js", Mode: 0o644, Size: 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write([]byte("{}")); err != nil || tw.Close() != nil {
		t.Fatal("tar", err)
	}
	plainTar := writeRunScript(t, "test.bundle", plain.String())
	overflow := writeRunScript(t, "overflow.js", "function f(n) { return f(n + 1) + 1; }\nf(0);\nexport default function () {}\n")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"freon -o", append(freon, "-o", "carrier-pigeon"), `unsupported output type "carrier-pigeon"`},
		{"--scm host:", []string{"freon", "dn-echo", "--scm", "127.0.0.1:", "--container-id", "1"}, `"--scm"`},
		{"authentication", append(freon, "-D", "hadoop.security.authentication=bogus"), "hadoop.security.authentication"},
		{"read timeout", append(freon, "-D", "ozone.client.read.timeout=-5s"), "ozone.client.read.timeout"},
		{"junk .tar", []string{"run", junk}, "junk.tar: not a test archive"},
		{"a tar that is not an archive", []string{"run", plainTar}, "test.bundle: not a test archive"},
		{"stack overflow", []string{"run", overflow}, "overflow.js:1:24: RangeError: Maximum call stack size exceeded\n\tat f ("},
		{"aggregate --instances", []string{"aggregate", "--listen", "127.0.0.1:0", "--instances", "0"}, "--instances 0"},
		{"aggregate --threshold-interval", []string{"aggregate", "--listen", "127.0.0.1:0", "--threshold-interval", "-1s"}, "--threshold-interval -1s"},
		{"aggregate --join-timeout", []string{"aggregate", "--listen", "127.0.0.1:0", "--join-timeout", "0s"}, "--join-timeout 0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := dnecho(t, 30*time.Second, tc.args...)
			if r.code == 0 || r.took > 5*time.Second || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("exit %d after %s, want non-zero at once with %q\n%s", r.code, r.took, tc.want, r.all())
			}
			if strings.Contains(r.all(), "still waiting for SCM") {
				t.Errorf("SCM was asked before the check:\n%s", r.all())
			}
		})
	}
}

// TestBadAddressesFailFast: a malformed address is refused before the run starts, naming the
// flag or the environment variable it came from, instead of being dialled until a timeout (the
// aggregator: 30 s, then exit 255).
func TestBadAddressesFailFast(t *testing.T) {
	t.Parallel()
	empty := writeRunScript(t, "empty.js", "export default function () {}\n")
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"--aggregator", nil, []string{"run", "--aggregator", "notanaddr", empty}, `--aggregator "notanaddr": want host:port`},
		{"--aggregator port", nil, []string{"run", "--aggregator", "agg:99999", empty}, `--aggregator "agg:99999": port "99999"`},
		{"DNECHO_AGGREGATOR", []string{"DNECHO_AGGREGATOR=agg:"}, []string{"run", empty}, `DNECHO_AGGREGATOR="agg:": port ""`},
		// Dialled, these failed every export and the run ended 0 (the loss only in a warning).
		{"OTLP gRPC endpoint", []string{"K6_OTEL_GRPC_EXPORTER_ENDPOINT=otel:99999"}, []string{"run", "-o", "opentelemetry", empty},
			`K6_OTEL_GRPC_EXPORTER_ENDPOINT="otel:99999": port "99999"`},
		{"OTLP HTTP endpoint", []string{"K6_OTEL_EXPORTER_PROTOCOL=http/protobuf", "K6_OTEL_HTTP_EXPORTER_ENDPOINT=notanaddr"},
			[]string{"run", "-o", "opentelemetry", empty}, `K6_OTEL_HTTP_EXPORTER_ENDPOINT="notanaddr": want host:port`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := dnechoEnvLimit(t, 45*time.Second, tc.env, append([]string{"--quiet"}, tc.args...)...)
			if r.code != 104 || r.took > 5*time.Second || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("exit %d after %s, want 104 at once with %q\n%s", r.code, r.took, tc.want, r.all())
			}
		})
	}
}
