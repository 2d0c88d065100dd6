package cli

import (
	"strings"
	"testing"
)

// TestK6OptionForms: the command line and environment take k6's forms (K6_TAGS=name:value,
// --system-tags '""' for none) and refuse what k6 refuses (a duration without its unit), with
// one line naming the flag or variable and exit 104.
func TestK6OptionForms(t *testing.T) {
	t.Parallel()
	script := writeRunScript(t, "test.js", `
import exec from 'k6/execution';
export const options = { iterations: 1 };
export default function () {
  console.log('TAGS ' + JSON.stringify(exec.test.options.tags) + ' SYS ' + JSON.stringify(exec.test.options.systemTags));
}`)
	r := dnechoEnv(t, []string{"K6_TAGS=team:ozone"}, "run", "-q", "--system-tags", `""`, script)
	if r.code != 0 || !strings.Contains(r.all(), `TAGS {\"team\":\"ozone\"} SYS []`) {
		t.Errorf("K6_TAGS=team:ozone --system-tags '\"\"': exit %d\n%s", r.code, r.all())
	}
	for _, tc := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"--duration", "1000"}, `--duration: invalid duration "1000": missing unit`},
		{[]string{"K6_DURATION=1000"}, nil, `K6_DURATION: invalid duration "1000": missing unit`},
	} {
		r := dnechoEnv(t, tc.env, append(append([]string{"run", "-q"}, tc.args...), script)...)
		if r.code != 104 || !strings.Contains(r.stderr, tc.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%v %v: exit %d, want 104 and one line with %q\n%s", tc.env, tc.args, r.code, tc.want, r.all())
		}
	}
}
