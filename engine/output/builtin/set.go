package builtin

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/output"
)

// Set is the outputs of one run. It implements metrics.Pusher.
type Set struct {
	outs    []*counted
	started int
}

// counted counts the samples an output received, for its end-of-run account.
type counted struct {
	output.Output
	n         atomic.Int64
	abandoned bool // its Stop was given up on: Finish leaves it alone
}

// Stopped is the end-of-run account of one output, as Stop gives it.
type Stopped struct {
	Description string
	output.Account
	// StopErr is the output's own failure to finish (a file that could not be written or
	// closed), as opposed to samples a store refused or that were dropped on the way.
	StopErr error
	// Abandoned is set when the stop was given up before the output finished (a second Ctrl-C):
	// what it had not yet written is lost, and how much is not known.
	Abandoned bool
}

// Lost reports whether the output dropped samples, or may have (Abandoned).
func (r Stopped) Lost() bool { return r.Abandoned || r.Account.Lost() }

// Line is the end-of-run line of the output.
func (r Stopped) Line() string {
	if r.Abandoned {
		return fmt.Sprintf("output %s: stopped at once before it finished (interrupted again); of %d samples, those not yet written are lost",
			r.Description, r.Received)
	}
	return r.Account.Line(r.Description)
}

// Open builds the outputs of specs (-o values) and, when p.Env sets K6_WEB_DASHBOARD=true and no
// spec names it, the web dashboard. Nothing is started: an error leaves nothing to release.
func Open(specs []string, p output.Params) (*Set, error) {
	specs = withDashboard(specs, p.Env)
	s := &Set{}
	for _, spec := range specs {
		o, err := New(spec, p)
		if err != nil {
			return nil, fmt.Errorf("output %s: %w", spec, err)
		}
		s.outs = append(s.outs, &counted{Output: o})
	}
	return s, nil
}

// withDashboard adds "web-dashboard" when K6_WEB_DASHBOARD is true (k6's switch for it).
func withDashboard(specs []string, env map[string]string) []string {
	on, err := output.ParseBool("K6_WEB_DASHBOARD", env["K6_WEB_DASHBOARD"])
	if err != nil || !on {
		return specs
	}
	for _, s := range specs {
		if typ, _ := output.ParseSpec(s); typ == "web-dashboard" {
			return specs
		}
	}
	return append(append([]string(nil), specs...), "web-dashboard")
}

// Start starts the outputs in order; when one fails, those already started are stopped.
func (s *Set) Start() error {
	for _, o := range s.outs {
		if err := o.Start(); err != nil {
			s.Stop()
			return fmt.Errorf("output %s: start: %w", o.Description(), err)
		}
		s.started++
	}
	return nil
}

// Outputs returns the outputs, in -o order.
func (s *Set) Outputs() []output.Output {
	out := make([]output.Output, len(s.outs))
	for i, o := range s.outs {
		out[i] = o.Output
	}
	return out
}

// PushSamples hands the batch to every output.
func (s *Set) PushSamples(batch []metrics.Sample) { s.AddSamples(batch) }

// AddSamples is PushSamples under the name the collector's fan-out uses.
func (s *Set) AddSamples(batch []metrics.Sample) {
	for _, o := range s.outs {
		o.n.Add(int64(len(batch)))
		o.AddSamples(batch)
	}
}

// Stop flushes and stops the started outputs and returns their accounts, in -o order. It is
// StopContext with a context that never ends.
func (s *Set) Stop() []Stopped { return s.StopContext(context.Background()) }

// StopContext stops the started outputs all at once, so the slowest one (a store that does not
// answer, each bounded by its own stop timeout) sets the time it takes, not their sum. When ctx
// ends first (a second Ctrl-C) it returns at once: the outputs still stopping are Abandoned and
// go on in the background until the process exits. It is idempotent: a second call returns nil.
func (s *Set) StopContext(ctx context.Context) []Stopped {
	outs := s.outs[:s.started]
	s.started = 0
	res := make([]Stopped, len(outs))
	done := make(chan int, len(outs))
	for i, o := range outs {
		go func() {
			err := o.Stop()
			res[i] = Stopped{Description: o.Description(), Account: output.AccountOf(o.Output, o.n.Load(), err), StopErr: err}
			done <- i
		}()
	}
	stopped := make([]bool, len(outs))
	for range outs {
		select {
		case i := <-done:
			stopped[i] = true
		case <-ctx.Done():
			return abandoned(outs, res, stopped)
		}
	}
	return res
}

// abandoned completes the results of a stop given up: the outputs that had not stopped are
// reported as abandoned. res is only read for the outputs that stopped.
func abandoned(outs []*counted, res []Stopped, stopped []bool) []Stopped {
	out := make([]Stopped, len(outs))
	for i, o := range outs {
		if stopped[i] {
			out[i] = res[i]
			continue
		}
		o.abandoned = true
		out[i] = Stopped{Description: o.Description(), Account: output.Account{Received: o.n.Load()}, Abandoned: true}
	}
	return out
}

// WantsEnd reports whether an output needs Finish (so a front end can skip building the text).
func (s *Set) WantsEnd() bool {
	for _, o := range s.outs {
		if _, ok := o.Output.(output.Finisher); ok {
			return true
		}
	}
	return false
}

// Finish tells the outputs that want it (the web dashboard) the end-of-test summary, except those
// whose stop was abandoned. Call it after Stop.
func (s *Set) Finish(end output.End) error {
	var errs []error
	for _, o := range s.outs {
		if f, ok := o.Output.(output.Finisher); ok && !o.abandoned {
			if err := f.Finish(end); err != nil {
				errs = append(errs, fmt.Errorf("output %s: %w", o.Description(), err))
			}
		}
	}
	return errors.Join(errs...)
}

// Lost returns a *output.LossError naming the outputs that dropped samples, or nil.
func Lost(results []Stopped) error {
	var names []string
	for _, r := range results {
		switch {
		case r.Abandoned:
			names = append(names, fmt.Sprintf("%s was stopped before it finished", r.Description))
		case r.Lost():
			names = append(names, fmt.Sprintf("%s dropped %d of %d", r.Description, r.Dropped, r.Received))
		}
	}
	if names == nil {
		return nil
	}
	return &output.LossError{Outputs: names}
}
