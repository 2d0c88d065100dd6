package metrics

import "slices"

// System tags (docs/k6-compat.md#system-tags). vu and iter are metadata, not tags, when enabled:
// they never index a series, a sub-metric or a CSV column.
var (
	defaultSystemTags = []string{
		"check", "error", "error_code", "expected_response", "group", "method", "name", "proto",
		"scenario", "service", "status", "subproto", "tls_version", "url",
	}
	optionalSystemTags = []string{"iter", "ip", "ocsp_status", "vu"}
)

// DefaultSystemTags returns the system tags enabled by default, sorted.
func DefaultSystemTags() []string { return slices.Clone(defaultSystemTags) }

// AllSystemTags returns every system tag name, sorted.
func AllSystemTags() []string {
	all := append(slices.Clone(defaultSystemTags), optionalSystemTags...)
	slices.Sort(all)
	return all
}

// IsSystemTag reports whether k is a system tag name.
func IsSystemTag(k string) bool {
	return slices.Contains(defaultSystemTags, k) || slices.Contains(optionalSystemTags, k)
}

// IsMetadataTag reports whether k is a system tag that k6 records as metadata (vu, iter).
func IsMetadataTag(k string) bool { return k == "vu" || k == "iter" }
