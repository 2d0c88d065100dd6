// Package influxdb is the `-o influxdb` output (InfluxDB v1 line protocol over HTTP or UDP, k6's
// URL form and K6_INFLUXDB_* settings) and the `-o xk6-influxdb` output (the InfluxDB v2 API with
// organisation, bucket and token: InfluxDB 2.x and InfluxDB Cloud, with the names of the
// grafana/xk6-output-influxdb extension). Every sample becomes one point; writes go through a
// sender.Sender, so a store that is down or slow never slows the load and losses are counted.
package influxdb

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/output"
	"github.com/dnecho/dnecho/engine/output/sender"
)

// MaxBodyBytes splits a flush into writes of about this size: InfluxDB advises batches of a few
// thousand points, and a bounded body keeps one slow write from holding a whole second of samples.
const MaxBodyBytes = 1 << 20

// Output writes samples to InfluxDB.
type Output struct {
	cfg     Config
	log     *slog.Logger
	batcher *output.Batcher
	sender  *sender.Sender
	client  *http.Client
	udp     net.Conn

	// Used by the flush goroutine only.
	enc       *encoder
	lineBytes int // bytes per line in the last flush: sizes the next body

	invalid atomic.Int64 // samples with a value line protocol cannot carry
}

// New builds -o influxdb[=URL] (v1) or, with v2, -o xk6-influxdb[=URL].
func New(p output.Params, v2 bool) (*Output, error) {
	cfg, err := NewConfig(v2, p.Env, p.Arg)
	if err != nil {
		return nil, err
	}
	log := p.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	o := &Output{cfg: cfg, log: log, enc: newEncoder(cfg.TagsAsFields, cfg.precisionDiv())}
	send := o.sendUDP
	if !cfg.udp() {
		if o.client, err = sender.NewHTTPClient(sender.TLS{InsecureSkipVerify: cfg.Insecure}, DefaultTimeout, cfg.Proxy); err != nil {
			return nil, fmt.Errorf("influxdb: %w", err)
		}
		send = sender.HTTPPost{Client: o.client, URL: cfg.writeURL(), Header: o.headers()}.Send
	}
	name := "influxdb"
	if v2 {
		name = "xk6-influxdb"
	}
	o.sender = sender.New(sender.Config{Name: name, Workers: cfg.ConcurrentWrites, Logger: log}, o.hint(send))
	o.batcher = output.NewBatcher(cfg.PushInterval, o.flush)
	o.batcher.SetLimit(output.DefaultPendingLimit)
	return o, nil
}

// Description implements output.Output.
func (o *Output) Description() string { return o.cfg.description() }

// Config returns the consolidated settings.
func (o *Output) Config() Config { return o.cfg }

func (o *Output) headers() http.Header {
	h := http.Header{"Content-Type": {"text/plain; charset=utf-8"}, "User-Agent": {"dnecho"}}
	switch {
	case o.cfg.V2:
		h.Set("Authorization", "Token "+o.cfg.Token)
	case o.cfg.Username != "":
		h.Set("Authorization", sender.BasicAuth(o.cfg.Username, o.cfg.Password))
	}
	return h
}

// hint adds k6's advice to the error of a v1 write refused by an InfluxDB 2.x server.
func (o *Output) hint(send sender.SendFunc) sender.SendFunc {
	if o.cfg.V2 {
		return send
	}
	return func(ctx context.Context, body []byte) error {
		err := send(ctx, body)
		if err != nil && strings.Contains(err.Error(), "unauthorized access") {
			err = fmt.Errorf("%w (InfluxDB 2.x and Cloud need -o xk6-influxdb with K6_INFLUXDB_ORGANIZATION, K6_INFLUXDB_BUCKET and K6_INFLUXDB_TOKEN)", err)
		}
		return err
	}
}

// Start creates the database (v1 over HTTP; failure is ignored: the user may lack the right, or
// it may exist) and starts the flushes.
func (o *Output) Start() error {
	if o.cfg.udp() {
		c, err := net.Dial("udp", strings.TrimPrefix(o.cfg.Addr, "udp://"))
		if err != nil {
			return fmt.Errorf("influxdb: %w", err)
		}
		o.udp = c
	} else if !o.cfg.V2 {
		o.createDatabase()
	}
	o.sender.Start()
	o.batcher.Start()
	return nil
}

func (o *Output) createDatabase() {
	q := url.Values{"q": {`CREATE DATABASE "` + strings.ReplaceAll(o.cfg.DB, `"`, `\"`) + `"`}}
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout/2)
	defer cancel()
	h := o.headers()
	h.Set("Content-Type", "application/x-www-form-urlencoded")
	err := sender.HTTPPost{Client: o.client, URL: o.cfg.Addr + "/query", Header: h}.Send(ctx, []byte(q.Encode()))
	if err != nil {
		o.log.Debug("influxdb: could not create the database (usually harmless)", "db", o.cfg.DB, "error", err)
	}
}

// AddSamples implements output.Output.
func (o *Output) AddSamples(batch []metrics.Sample) { o.batcher.AddSamples(batch) }

// Stop flushes what is queued and waits (bounded) for the writes.
func (o *Output) Stop() error {
	err := o.batcher.Stop()
	o.sender.Stop()
	if o.udp != nil {
		o.udp.Close()
	}
	return err
}

// Account implements output.Accounter.
func (o *Output) Account() output.Account {
	w, d, err := o.sender.Account()
	return output.Account{Written: w, Dropped: d + o.invalid.Load() + o.batcher.Dropped(), Err: err}
}

// flush encodes the queued samples into bodies of about MaxBodyBytes and hands them to the sender.
// A body is allocated once at about the size it will reach (the queued samples times the last
// flush's bytes per line), not grown by doubling: the copies of a growing 1 MiB buffer were most
// of the encoder's CPU.
func (o *Output) flush(batches [][]metrics.Sample) error {
	queued := 0
	for _, batch := range batches {
		queued += len(batch)
	}
	var body []byte
	var n, lines, size int64
	for s := range output.Samples(batches) {
		if body == nil {
			body = make([]byte, 0, o.bodySize(queued))
		}
		var ok bool
		if body, ok = o.enc.append(body, s); !ok {
			o.invalid.Add(1)
			continue
		}
		n++
		if len(body) >= MaxBodyBytes {
			lines, size = lines+n, size+int64(len(body))
			o.sender.Enqueue(sender.Payload{Body: body, Samples: n})
			body, n = nil, 0
		}
		queued--
	}
	if n > 0 {
		lines, size = lines+n, size+int64(len(body))
		o.sender.Enqueue(sender.Payload{Body: body, Samples: n})
	}
	if lines > 0 {
		o.lineBytes = int(size/lines) + 1
	}
	return nil
}

// bodySize is the capacity for a body that will hold up to samples lines: the last flush's line
// length times the samples, with room for a longer last line, at most one full body.
func (o *Output) bodySize(samples int) int {
	per := o.lineBytes
	if per == 0 {
		per = 256
	}
	return min(max(samples, 1)*per+per, MaxBodyBytes+4*per)
}

// sendUDP writes a body as datagrams of at most PayloadSize bytes, cut at line ends.
func (o *Output) sendUDP(_ context.Context, body []byte) error {
	size := o.cfg.PayloadSize
	if size <= 0 {
		size = DefaultPayloadSize
	}
	for len(body) > 0 {
		end := len(body)
		if end > size {
			end = bytes.LastIndexByte(body[:size], '\n') + 1
			if end <= 0 { // one line longer than a datagram: send it alone
				end = bytes.IndexByte(body, '\n') + 1
			}
		}
		if _, err := o.udp.Write(body[:end]); err != nil {
			return err
		}
		body = body[end:]
	}
	return nil
}
