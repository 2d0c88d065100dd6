package modules

import (
	"sort"

	"github.com/dnecho/dnecho/engine/checktree"
	"github.com/dnecho/dnecho/engine/metrics"
)

// TagSet is a VU's current tags and metadata. Tags come in layers, later ones winning: run tags
// (options.tags), the active scenario's tags plus `scenario`, the tags the script set through
// exec.vu.metrics.tags, and last the `group` tag of the group being run.
//
// Samples need an immutable *metrics.Tags; TagSet builds it only when a layer changes and keeps
// one per group path, so the hot path (an iteration, a check) allocates nothing for tags. A
// TagSet belongs to one VU and is not safe for concurrent use.
type TagSet struct {
	run      map[string]string
	scenario map[string]string
	// user holds exec.vu.metrics.tags writes; a nil value records a deletion.
	user  map[string]*string
	group *checktree.Group

	// metadata is replaced, never modified, once samples may hold it.
	metadata map[string]string

	noGroup *metrics.Tags // all layers but group; nil when stale
	byGroup map[*checktree.Group]*metrics.Tags
	current *metrics.Tags
}

// NewTagSet returns a tag set with the run tags and the root group.
func NewTagSet(run map[string]string, root *checktree.Group) *TagSet {
	t := &TagSet{run: run, group: root}
	t.invalidate()
	return t
}

// Run returns the run tags alone (options.tags, --tag), for samples that belong to the test
// rather than to one VU's scenario or group.
func (t *TagSet) Run() *metrics.Tags {
	return metrics.NewTags(t.run)
}

// Current returns the tags samples should carry now.
func (t *TagSet) Current() *metrics.Tags {
	if t.current == nil {
		t.rebuild()
	}
	return t.current
}

// Metadata returns the VU's metadata (k6: exec.vu.metrics.metadata). The map must not be
// modified; it may be nil.
func (t *TagSet) Metadata() map[string]string { return t.metadata }

// Group returns the group being run; the root group outside any group() call.
func (t *TagSet) Group() *checktree.Group { return t.group }

// SetGroup makes g the current group (and its path the `group` tag).
func (t *TagSet) SetGroup(g *checktree.Group) {
	if g == t.group {
		return
	}
	t.group = g
	t.current = nil
}

// SetScenario starts a scenario activation: the scenario layer becomes tags plus scenario=name
// (name "" sets no scenario tag), and the tags and metadata the script set in the previous
// activation are dropped, as k6 does (grafana/k6 internal/js/runner.go, VU.Activate).
func (t *TagSet) SetScenario(name string, tags map[string]string) {
	t.user, t.metadata = nil, nil
	m := make(map[string]string, len(tags)+1)
	for k, v := range tags {
		m[k] = v
	}
	if name != "" {
		m["scenario"] = name
	}
	t.scenario = m
	t.invalidate()
}

// Get returns the current value of tag k.
func (t *TagSet) Get(k string) (string, bool) { return t.Current().Get(k) }

// Set sets a user tag, overriding run and scenario tags of the same name until the VU's next
// scenario activation. The group tag stays under group()'s control.
func (t *TagSet) Set(k, v string) {
	if t.user == nil {
		t.user = map[string]*string{}
	}
	t.user[k] = &v
	t.invalidate()
}

// Delete removes tag k from the VU's tags, whichever layer set it.
func (t *TagSet) Delete(k string) {
	if t.user == nil {
		t.user = map[string]*string{}
	}
	t.user[k] = nil
	t.invalidate()
}

// Keys returns the names of the current tags, sorted.
func (t *TagSet) Keys() []string {
	list := t.Current().List()
	keys := make([]string, len(list))
	for i, e := range list {
		keys[i] = e.Key
	}
	return keys
}

// SetMetadata sets a metadata entry.
func (t *TagSet) SetMetadata(k, v string) {
	m := make(map[string]string, len(t.metadata)+1)
	for mk, mv := range t.metadata {
		m[mk] = mv
	}
	m[k] = v
	t.metadata = m
}

// DeleteMetadata removes a metadata entry.
func (t *TagSet) DeleteMetadata(k string) {
	if _, ok := t.metadata[k]; !ok {
		return
	}
	m := make(map[string]string, len(t.metadata))
	for mk, mv := range t.metadata {
		if mk != k {
			m[mk] = mv
		}
	}
	if len(m) == 0 {
		m = nil
	}
	t.metadata = m
}

// MetadataKeys returns the metadata names, sorted.
func (t *TagSet) MetadataKeys() []string {
	keys := make([]string, 0, len(t.metadata))
	for k := range t.metadata {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (t *TagSet) invalidate() {
	t.noGroup, t.current = nil, nil
	clear(t.byGroup)
}

func (t *TagSet) rebuild() {
	if t.noGroup == nil {
		m := make(map[string]string, len(t.run)+len(t.scenario)+len(t.user))
		for k, v := range t.run {
			m[k] = v
		}
		for k, v := range t.scenario {
			m[k] = v
		}
		for k, v := range t.user {
			if v == nil {
				delete(m, k)
			} else {
				m[k] = *v
			}
		}
		delete(m, "group")
		t.noGroup = metrics.NewTags(m)
	}
	if tags, ok := t.byGroup[t.group]; ok {
		t.current = tags
		return
	}
	path := ""
	if t.group != nil {
		path = t.group.Path
	}
	t.current = t.noGroup.With("group", path)
	if t.byGroup == nil {
		t.byGroup = map[*checktree.Group]*metrics.Tags{}
	}
	t.byGroup[t.group] = t.current
}
