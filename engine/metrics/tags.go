package metrics

import (
	"sort"
	"strings"
)

// Tag is one key/value pair.
type Tag struct{ Key, Value string }

// Tags is an immutable, sorted set of tags. The zero value and nil are the empty set. Because a
// Tags value never changes, it can be shared between samples and used as a series key.
type Tags struct {
	kv  []Tag
	key string
}

// NewTags builds a tag set from a map.
func NewTags(m map[string]string) *Tags {
	kv := make([]Tag, 0, len(m))
	for k, v := range m {
		kv = append(kv, Tag{k, v})
	}
	return fromUnsorted(kv)
}

func fromUnsorted(kv []Tag) *Tags {
	sort.Slice(kv, func(i, j int) bool { return kv[i].Key < kv[j].Key })
	var b strings.Builder
	for i, t := range kv {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(t.Key)
		b.WriteByte('=')
		b.WriteString(t.Value)
	}
	return &Tags{kv: kv, key: b.String()}
}

// With returns a set that also holds k=v (replacing an existing k).
func (t *Tags) With(k, v string) *Tags {
	if cur, ok := t.Get(k); ok && cur == v {
		return t
	}
	kv := make([]Tag, 0, t.Len()+1)
	if t != nil {
		for _, e := range t.kv {
			if e.Key != k {
				kv = append(kv, e)
			}
		}
	}
	return fromUnsorted(append(kv, Tag{k, v}))
}

// Merge returns a set holding t's tags overridden by other's.
func (t *Tags) Merge(other *Tags) *Tags {
	if other.Len() == 0 {
		return t
	}
	if t.Len() == 0 {
		return other
	}
	m := t.Map()
	for _, e := range other.kv {
		m[e.Key] = e.Value
	}
	return NewTags(m)
}

// Without returns a set without key k.
func (t *Tags) Without(k string) *Tags {
	if _, ok := t.Get(k); !ok {
		return t
	}
	kv := make([]Tag, 0, t.Len())
	for _, e := range t.kv {
		if e.Key != k {
			kv = append(kv, e)
		}
	}
	return fromUnsorted(kv)
}

// Get returns the value of k.
func (t *Tags) Get(k string) (string, bool) {
	if t == nil {
		return "", false
	}
	i := sort.Search(len(t.kv), func(i int) bool { return t.kv[i].Key >= k })
	if i < len(t.kv) && t.kv[i].Key == k {
		return t.kv[i].Value, true
	}
	return "", false
}

// Contains reports whether every tag of sub is in t with the same value (sub-metric matching).
func (t *Tags) Contains(sub *Tags) bool {
	if sub == nil {
		return true
	}
	for _, e := range sub.kv {
		if v, ok := t.Get(e.Key); !ok || v != e.Value {
			return false
		}
	}
	return true
}

// Len is the number of tags.
func (t *Tags) Len() int {
	if t == nil {
		return 0
	}
	return len(t.kv)
}

// List returns the tags sorted by key. The caller must not modify it.
func (t *Tags) List() []Tag {
	if t == nil {
		return nil
	}
	return t.kv
}

// Map returns a fresh map of the tags.
func (t *Tags) Map() map[string]string {
	m := make(map[string]string, t.Len())
	if t != nil {
		for _, e := range t.kv {
			m[e.Key] = e.Value
		}
	}
	return m
}

// Key is a canonical string of the set ("k1=v1,k2=v2"), usable as a map key for series.
func (t *Tags) Key() string {
	if t == nil {
		return ""
	}
	return t.key
}
