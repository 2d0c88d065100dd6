package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/dnecho/dnecho/testsupport/realkit"
)

// TestHeapFloor: a script that makes ~100 MB of garbage on a small live heap collects a few times
// at most with dnecho's heap floor, and many times with GOGC=100 (which turns the floor off).
func TestHeapFloor(t *testing.T) {
	script := filepath.Join(t.TempDir(), "garbage.js")
	if err := os.WriteFile(script, []byte(`
export const options = { vus: 1, iterations: 1 };
export default function () {
  let keep = 0;
  for (let i = 0; i < 200000; i++) {
    const o = { a: [i, i + 1, i + 2], b: { c: i } };
    keep += o.a.length;
  }
  if (keep !== 600000) throw new Error("lost count: " + keep);
}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	collections := func(gogc string) int {
		t.Helper()
		cmd := exec.Command(dnechoBinary(t), "run", "-q", "--summary-mode", "disabled", script)
		cmd.Env = []string{"GODEBUG=gctrace=1", "PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
		if gogc != "" {
			cmd.Env = append(cmd.Env, "GOGC="+gogc)
		}
		r := realkit.Run(t, cmd, 60*time.Second)
		if r.Code != 0 {
			t.Fatalf("GOGC=%q: exit %d\n%s", gogc, r.Code, r.Out)
		}
		return len(regexp.MustCompile(`(?m)^gc \d+ @`).FindAllString(r.Out, -1))
	}
	floor, def := collections(""), collections("100")
	t.Logf("collections: %d with the heap floor, %d with GOGC=100", floor, def)
	if def < 6 {
		t.Fatalf("GOGC=100 collected %d times: the script no longer makes enough garbage to tell", def)
	}
	if floor*3 > def {
		t.Errorf("with the heap floor %d collections, with GOGC=100 %d: want at most a third", floor, def)
	}
}
