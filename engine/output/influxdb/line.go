package influxdb

import (
	"math"
	"strconv"
	"strings"

	"github.com/dnecho/dnecho/engine/metrics"
)

// encoder turns samples into InfluxDB line protocol:
//
//	<metric>,<tag>=<value>,... value=<float>[,<tagAsField>=<typed value>] <timestamp>
//
// The measurement is the metric name, the tags are the sample's tags except the tagsAsFields
// ones, which become typed fields. Empty tag values are left out: InfluxDB rejects them (the
// root group's group="" would fail a whole write). Metadata (vu, iter) is not written, as in k6.
// The part before the value is cached per metric and tag set, which the engine shares between
// samples, so the common sample costs a cache hit, a float and a timestamp.
type encoder struct {
	fields map[string]FieldKind
	div    int64 // ns per timestamp unit
	cache  map[encKey]*encEntry
}

type encKey struct {
	m *metrics.Metric
	t *metrics.Tags
}

type encEntry struct {
	head   []byte // "measurement,tags value="
	fields []byte // ",field=value..." from tagsAsFields
}

// maxEncCache bounds the encoder's cache; a script that makes a fresh tag set per sample only
// pays the encoding again.
const maxEncCache = 8192

func newEncoder(fields []FieldSpec, div int64) *encoder {
	e := &encoder{fields: map[string]FieldKind{}, div: div, cache: map[encKey]*encEntry{}}
	for _, f := range fields {
		e.fields[f.Tag] = f.Kind
	}
	return e
}

// append adds s as one line; ok is false for a value line protocol cannot carry (NaN, ±Inf).
func (e *encoder) append(b []byte, s *metrics.Sample) ([]byte, bool) {
	if math.IsNaN(s.Value) || math.IsInf(s.Value, 0) {
		return b, false
	}
	k := encKey{s.Metric, s.Tags}
	ent := e.cache[k]
	if ent == nil {
		ent = e.entry(s.Metric, s.Tags)
		if len(e.cache) >= maxEncCache {
			clear(e.cache)
		}
		e.cache[k] = ent
	}
	b = append(b, ent.head...)
	b = strconv.AppendFloat(b, s.Value, 'f', -1, 64)
	b = append(b, ent.fields...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, s.Time.UnixNano()/e.div, 10)
	return append(b, '\n'), true
}

func (e *encoder) entry(m *metrics.Metric, tags *metrics.Tags) *encEntry {
	ent := &encEntry{}
	h := appendEscaped(nil, m.Name, measurementEscapes)
	var f []byte
	for _, t := range tags.List() {
		if kind, ok := e.fields[t.Key]; ok {
			f = append(f, ',')
			f = appendEscaped(f, t.Key, keyEscapes)
			f = append(f, '=')
			f = appendField(f, t.Value, kind)
			continue
		}
		if t.Key == "" || t.Value == "" {
			continue
		}
		h = append(h, ',')
		h = appendEscaped(h, t.Key, keyEscapes)
		h = append(h, '=')
		h = appendEscaped(h, t.Value, keyEscapes)
	}
	ent.head = append(h, " value="...)
	ent.fields = f
	return ent
}

// appendField writes a tag value converted to kind; a value that does not convert is written
// as a string, as k6 does.
func appendField(b []byte, v string, kind FieldKind) []byte {
	switch kind {
	case Int:
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return append(strconv.AppendInt(b, n, 10), 'i')
		}
	case Float:
		if f, err := strconv.ParseFloat(v, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return strconv.AppendFloat(b, f, 'f', -1, 64)
		}
	case Bool:
		if t, err := strconv.ParseBool(v); err == nil {
			return strconv.AppendBool(b, t)
		}
	}
	b = append(b, '"')
	b = appendEscaped(b, v, stringEscapes)
	return append(b, '"')
}

// Line protocol escapes (InfluxDB docs, "Line protocol: special characters"): measurements
// escape commas and spaces; tag keys, tag values and field keys also escape equals signs;
// string field values escape double quotes and backslashes. Newlines cannot be carried in any
// of them and become spaces.
var (
	measurementEscapes = strings.NewReplacer(",", `\,`, " ", `\ `, "\n", `\ `, "\r", `\ `)
	keyEscapes         = strings.NewReplacer(",", `\,`, " ", `\ `, "=", `\=`, "\n", `\ `, "\r", `\ `)
	stringEscapes      = strings.NewReplacer(`"`, `\"`, `\`, `\\`, "\n", " ", "\r", " ")
)

func appendEscaped(b []byte, s string, r *strings.Replacer) []byte {
	return append(b, r.Replace(s)...)
}
