// Package csv is the `-o csv` output (docs/k6-compat.md#csv-output): one row per
// sample with a column per enabled indexable system tag, the other tags in
// extra_tags and the metadata in metadata.
package csv

import (
	stdcsv "encoding/csv"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/output"
)

// Output writes samples as CSV rows, flushed every SaveInterval.
type Output struct {
	cfg     Config
	stdout  io.Writer
	columns []string       // tag columns, sorted
	colIdx  map[string]int // tag → column offset
	batcher *output.Batcher

	// Used only by the flush goroutine (and by Stop after it ended).
	dest *output.Dest
	w    *stdcsv.Writer
	row  []string
}

// New builds the output from -o csv[=arg] (see ParseConfig).
func New(p output.Params) (*Output, error) {
	cfg, err := ParseConfig(p.Arg, p.Env)
	if err != nil {
		return nil, err
	}
	var cols []string
	for _, t := range p.EnabledSystemTags() {
		if !metrics.IsMetadataTag(t) && !slices.Contains(cols, t) {
			cols = append(cols, t)
		}
	}
	slices.Sort(cols)
	o := &Output{cfg: cfg, stdout: p.Stdout, columns: cols, colIdx: map[string]int{}}
	for i, c := range cols {
		o.colIdx[c] = i
	}
	o.batcher = output.NewBatcher(cfg.SaveInterval, o.flush)
	return o, nil
}

// Description implements output.Output.
func (o *Output) Description() string {
	if o.cfg.FileName == "-" {
		return "csv (stdout)"
	}
	return fmt.Sprintf("csv (%s)", o.cfg.FileName)
}

// Header returns the header row.
func (o *Output) Header() []string {
	h := append([]string{"metric_name", "timestamp", "metric_value"}, o.columns...)
	return append(h, "extra_tags", "metadata")
}

// Start opens the destination, writes the header and starts the periodic flush.
func (o *Output) Start() error {
	d, err := output.OpenDest(o.cfg.FileName, o.stdout)
	if err != nil {
		return fmt.Errorf("csv output: %w", err)
	}
	o.dest, o.w = d, stdcsv.NewWriter(d)
	if err := o.w.Write(o.Header()); err != nil {
		return fmt.Errorf("csv output: %w", err)
	}
	o.batcher.Start()
	return nil
}

// AddSamples implements output.Output.
func (o *Output) AddSamples(batch []metrics.Sample) { o.batcher.AddSamples(batch) }

// Stop writes what is queued and closes the destination.
func (o *Output) Stop() error {
	err := o.batcher.Stop()
	if o.dest != nil {
		o.w.Flush()
		if werr := o.w.Error(); err == nil {
			err = werr
		}
		if cerr := o.dest.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("csv output %s: %w", o.cfg.FileName, err)
	}
	return nil
}

func (o *Output) flush(batches [][]metrics.Sample) error {
	if o.dest == nil {
		return nil
	}
	for s := range output.Samples(batches) {
		if err := o.w.Write(o.format(s)); err != nil {
			return err
		}
	}
	o.w.Flush()
	if err := o.w.Error(); err != nil {
		return err
	}
	return o.dest.Flush()
}

// format fills the reused row for one sample.
func (o *Output) format(s *metrics.Sample) []string {
	n := 3 + len(o.columns) + 2
	if cap(o.row) < n {
		o.row = make([]string, n)
	}
	row := o.row[:n]
	clear(row)
	row[0] = s.Metric.Name
	row[1] = o.timestamp(s.Time)
	row[2] = strconv.FormatFloat(s.Value, 'f', 6, 64)
	var extra strings.Builder
	for _, t := range s.Tags.List() {
		if i, ok := o.colIdx[t.Key]; ok {
			row[3+i] = t.Value
			continue
		}
		appendPair(&extra, t.Key, t.Value)
	}
	row[n-2] = extra.String()
	var meta strings.Builder
	for _, k := range slices.Sorted(maps.Keys(s.Metadata)) {
		appendPair(&meta, k, s.Metadata[k])
	}
	row[n-1] = meta.String()
	return row
}

// appendPair adds k=v to an &-separated list (extra_tags and metadata encoding:
// docs/k6-compat.md#csv-output).
func appendPair(b *strings.Builder, k, v string) {
	if b.Len() > 0 {
		b.WriteByte('&')
	}
	b.WriteString(k)
	b.WriteByte('=')
	b.WriteString(v)
}

func (o *Output) timestamp(t time.Time) string {
	switch o.cfg.TimeFormat {
	case "unix_milli":
		return strconv.FormatInt(t.UnixMilli(), 10)
	case "unix_micro":
		return strconv.FormatInt(t.UnixMicro(), 10)
	case "unix_nano":
		return strconv.FormatInt(t.UnixNano(), 10)
	case "rfc3339":
		return t.Format(time.RFC3339)
	case "rfc3339_nano":
		return t.Format(time.RFC3339Nano)
	}
	return strconv.FormatInt(t.Unix(), 10)
}
