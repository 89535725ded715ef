package bench

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// progressEvery is how often the progress bar is redrawn.
const progressEvery = 200 * time.Millisecond

// A progressBar draws the state of a run on one terminal line, redrawn in
// place, until stopped; then it erases its line. It draws on a terminal
// only: the caller decides.
type progressBar struct {
	w        io.Writer
	p        *Progress
	start    time.Time
	duration time.Duration // the planned time, or 0
	count    int64         // the planned calls, or 0

	stop chan struct{}
	done sync.WaitGroup
}

// startProgress starts drawing the progress of p on w; the run is bounded
// by duration or count (for the percentage). Stop it with end.
func startProgress(w io.Writer, p *Progress, duration time.Duration, count int64) *progressBar {
	b := &progressBar{w: w, p: p, start: time.Now(), duration: duration, count: count, stop: make(chan struct{})}
	b.done.Add(1)
	go func() {
		defer b.done.Done()
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				fmt.Fprintf(b.w, "\r%s\x1b[K", b.line(time.Since(b.start)))
			case <-b.stop:
				fmt.Fprint(b.w, "\r\x1b[K")
				return
			}
		}
	}()
	return b
}

// end stops the bar and erases it; it returns once the line is erased.
func (b *progressBar) end() {
	if b == nil {
		return
	}
	close(b.stop)
	b.done.Wait()
}

// barWidth is the width of the bar itself, in characters.
const barWidth = 30

// line returns the progress line after elapsed.
func (b *progressBar) line(elapsed time.Duration) string {
	calls, errs := b.p.Calls.Load(), b.p.Errors.Load()
	frac := 0.0
	switch {
	case b.count > 0 && b.duration > 0:
		frac = max(float64(calls)/float64(b.count), elapsed.Seconds()/b.duration.Seconds())
	case b.count > 0:
		frac = float64(calls) / float64(b.count)
	case b.duration > 0:
		frac = elapsed.Seconds() / b.duration.Seconds()
	}
	frac = min(max(frac, 0), 1)
	full := int(frac * barWidth)
	bar := strings.Repeat("█", full) + strings.Repeat("░", barWidth-full)
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(calls) / s
	}
	when := fmt.Sprintf("%.1fs", elapsed.Seconds())
	if b.duration > 0 {
		when += "/" + b.duration.String()
	}
	return fmt.Sprintf("%3.0f%% %s %s  %s calls  %s/s  %s errors", frac*100, bar, when, thousands(calls), thousands(int64(rate)), thousands(errs))
}
