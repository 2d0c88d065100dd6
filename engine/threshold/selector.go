package threshold

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dnecho/dnecho/engine/metrics"
)

// selector is a parsed threshold key: a metric name and, for `metric{k:v,...}`, the tags a sample
// must contain.
type selector struct {
	metric string
	suffix string // canonical "k:v,k2:v2": keys and values trimmed and unquoted, in written order
	tags   *metrics.Tags
	keys   []string
}

// name is the canonical sink name: the metric, or "metric{suffix}".
func (s selector) name() string {
	if s.suffix == "" {
		return s.metric
	}
	return s.metric + "{" + s.suffix + "}"
}

// parseKey applies docs/k6-compat.md#sub-metric-selectors: the first '{' and the last '}' delimit
// the selector, so values may themselves contain braces; pairs split on ',' then on the first
// ':'; spaces and quote marks are stripped from keys and values, which must not be empty.
func parseKey(key string) (selector, error) {
	open := strings.IndexByte(key, '{')
	if open < 0 {
		if strings.ContainsRune(key, '}') {
			return selector{}, errors.New("sub-metric selector has a '}' but no '{'")
		}
		return selector{metric: strings.TrimSpace(key)}, nil
	}
	if !strings.HasSuffix(key, "}") {
		return selector{}, errors.New("sub-metric selector must end with '}'")
	}
	sel := selector{metric: strings.TrimSpace(key[:open])}
	inner := key[open+1 : len(key)-1]
	if strings.TrimSpace(inner) == "" {
		return selector{}, errors.New("sub-metric selector has no tags")
	}
	tags := map[string]string{}
	var parts []string
	for _, pair := range strings.Split(inner, ",") {
		k, v, found := strings.Cut(pair, ":")
		if !found {
			return selector{}, fmt.Errorf("sub-metric selector entry %q is not of the form key:value", strings.TrimSpace(pair))
		}
		k, v = clean(k), clean(v)
		if k == "" {
			return selector{}, fmt.Errorf("sub-metric selector entry %q has an empty key", strings.TrimSpace(pair))
		}
		if v == "" {
			return selector{}, fmt.Errorf("sub-metric selector entry %q has an empty value", strings.TrimSpace(pair))
		}
		if _, dup := tags[k]; !dup {
			sel.keys = append(sel.keys, k)
		}
		tags[k] = v
		parts = append(parts, k+":"+v)
	}
	sel.suffix = strings.Join(parts, ",")
	sel.tags = metrics.NewTags(tags)
	return sel, nil
}

func clean(s string) string { return strings.Trim(strings.TrimSpace(s), `"'`) }
