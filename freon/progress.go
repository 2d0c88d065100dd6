package freon

import (
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"time"
)

// progressInterval is how often freon redraws or logs progress.
const progressInterval = time.Second

// progressConfig configures a progressBar (freon's ProgressBar.java).
type progressConfig struct {
	// Interactive draws the bar on Out; otherwise progress goes to Log as INFO lines.
	Interactive bool
	Out         io.Writer
	Log         *LogWriter
	// Max and Value give the progress: see taskRunner.progressMax and taskRunner.progressValue.
	Max   int64
	Value func() int64
	// Status is the text after the bar; nil or "" for dn-echo. A non-empty status makes
	// freon draw the bar a third as wide.
	Status func() string
	// Clock measures the "Time:" field; SystemClock when nil.
	Clock Clock
	// Interval between draws; progressInterval when zero (tests shorten it).
	Interval time.Duration
}

// progressBar shows a run's progress once per interval on its own goroutine, as freon does:
// interactively an empty line, then the bar redrawn in place with '\r', a last draw and a
// newline; non-interactively a "Progress: ..." log line each time and once at the end.
type progressBar struct {
	cfg   progressConfig
	start time.Time
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
}

// startProgress starts the bar; terminate or shutdown must be called to end it.
func startProgress(cfg progressConfig) *progressBar {
	if cfg.Clock == nil {
		cfg.Clock = SystemClock
	}
	if cfg.Interval <= 0 {
		cfg.Interval = progressInterval
	}
	if cfg.Status == nil {
		cfg.Status = func() string { return "" }
	}
	p := &progressBar{cfg: cfg, start: cfg.Clock.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	go p.loop()
	return p
}

func (p *progressBar) loop() {
	defer close(p.done)
	p.newline()
	timer := time.NewTimer(p.cfg.Interval)
	defer timer.Stop()
	for p.cfg.Value() < p.cfg.Max {
		p.draw()
		timer.Reset(p.cfg.Interval)
		select {
		case <-p.stop:
			p.finish()
			return
		case <-timer.C:
		}
	}
	p.finish()
}

func (p *progressBar) finish() {
	p.draw()
	p.newline()
}

func (p *progressBar) newline() {
	if p.cfg.Interactive {
		io.WriteString(p.cfg.Out, "\n")
	}
}

func (p *progressBar) draw() {
	v := p.cfg.Value()
	if !p.cfg.Interactive {
		if p.cfg.Log != nil {
			p.cfg.Log.Log(ThreadProgress, LevelInfo, LoggerProgress, progressLogMessage(v, p.cfg.Max))
		}
		return
	}
	elapsed := p.cfg.Clock.Now().Sub(p.start)
	io.WriteString(p.cfg.Out, "\r"+progressLine(v, p.cfg.Max, elapsed, p.cfg.Status()))
}

// terminate stops the bar now (freon's behaviour after a failure without --fail-at-end) and
// returns after the final draw.
func (p *progressBar) terminate() {
	p.once.Do(func() { close(p.stop) })
	<-p.done
}

// shutdown waits until the value reaches the maximum, then returns after the final draw
// (freon with --fail-at-end). It blocks forever if the value never gets there; use
// terminate when the run ended early.
func (p *progressBar) shutdown() {
	<-p.done
}

// progressPercent is 100.0 * value / max in Java's evaluation order.
func progressPercent(value, max int64) float64 {
	if max <= 0 {
		return 100
	}
	return 100.0 * float64(value) / float64(max)
}

// progressLine renders one interactive bar (without the leading '\r') exactly as freon:
// " 12.30% |███…   |  123/1000 Time: 0:00:05|  status". The bar has ⌊percent⌋+1 blocks
// and ⌈100−percent⌉ spaces, both divided by three when there is a status text.
func progressLine(value, max int64, elapsed time.Duration, status string) string {
	percent := progressPercent(value, max)
	shrink := 1.0
	if status != "" {
		shrink = 3
	}
	var b strings.Builder
	b.WriteString(" " + formatJavaFixed(percent, 2) + "% |")
	if blocks := percent / shrink; blocks >= 0 {
		b.WriteString(strings.Repeat("█", int(math.Floor(blocks))+1))
	}
	if spaces := (100 - percent) / shrink; spaces > 0 {
		b.WriteString(strings.Repeat(" ", int(math.Ceil(spaces))))
	}
	secs := int64(elapsed / time.Second)
	fmt.Fprintf(&b, "|  %d/%d Time: %d:%02d:%02d|  %s", value, max, secs/3600, secs%3600/60, secs%60, status)
	return b.String()
}

// progressLogMessage is freon's non-interactive progress line.
func progressLogMessage(value, max int64) string {
	return fmt.Sprintf("Progress: %s %% (%d out of %d)", formatJavaFixed(progressPercent(value, max), 2), value, max)
}
