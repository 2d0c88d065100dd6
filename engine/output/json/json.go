// Package json is the `-o json` output (docs/k6-compat.md#json-output): one JSON object per line, a
// Metric line the first time a metric is seen, then a Point line per sample.
package json

import (
	"bytes"
	stdjson "encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/output"
	"github.com/dnecho/dnecho/engine/threshold"
)

// FlushPeriod is how often queued samples are written (k6: 200 ms).
const FlushPeriod = 200 * time.Millisecond

// Output writes samples as JSON lines to a file, a gzipped file or stdout.
type Output struct {
	fileName   string
	stdout     io.Writer
	thresholds *threshold.Set
	batcher    *output.Batcher

	// Used only by the flush goroutine (and by Stop after it ended).
	dest *output.Dest
	seen map[*metrics.Metric]bool
	buf  []byte
	// tags holds each tag set's JSON object. The engine shares one immutable *Tags between the
	// samples of a series, so most points copy their tags instead of escaping them again.
	tags map[*metrics.Tags][]byte
}

// maxTagCache bounds Output.tags; a script that makes a fresh tag set per sample only pays the
// encoding again.
const maxTagCache = 8192

// New builds the output from -o json[=file]: no argument or "-" is stdout, a ".gz" name is
// gzipped.
func New(p output.Params) (*Output, error) {
	name := p.Arg
	if name == "" {
		name = "-"
	}
	o := &Output{fileName: name, stdout: p.Stdout, thresholds: p.Thresholds, seen: map[*metrics.Metric]bool{},
		tags: map[*metrics.Tags][]byte{}}
	o.batcher = output.NewBatcher(FlushPeriod, o.flush)
	return o, nil
}

// Description implements output.Output.
func (o *Output) Description() string {
	if o.fileName == "-" {
		return "json (stdout)"
	}
	return fmt.Sprintf("json (%s)", o.fileName)
}

// Start opens the destination and starts the periodic flush.
func (o *Output) Start() error {
	d, err := output.OpenDest(o.fileName, o.stdout)
	if err != nil {
		return fmt.Errorf("json output: %w", err)
	}
	o.dest = d
	o.batcher.Start()
	return nil
}

// AddSamples implements output.Output.
func (o *Output) AddSamples(batch []metrics.Sample) { o.batcher.AddSamples(batch) }

// Stop writes what is queued and closes the destination.
func (o *Output) Stop() error {
	err := o.batcher.Stop()
	if o.dest != nil {
		if cerr := o.dest.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("json output %s: %w", o.fileName, err)
	}
	return nil
}

func (o *Output) flush(batches [][]metrics.Sample) error {
	if o.dest == nil {
		return nil // never started: nothing to write to
	}
	b := o.buf[:0]
	for s := range output.Samples(batches) {
		if !o.seen[s.Metric] {
			o.seen[s.Metric] = true
			b = o.appendMetric(b, s.Metric)
		}
		b = appendPoint(b, s, o.tagsOf(s.Tags))
	}
	o.buf = b
	if _, err := o.dest.Write(b); err != nil {
		return err
	}
	return o.dest.Flush()
}

// tagsOf returns the JSON object of a tag set, from the cache.
func (o *Output) tagsOf(t *metrics.Tags) []byte {
	if j, ok := o.tags[t]; ok {
		return j
	}
	if len(o.tags) >= maxTagCache {
		clear(o.tags)
	}
	j := appendTags(nil, t)
	o.tags[t] = j
	return j
}

type submetricJSON struct {
	Name   string            `json:"name"`
	Suffix string            `json:"suffix"`
	Tags   map[string]string `json:"tags"`
}

// appendMetric writes the Metric line: name, type, contains, the metric's threshold sources
// (objects when abortOnFail is set) and its sub-metrics (null when none).
func (o *Output) appendMetric(b []byte, m *metrics.Metric) []byte {
	sources := []threshold.Source{}
	var subs []submetricJSON
	if o.thresholds != nil {
		sources = append(sources, o.thresholds.Sources(m.Name)...)
		for _, sm := range o.thresholds.Submetrics() {
			if sm.Parent == m {
				subs = append(subs, submetricJSON{Name: sm.Name, Suffix: sm.Suffix, Tags: sm.Tags.Map()})
			}
		}
	}
	b = append(b, `{"type":"Metric","data":{"name":`...)
	b = appendString(b, m.Name)
	b = append(b, `,"type":`...)
	b = appendString(b, m.Type.String())
	b = append(b, `,"contains":`...)
	b = appendString(b, m.Contains.String())
	b = append(b, `,"thresholds":`...)
	b = appendJSON(b, sources)
	b = append(b, `,"submetrics":`...)
	b = appendJSON(b, subs)
	b = append(b, `},"metric":`...)
	b = appendString(b, m.Name)
	return append(b, '}', '\n')
}

// appendJSON encodes the rare, small values of Metric lines with encoding/json.
func appendJSON(b []byte, v any) []byte {
	var w bytes.Buffer
	enc := stdjson.NewEncoder(&w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return append(b, "null"...)
	}
	return append(b, bytes.TrimSuffix(w.Bytes(), []byte("\n"))...)
}
