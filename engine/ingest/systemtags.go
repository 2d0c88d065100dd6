package ingest

import (
	"slices"

	"github.com/dnecho/dnecho/engine/metrics"
)

// attachedSystemTags are the system tags this runtime puts on samples (the k6 modules and the
// scheduler); the other system tags of k6 (url, status, ip, ...) belong to protocols we do not
// have, so they never need filtering.
var attachedSystemTags = []string{"scenario", "group", "check"}

// maxFilterCache bounds the filter's memo: tag sets are shared and few in a normal run, but a
// module that builds a new set per sample must not grow memory without limit.
const maxFilterCache = 4096

// SetEnabledSystemTags makes the collector drop, from every sample it receives afterwards, the
// system tags it attaches that are not in enabled (--system-tags), before it aggregates the
// sample and hands it to the outputs: the script runtime and the scheduler always attach
// scenario, group and check. The enabled set is known only once the script's options are, after
// its VUs have their pusher, hence a setter; samples pushed before it keep every tag. With every
// attached tag enabled (the default) the collector does no filtering at all.
func (c *Collector) SetEnabledSystemTags(enabled []string) {
	f := newTagFilter(enabled)
	c.mu.Lock()
	c.filter = f
	c.mu.Unlock()
}

// tagFilter is the memo of SetEnabledSystemTags; the collector's mutex guards it.
type tagFilter struct {
	disabled []string
	cache    map[*metrics.Tags]*metrics.Tags
}

// newTagFilter returns nil when every attached system tag is enabled.
func newTagFilter(enabled []string) *tagFilter {
	var disabled []string
	for _, t := range attachedSystemTags {
		if !slices.Contains(enabled, t) {
			disabled = append(disabled, t)
		}
	}
	if len(disabled) == 0 {
		return nil
	}
	return &tagFilter{disabled: disabled, cache: map[*metrics.Tags]*metrics.Tags{}}
}

func (f *tagFilter) filter(t *metrics.Tags) *metrics.Tags {
	if t == nil {
		return nil
	}
	if out, ok := f.cache[t]; ok {
		return out
	}
	out := t
	for _, k := range f.disabled {
		if _, has := out.Get(k); has {
			out = out.Without(k)
		}
	}
	if len(f.cache) >= maxFilterCache {
		clear(f.cache)
	}
	f.cache[t] = out
	return out
}
