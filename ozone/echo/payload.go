package echo

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
)

// PayloadUnit is the multiplier of freon's --payload-req and --payload-resp (KB means KiB).
const PayloadUnit = 1024

// payloadSeed is generated once per process, as freon's is once per JVM
// (Ozone: hadoop-ozone/common/src/main/java/org/apache/hadoop/ozone/util/PayloadUtils.java).
var payloadSeed = sync.OnceValue(func() []byte {
	b := make([]byte, PayloadUnit)
	rand.Read(b) // never fails (crypto/rand, Go 1.24+)
	return b
})

// payload returns n bytes of freon's request payload: the process's 1024-byte random seed
// repeated, cut to n so that sizes need not be whole KiB. n is within 0..MaxRequestBytes.
func payload(n int64) []byte {
	return payloadFromSeed(payloadSeed(), n)
}

func payloadFromSeed(seed []byte, n int64) []byte {
	if n <= 0 || len(seed) == 0 {
		return []byte{} // present and empty on the wire
	}
	reps := int((n + int64(len(seed)) - 1) / int64(len(seed)))
	return bytes.Repeat(seed, reps)[:n]
}

// responseSize is echo.payloadSizeResp: min(n, MaxResponseBytes) like freon, or n up to the
// int32 field when uncapped.
func responseSize(n int64, uncapped bool) int32 {
	switch {
	case n <= 0:
		return 0
	case !uncapped:
		return int32(min(n, MaxResponseBytes))
	}
	return int32(min(n, math.MaxInt32))
}

// sizeUnits are the units a size may carry. freon's "KB" means KiB (its --payload-* options
// multiply by 1024), so KB and KiB, MB and MiB, GB and GiB are the same: a script ported from a
// freon command line must send the same bytes.
var sizeUnits = map[string]int64{
	"": 1, "b": 1,
	"k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
	"m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20,
	"g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30,
}

// SizeHelp says what ParseSize accepts.
const SizeHelp = "want a whole number of bytes, or a size such as 512B, 4KB (= 4KiB = 4096 bytes), 2MB (= 2MiB)"

// ParseSize reads a size: digits with an optional unit (case-insensitive, spaces allowed), a
// bare number being bytes.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	switch {
	case strings.HasPrefix(t, "-"):
		return 0, fmt.Errorf("is negative: %s", SizeHelp)
	case i == 0:
		return 0, fmt.Errorf("%s", SizeHelp)
	case i < len(t) && t[i] == '.':
		return 0, fmt.Errorf("fractions are not supported; %s", SizeHelp)
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("is too large; %s", SizeHelp)
	}
	unit := strings.TrimSpace(t[i:])
	mult, ok := sizeUnits[strings.ToLower(unit)]
	if !ok {
		return 0, fmt.Errorf("unknown unit %q; %s", unit, SizeHelp)
	}
	if n > math.MaxInt64/mult {
		return 0, fmt.Errorf("is too large; %s", SizeHelp)
	}
	return n * mult, nil
}
