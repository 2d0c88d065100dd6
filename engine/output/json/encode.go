package json

import (
	"math"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/dnecho/dnecho/engine/metrics"
)

// A hand-written encoder for the Point lines, which are most of the output: it appends to one
// reused buffer and allocates nothing per sample. Its output matches encoding/json with HTML
// escaping off (checked by FuzzAppendString and TestPointMatchesEncodingJSON).

func appendPoint(b []byte, s *metrics.Sample, tags []byte) []byte {
	b = append(b, `{"type":"Point","data":{"time":"`...)
	b = s.Time.In(time.Local).AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","value":`...)
	b = appendFloat(b, s.Value)
	b = append(b, `,"tags":`...)
	b = append(b, tags...)
	if len(s.Metadata) > 0 {
		b = append(b, `,"metadata":`...)
		b = appendStringMap(b, s.Metadata)
	}
	b = append(b, `},"metric":`...)
	b = appendString(b, s.Metric.Name)
	return append(b, '}', '\n')
}

// appendTags writes a tag set as a JSON object, in the tag set's order.
func appendTags(b []byte, tags *metrics.Tags) []byte {
	b = append(b, '{')
	for i, t := range tags.List() {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, t.Key)
		b = append(b, ':')
		b = appendString(b, t.Value)
	}
	return append(b, '}')
}

// appendStringMap writes a map with sorted keys, as encoding/json does.
func appendStringMap(b []byte, m map[string]string) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		b = appendString(b, m[k])
	}
	return append(b, '}')
}

// appendFloat formats like encoding/json: shortest representation, exponent form below 1e-6 and
// from 1e21. JSON has no NaN or infinities; they become null (sinks ignore such samples too).
func appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// "1e-07" → "1e-7", as encoding/json does.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hex = "0123456789abcdef"

// appendString writes a JSON string: quotes, backslashes and control characters escaped,
// invalid UTF-8 replaced by U+FFFD, U+2028/U+2029 escaped (JavaScript line terminators), and no
// HTML escaping.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
