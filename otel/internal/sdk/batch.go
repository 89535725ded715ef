package sdk

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
)

// BatchConfig configures the batch span processor (OTEL_BSP_*).
type BatchConfig struct {
	// ScheduleDelay is the longest a span waits in the queue before it
	// is exported, when fewer than MaxExportBatchSize wait.
	ScheduleDelay time.Duration
	// ExportTimeout bounds one export.
	ExportTimeout time.Duration
	// MaxQueueSize bounds the spans waiting: a span ended while the
	// queue is full is dropped, and counted.
	MaxQueueSize int
	// MaxExportBatchSize bounds the spans of one export; as soon as
	// that many wait, they are exported. At most MaxQueueSize.
	MaxExportBatchSize int
}

// DefaultBatchConfig is the specification's: 5 s, 30 s, 2048, 512.
var DefaultBatchConfig = BatchConfig{
	ScheduleDelay:      5 * time.Second,
	ExportTimeout:      30 * time.Second,
	MaxQueueSize:       2048,
	MaxExportBatchSize: 512,
}

// batcher is the batch span processor: a bounded queue of ended spans,
// and the goroutine that exports them in batches, which shutdown ends.
type batcher struct {
	exp SpanExporter
	cfg BatchConfig

	mu      sync.Mutex
	buf     []*SpanData // a ring holding the queue; grows up to MaxQueueSize
	head, n int
	stopped bool  // shutdown began: spans ended now are ignored
	kicked  bool  // a wake is pending
	full    int64 // spans dropped for the queue was full
	told    int64 // of full, how many were reported
	late    int64 // spans dropped for shutdown had no time left

	batch []*SpanData // the worker's, for one export

	// The worker's record of failed exports: the first is reported at
	// once, the next ones together, at most once per ScheduleDelay (a
	// collector that refuses everything would otherwise be reported for
	// every batch).
	failedExports, failedSpans int
	lastErr                    error
	lastReport                 time.Time

	wake chan struct{} // MaxExportBatchSize spans wait
	worker

	// Set by shutdown before it closes stop.
	stopCtx  context.Context
	drainErr error // the worker's, read after done
}

func newBatcher(exp SpanExporter, cfg BatchConfig) *batcher {
	if cfg.MaxQueueSize <= 0 {
		cfg.MaxQueueSize = DefaultBatchConfig.MaxQueueSize
	}
	if cfg.MaxExportBatchSize <= 0 || cfg.MaxExportBatchSize > cfg.MaxQueueSize {
		cfg.MaxExportBatchSize = min(DefaultBatchConfig.MaxExportBatchSize, cfg.MaxQueueSize)
	}
	if cfg.ScheduleDelay <= 0 {
		cfg.ScheduleDelay = DefaultBatchConfig.ScheduleDelay
	}
	if cfg.ExportTimeout <= 0 {
		cfg.ExportTimeout = DefaultBatchConfig.ExportTimeout
	}
	b := &batcher{
		exp:   exp,
		cfg:   cfg,
		buf:   make([]*SpanData, min(cfg.MaxQueueSize, 2*cfg.MaxExportBatchSize)),
		batch: make([]*SpanData, 0, cfg.MaxExportBatchSize),
		wake:  make(chan struct{}, 1),
	}
	b.init()
	go b.run()
	return b
}

// enqueue queues an ended span, or drops it when the queue is full. It
// never blocks on the exporter.
func (b *batcher) enqueue(s *SpanData) {
	b.mu.Lock()
	if b.stopped {
		b.mu.Unlock()
		return
	}
	if b.n == len(b.buf) && !b.grow() {
		b.full++
		b.mu.Unlock()
		return
	}
	b.buf[(b.head+b.n)%len(b.buf)] = s
	b.n++
	kick := b.n >= b.cfg.MaxExportBatchSize && !b.kicked
	b.kicked = b.kicked || kick
	b.mu.Unlock()
	if kick {
		select {
		case b.wake <- struct{}{}:
		default:
		}
	}
}

// grow doubles the ring, up to MaxQueueSize; false when it is that
// large already. Called with mu held.
func (b *batcher) grow() bool {
	if len(b.buf) >= b.cfg.MaxQueueSize {
		return false
	}
	buf := make([]*SpanData, min(2*len(b.buf), b.cfg.MaxQueueSize))
	for i := range b.n {
		buf[i] = b.buf[(b.head+i)%len(b.buf)]
	}
	b.buf, b.head = buf, 0
	return true
}

// take moves up to max queued spans into b.batch.
func (b *batcher) take(max int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := min(b.n, max, b.cfg.MaxExportBatchSize)
	for range k {
		b.batch = append(b.batch, b.buf[b.head])
		b.buf[b.head] = nil
		b.head = (b.head + 1) % len(b.buf)
	}
	b.n -= k
	if b.n < b.cfg.MaxExportBatchSize {
		b.kicked = false
	}
}

func (b *batcher) queued() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.n
}

// run is the worker: it exports a batch as soon as one is full, what
// waits every ScheduleDelay, what waits on ForceFlush, and what waits
// at shutdown.
func (b *batcher) run() {
	defer close(b.done)
	timer := time.NewTimer(b.cfg.ScheduleDelay)
	defer timer.Stop()
	for {
		select {
		case <-b.stop:
			b.drainErr = b.drain()
			return
		case <-b.wake:
			for b.queued() >= b.cfg.MaxExportBatchSize && b.wctx.Err() == nil {
				n, err := b.exportBatch(b.wctx, b.cfg.MaxExportBatchSize)
				b.failed(n, err)
			}
		case <-timer.C:
			b.exportQueued(b.wctx, b.failed)
		case req := <-b.flushes:
			var errs []error
			b.exportQueued(req.ctx, func(_ int, err error) { errs = append(errs, err) })
			req.err <- errors.Join(errs...)
		}
		timer.Reset(b.cfg.ScheduleDelay)
		if err := b.report(false); err != nil {
			otel.Handle(err)
		}
	}
}

// exportQueued exports the spans queued now, in batches, telling handle
// of each.
func (b *batcher) exportQueued(ctx context.Context, handle func(n int, err error)) {
	for left := b.queued(); left > 0 && ctx.Err() == nil; {
		n, err := b.exportBatch(ctx, left)
		handle(n, err)
		left -= n
	}
}

// exportBatch exports up to max queued spans, within ctx, ExportTimeout
// and wctx; it returns how many, and the export's error.
func (b *batcher) exportBatch(ctx context.Context, max int) (int, error) {
	b.take(max)
	n := len(b.batch)
	if n == 0 {
		return 0, nil
	}
	ctx, cancel := context.WithTimeout(ctx, b.cfg.ExportTimeout)
	stop := context.AfterFunc(b.wctx, cancel)
	err := b.exp.ExportSpans(ctx, b.batch)
	stop()
	cancel()
	clear(b.batch)
	b.batch = b.batch[:0]
	return n, err
}

// failed notes an export of n spans that failed with err (none if nil):
// the first one goes to otel.Handle at once, the next ones wait for
// report.
func (b *batcher) failed(n int, err error) {
	if err == nil {
		return
	}
	if b.lastReport.IsZero() || b.failedExports == 0 && time.Since(b.lastReport) >= b.cfg.ScheduleDelay {
		b.lastReport = time.Now()
		otel.Handle(err)
		return
	}
	b.failedExports++
	b.failedSpans += n
	b.lastErr = err
}

// drain exports what is queued at shutdown, within stopCtx; what it has
// no time for is dropped.
func (b *batcher) drain() error {
	var errs []error
	b.exportQueued(b.stopCtx, func(_ int, err error) { errs = append(errs, err) })
	b.mu.Lock()
	late := b.n
	b.late += int64(late)
	clear(b.buf)
	b.head, b.n = 0, 0
	b.mu.Unlock()
	if late > 0 {
		errs = append(errs, fmt.Errorf("sdk: %d spans dropped at shutdown: %w", late, context.Cause(b.stopCtx)))
	}
	errs = append(errs, b.report(true))
	return errors.Join(errs...)
}

// report returns what was not reported yet of the failed exports and of
// the spans dropped for a full queue, at most once per ScheduleDelay
// unless now; nil when there is nothing, or not yet.
func (b *batcher) report(now bool) error {
	if !now && time.Since(b.lastReport) < b.cfg.ScheduleDelay {
		return nil
	}
	b.mu.Lock()
	full := b.full - b.told
	b.told = b.full
	b.mu.Unlock()
	var errs []error
	if full > 0 {
		errs = append(errs, fmt.Errorf("sdk: %d spans dropped: the queue of %d was full", full, b.cfg.MaxQueueSize))
	}
	if b.failedExports > 0 {
		errs = append(errs, fmt.Errorf("sdk: %d more exports failed (%d spans); the last: %w", b.failedExports, b.failedSpans, b.lastErr))
		b.failedExports, b.failedSpans, b.lastErr = 0, 0, nil
	}
	if len(errs) == 0 {
		return nil
	}
	b.lastReport = time.Now()
	return errors.Join(errs...)
}

func (b *batcher) droppedTotal() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.full + b.late
}

// shutdown stops taking spans, exports those queued within ctx, stops
// the worker and shuts the exporter down. Later calls wait for the
// first's end, within their ctx.
func (b *batcher) shutdown(ctx context.Context) error {
	if !b.firstShutdown(ctx) {
		return nil
	}
	defer close(b.shutdownDone)
	b.mu.Lock()
	b.stopped = true
	b.mu.Unlock()
	// An export in progress, and the drain, end when ctx does.
	stop := context.AfterFunc(ctx, b.wcancel)
	defer stop()
	b.stopCtx = ctx
	close(b.stop)
	<-b.done
	b.wcancel()
	return errors.Join(b.drainErr, b.exp.Shutdown(ctx))
}
