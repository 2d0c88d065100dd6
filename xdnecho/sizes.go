package xdnecho

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dop251/goja"
)

// sizeUnits are the units a size string may carry. freon's "KB" means KiB (its --payload-*
// options multiply by 1024), so KB and KiB, MB and MiB, GB and GiB are the same: a script ported
// from a freon command line must send the same bytes.
var sizeUnits = map[string]int64{
	"":    1,
	"b":   1,
	"k":   1 << 10,
	"kb":  1 << 10,
	"kib": 1 << 10,
	"m":   1 << 20,
	"mb":  1 << 20,
	"mib": 1 << 20,
	"g":   1 << 30,
	"gb":  1 << 30,
	"gib": 1 << 30,
}

// sizeHelp is appended to every size error so the user sees what is accepted.
const sizeHelp = "want a whole number of bytes, or a string such as '512B', '4KB' (= 4KiB = 4096), '2MB' (= 2MiB)"

// parseSize reads a size option: a non-negative whole number of bytes, or a string of digits
// with an optional unit (case-insensitive). Absent (undefined or null) is 0.
func parseSize(name string, v goja.Value) (int64, error) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return 0, nil
	}
	switch x := v.Export().(type) {
	case int64:
		if x < 0 {
			return 0, fmt.Errorf("%s %d is negative: %s", name, x, sizeHelp)
		}
		return x, nil
	case float64:
		if x < 0 || x != math.Trunc(x) || x > math.MaxInt64/2 {
			return 0, fmt.Errorf("%s %v: %s", name, x, sizeHelp)
		}
		return int64(x), nil
	case string:
		return parseSizeString(name, x)
	}
	return 0, fmt.Errorf("%s %s: %s", name, v.String(), sizeHelp)
}

// parseSizeString parses "4KB", "512 B", "2MiB" or a bare number of bytes.
func parseSizeString(name, s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("%s %q: %s", name, s, sizeHelp)
	}
	if i < len(t) && t[i] == '.' {
		return 0, fmt.Errorf("%s %q: fractions are not supported; %s", name, s, sizeHelp)
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s %q: %s", name, s, sizeHelp)
	}
	mult, ok := sizeUnits[strings.ToLower(strings.TrimSpace(t[i:]))]
	if !ok {
		return 0, fmt.Errorf("%s %q: unknown unit %q; %s", name, s, strings.TrimSpace(t[i:]), sizeHelp)
	}
	if n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%s %q is too large", name, s)
	}
	return n * mult, nil
}
