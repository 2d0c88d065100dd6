package loader

import (
	"encoding/json"
	"errors"
	"sort"
	"strings"
)

// Source maps (format: "Source Map Revision 3"): "mappings" holds one group per generated line,
// separated by ';', of ','-separated segments. Each segment is 1, 4 or 5 base64 VLQ numbers:
// generated column, source index, source line, source column, name index. The generated column
// is relative to the previous segment of the same line; the other fields are relative to the
// previous segment that has them, across lines. Lines and columns are 0-based.
//
// goja looks positions up with a 1-based column and reports the mapped column as stored. So that
// its answers are exact and 1-based, adjustSourceMap rewrites esbuild's map to use 1-based
// generated and source columns; it also moves every mapping down one line for the wrapper header.

// segment is one decoded mapping with absolute values.
type segment struct {
	genLine, genCol          int
	fields                   int // 1, 4 or 5
	src, srcLine, srcCol, nm int
}

// sourceMap is the adjusted map: raw JSON for goja plus the decoded segments for our own lookups.
type sourceMap struct {
	raw  []byte
	segs []segment // sorted by (genLine, genCol)
}

// adjustSourceMap shifts esbuild's map one line down and makes its columns 1-based.
func adjustSourceMap(raw []byte) (*sourceMap, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	var mappings string
	if err := json.Unmarshal(m["mappings"], &mappings); err != nil {
		return nil, err
	}
	segs, err := decodeMappings(mappings)
	if err != nil {
		return nil, err
	}
	for i := range segs {
		segs[i].genLine++
		segs[i].genCol++
		segs[i].srcCol++
	}
	enc, err := json.Marshal(encodeMappings(segs))
	if err != nil {
		return nil, err
	}
	m["mappings"] = enc
	out, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return &sourceMap{raw: out, segs: segs}, nil
}

// lookup maps a generated position (1-based line and column, in the wrapped code) to the
// original 1-based line and column: the last segment at or before the position on that line.
func (sm *sourceMap) lookup(line, col int) (srcLine, srcCol int, ok bool) {
	// Columns in segs are 1-based and lines 0-based, as adjusted.
	l := line - 1
	i := sort.Search(len(sm.segs), func(i int) bool {
		s := sm.segs[i]
		return s.genLine > l || (s.genLine == l && s.genCol > col)
	})
	if i == 0 {
		return 0, 0, false
	}
	s := sm.segs[i-1]
	if s.genLine != l || s.fields < 4 {
		return 0, 0, false
	}
	return s.srcLine + 1, s.srcCol, true
}

const vlqChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

var errBadMappings = errors.New("invalid source map mappings")

func decodeMappings(s string) ([]segment, error) {
	var (
		segs                 []segment
		line                 int
		src, srcLine, srcCol int
		nm                   int
	)
	for _, group := range strings.Split(s, ";") {
		genCol := 0
		for _, seg := range strings.Split(group, ",") {
			if seg == "" {
				continue
			}
			vals, err := decodeVLQs(seg)
			if err != nil {
				return nil, err
			}
			if len(vals) != 1 && len(vals) != 4 && len(vals) != 5 {
				return nil, errBadMappings
			}
			genCol += vals[0]
			sg := segment{genLine: line, genCol: genCol, fields: len(vals)}
			if len(vals) >= 4 {
				src += vals[1]
				srcLine += vals[2]
				srcCol += vals[3]
				sg.src, sg.srcLine, sg.srcCol = src, srcLine, srcCol
			}
			if len(vals) == 5 {
				nm += vals[4]
				sg.nm = nm
			}
			segs = append(segs, sg)
		}
		line++
	}
	return segs, nil
}

func decodeVLQs(s string) ([]int, error) {
	var vals []int
	shift, acc := 0, 0
	for i := 0; i < len(s); i++ {
		d := strings.IndexByte(vlqChars, s[i])
		if d < 0 || shift > 60 {
			return nil, errBadMappings
		}
		acc |= (d & 0x1f) << shift
		if d&0x20 != 0 {
			shift += 5
			continue
		}
		v := acc >> 1
		if acc&1 != 0 {
			v = -v
		}
		vals = append(vals, v)
		shift, acc = 0, 0
	}
	if shift != 0 {
		return nil, errBadMappings
	}
	return vals, nil
}

func encodeMappings(segs []segment) string {
	var (
		b                    strings.Builder
		line                 int
		genCol               int
		src, srcLine, srcCol int
		nm                   int
		first                = true
	)
	for _, s := range segs {
		for line < s.genLine {
			b.WriteByte(';')
			line++
			genCol, first = 0, true
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		encodeVLQ(&b, s.genCol-genCol)
		genCol = s.genCol
		if s.fields >= 4 {
			encodeVLQ(&b, s.src-src)
			encodeVLQ(&b, s.srcLine-srcLine)
			encodeVLQ(&b, s.srcCol-srcCol)
			src, srcLine, srcCol = s.src, s.srcLine, s.srcCol
		}
		if s.fields == 5 {
			encodeVLQ(&b, s.nm-nm)
			nm = s.nm
		}
	}
	return b.String()
}

func encodeVLQ(b *strings.Builder, v int) {
	u := v << 1
	if v < 0 {
		u = (-v << 1) | 1
	}
	for {
		d := u & 0x1f
		u >>= 5
		if u != 0 {
			d |= 0x20
		}
		b.WriteByte(vlqChars[d])
		if u == 0 {
			return
		}
	}
}
