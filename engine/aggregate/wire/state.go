package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/internal/quantile"
)

// State is one push of an instance: its progress and what each series gained since the last
// push. A series is defined (NewSeries) in the first State that carries a delta for it; later
// States refer to it by ID alone.
type State struct {
	// Elapsed is the instance's test run time so far.
	Elapsed time.Duration
	// VUs and VUsMax are the instance's active and initialised VUs.
	VUs, VUsMax int64
	NewSeries   []SeriesDef
	Deltas      []SeriesDelta
}

// SeriesDef names a series: a metric with one tag set.
type SeriesDef struct {
	ID       uint64
	Metric   string
	Type     metrics.MetricType
	Contains metrics.ValueType
	Tags     []metrics.Tag // sorted by key
}

// SeriesDelta is what a series gained; Type repeats the series' metric type so that a State
// decodes without the definitions of earlier States.
type SeriesDelta struct {
	ID    uint64
	Type  metrics.MetricType
	Delta metrics.Delta
}

// Decoder limits: far above what a real instance sends, low enough to refuse garbage early.
const (
	maxString = 1 << 16
	maxTags   = 1 << 10
)

// AppendState encodes s after b.
func AppendState(b []byte, s *State) []byte {
	b = binary.AppendVarint(b, int64(s.Elapsed))
	b = binary.AppendUvarint(b, uint64(max(s.VUs, 0)))
	b = binary.AppendUvarint(b, uint64(max(s.VUsMax, 0)))
	b = binary.AppendUvarint(b, uint64(len(s.NewSeries)))
	for _, d := range s.NewSeries {
		b = binary.AppendUvarint(b, d.ID)
		b = appendString(b, d.Metric)
		b = append(b, byte(d.Type), byte(d.Contains))
		b = binary.AppendUvarint(b, uint64(len(d.Tags)))
		for _, t := range d.Tags {
			b = appendString(appendString(b, t.Key), t.Value)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(s.Deltas)))
	for i := range s.Deltas {
		b = appendDelta(b, &s.Deltas[i])
	}
	return b
}

func appendDelta(b []byte, sd *SeriesDelta) []byte {
	d := &sd.Delta
	b = append(b, byte(sd.Type))
	b = binary.AppendUvarint(b, sd.ID)
	b = binary.AppendUvarint(b, uint64(max(d.N, 0)))
	switch sd.Type {
	case metrics.Counter:
		b = appendFloat(b, d.Sum)
		b = binary.AppendVarint(b, d.First.UnixNano())
		b = binary.AppendVarint(b, d.Last.UnixNano())
	case metrics.Gauge:
		b = appendFloat(appendFloat(appendFloat(b, d.Value), d.Min), d.Max)
		b = binary.AppendVarint(b, d.Last.UnixNano())
	case metrics.Rate:
		b = binary.AppendUvarint(b, uint64(max(d.Trues, 0)))
	case metrics.Trend:
		p := &d.Trend
		b = appendFloat(appendFloat(appendFloat(b, p.Sum), p.Min), p.Max)
		b = binary.AppendUvarint(b, uint64(max(p.Clamped, 0)))
		b = binary.AppendUvarint(b, uint64(len(p.Exact)))
		for _, v := range p.Exact {
			b = appendFloat(b, v)
		}
		b = binary.AppendUvarint(b, uint64(len(p.Buckets)))
		prev := int64(0)
		for _, k := range p.Buckets {
			b = binary.AppendUvarint(b, uint64(k.Value-prev)) // ascending: deltas are small
			b = binary.AppendUvarint(b, uint64(k.Count))
			prev = k.Value
		}
	}
	return b
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func appendFloat(b []byte, f float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
}

// DecodeState decodes a State frame's payload. It never panics on bad input: every count is
// checked against the bytes left, every delta for consistency (a Rate's trues within its
// samples, a Trend's values or buckets adding up to its count, buckets ascending within the
// histogram's range).
func DecodeState(p []byte) (*State, error) {
	r := &reader{b: p}
	s := &State{Elapsed: time.Duration(r.varint()), VUs: r.count(), VUsMax: r.count()}
	n := r.length(4)
	for range n {
		d := SeriesDef{ID: r.uvarint(), Metric: r.string(), Type: metrics.MetricType(r.byte()), Contains: metrics.ValueType(r.byte())}
		nt := r.length(2)
		if nt > maxTags {
			r.fail(fmt.Errorf("%d tags", nt))
		}
		for range nt {
			d.Tags = append(d.Tags, metrics.Tag{Key: r.string(), Value: r.string()})
		}
		if r.err == nil && (d.Type > metrics.Trend || d.Contains > metrics.Data) {
			r.fail(fmt.Errorf("series %q: type %d contains %d", d.Metric, d.Type, d.Contains))
		}
		s.NewSeries = append(s.NewSeries, d)
	}
	n = r.length(3)
	for range n {
		s.Deltas = append(s.Deltas, r.delta())
	}
	if r.err == nil && len(r.b) != 0 {
		r.fail(fmt.Errorf("%d bytes left over", len(r.b)))
	}
	if r.err != nil {
		return nil, fmt.Errorf("decode state: %w", r.err)
	}
	return s, nil
}

func (r *reader) delta() SeriesDelta {
	sd := SeriesDelta{Type: metrics.MetricType(r.byte()), ID: r.uvarint()}
	d := &sd.Delta
	d.N = r.count()
	switch sd.Type {
	case metrics.Counter:
		d.Sum = r.float()
		d.First, d.Last = time.Unix(0, r.varint()), time.Unix(0, r.varint())
	case metrics.Gauge:
		d.Value, d.Min, d.Max = r.float(), r.float(), r.float()
		d.Last = time.Unix(0, r.varint())
	case metrics.Rate:
		if d.Trues = r.count(); d.Trues > d.N {
			r.fail(fmt.Errorf("rate: %d trues of %d", d.Trues, d.N))
		}
	case metrics.Trend:
		r.trend(d)
	default:
		r.fail(fmt.Errorf("metric type %d", sd.Type))
	}
	return sd
}

func (r *reader) trend(d *metrics.Delta) {
	p := &d.Trend
	p.Count = d.N
	p.Sum, p.Min, p.Max = r.float(), r.float(), r.float()
	p.Clamped = r.count()
	ne := r.length(8)
	if ne > 0 {
		p.Exact = make([]float64, 0, ne)
	}
	for range ne {
		p.Exact = append(p.Exact, r.float())
	}
	nb := r.length(2)
	var total, prev int64
	for i := range nb {
		v := prev + r.count()
		c := r.count()
		if (i > 0 && v == prev) || v > quantile.Highest || c <= 0 {
			r.fail(errors.New("trend buckets out of order or range"))
			return
		}
		p.Buckets = append(p.Buckets, quantile.Bucket{Value: v, Count: c})
		total, prev = total+c, v
	}
	switch {
	case r.err != nil:
	case ne > 0 && nb > 0, nb == 0 && int64(ne) != p.Count, nb > 0 && total != p.Count, p.Clamped > p.Count:
		r.fail(fmt.Errorf("trend of %d values with %d kept and %d in buckets", p.Count, ne, total))
	}
}

// reader decodes with the first error sticky: after it every read returns zero.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.b = nil
}

func (r *reader) byte() byte {
	if len(r.b) < 1 {
		r.fail(errors.New("truncated"))
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail(errors.New("truncated or overlong varint"))
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail(errors.New("truncated or overlong varint"))
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads a non-negative int64.
func (r *reader) count() int64 {
	v := r.uvarint()
	if v > math.MaxInt64 {
		r.fail(fmt.Errorf("count %d out of range", v))
		return 0
	}
	return int64(v)
}

// length reads the number of items that follow, each at least minSize bytes long.
func (r *reader) length(minSize int) int {
	v := r.uvarint()
	if v > uint64(len(r.b)/minSize) {
		r.fail(fmt.Errorf("%d items in %d bytes", v, len(r.b)))
		return 0
	}
	return int(v)
}

func (r *reader) string() string {
	n := r.uvarint()
	if n > maxString || n > uint64(len(r.b)) {
		r.fail(fmt.Errorf("string of %d bytes", n))
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *reader) float() float64 {
	if len(r.b) < 8 {
		r.fail(errors.New("truncated"))
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(r.b))
	r.b = r.b[8:]
	return v
}
