package scenario

import (
	"fmt"
	"strings"
)

func fmtSteps[T any](steps []T) string { return fmt.Sprint(steps) }

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
