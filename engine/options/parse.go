package options

import (
	"encoding/csv"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/dnecho/dnecho/engine/null"
	"github.com/dnecho/dnecho/engine/scenario"
)

// envNameRE is what k6 accepts as an -e variable name.
var envNameRE = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// ParseStage parses one -s/--stage value "duration:target", e.g. "30s:10". A stage without a
// target is kept that way, so validation reports it.
func ParseStage(s string) (scenario.Stage, error) {
	durPart, targetPart, hasTarget := strings.Cut(strings.TrimSpace(s), ":")
	d, err := null.ParseDuration(strings.TrimSpace(durPart))
	if err != nil {
		return scenario.Stage{}, fmt.Errorf("stage %q: %w", s, err)
	}
	st := scenario.Stage{Duration: null.From(d)}
	if targetPart = strings.TrimSpace(targetPart); hasTarget && targetPart != "" {
		target, err := strconv.ParseInt(targetPart, 10, 64)
		if err != nil {
			return scenario.Stage{}, fmt.Errorf("stage %q: the target must be a whole number", s)
		}
		st.Target = null.From(target)
	}
	return st, nil
}

// ParseStages parses a list of stages, each "duration:target".
func ParseStages(list []string) ([]scenario.Stage, error) {
	out := make([]scenario.Stage, 0, len(list))
	for _, s := range list {
		if strings.TrimSpace(s) == "" {
			continue
		}
		st, err := ParseStage(s)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// ParseTags parses run tags given as "k=v" items (--tag, K6_TAGS).
func ParseTags(items []string) (map[string]string, error) {
	tags := make(map[string]string, len(items))
	for _, it := range items {
		k, v, ok := strings.Cut(it, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("%q: use name=value", it)
		}
		tags[k] = v
	}
	return tags, nil
}

// ParseEnvVar parses one -e/--env value "NAME=value" (or "NAME", an empty value). NAME must match
// ^[a-zA-Z_][a-zA-Z0-9_]*$.
func ParseEnvVar(s string) (name, value string, err error) {
	name, value, _ = strings.Cut(s, "=")
	if !envNameRE.MatchString(name) {
		return "", "", fmt.Errorf("%q: the variable name must match %s", s, envNameRE)
	}
	return name, value, nil
}

// SplitList splits a comma-separated list, trimming spaces and dropping empty items. Items may
// be double-quoted, as in a CSV line (k6 reads its list flags that way), so `""` is an empty
// list and `"a,b"` one item.
func SplitList(s string) []string {
	r := csv.NewReader(strings.NewReader(s))
	r.LazyQuotes, r.TrimLeadingSpace = true, true
	fields, err := r.Read()
	if err != nil {
		fields = strings.Split(s, ",") // not CSV (a quote inside an item): plain commas
	}
	out := []string{}
	for _, p := range fields {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// ParseEnvTags parses K6_TAGS: comma-separated name:value pairs, k6's form (its environment
// decoder's map syntax), or name=value as --tag takes them; the first ':' or '=' separates.
func ParseEnvTags(s string) (map[string]string, error) {
	items := SplitList(s)
	tags := make(map[string]string, len(items))
	for _, it := range items {
		i := strings.IndexAny(it, ":=")
		if i <= 0 || strings.TrimSpace(it[:i]) == "" {
			return nil, fmt.Errorf("%q: use name:value", it)
		}
		tags[strings.TrimSpace(it[:i])] = it[i+1:]
	}
	return tags, nil
}
