package sdk_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwire/mcpwire/otel/internal/sdk"
)

// spanRecorder is a SpanExporter that keeps the names of the spans of
// each export. With block set, an export waits for a value from block or
// for its context to end.
type spanRecorder struct {
	block chan struct{}
	err   error // what an export returns

	mu      sync.Mutex
	batches [][]string
	shut    int
}

func (r *spanRecorder) ExportSpans(ctx context.Context, spans []*sdk.SpanData) error {
	r.mu.Lock()
	block := r.block
	r.mu.Unlock()
	if block != nil {
		select {
		case <-block:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	names := make([]string, len(spans))
	for i, s := range spans {
		names[i] = s.Name
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.batches = append(r.batches, names)
	return r.err
}

func (r *spanRecorder) Shutdown(context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.shut++
	return nil
}

func (r *spanRecorder) got() [][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.batches)
}

func (r *spanRecorder) exported() int {
	n := 0
	for _, b := range r.got() {
		n += len(b)
	}
	return n
}

// newTP returns a provider, shut down when the test ends (a failing test
// in a synctest bubble must not leave the worker behind).
func newTP(t *testing.T, exp sdk.SpanExporter, b sdk.BatchConfig) *sdk.TracerProvider {
	tp := sdk.NewTracerProvider(exp, sdk.TraceConfig{Sampler: sdk.AlwaysOn(), Limits: sdk.DefaultSpanLimits, Batch: b})
	t.Cleanup(func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		tp.Shutdown(ctx)
	})
	return tp
}

func endSpans(tp trace.TracerProvider, prefix string, n int) {
	tr := tp.Tracer("t")
	for i := range n {
		_, s := tr.Start(context.Background(), fmt.Sprintf("%s%d", prefix, i))
		s.End()
	}
}

// errorsTo collects what goes to otel.Handle during the test.
func errorsTo(t *testing.T) func() []error {
	var mu sync.Mutex
	var errs []error
	old := otel.GetErrorHandler()
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}))
	t.Cleanup(func() { otel.SetErrorHandler(old) })
	return func() []error {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(errs)
	}
}

// TestBatchExportsFullBatchesAtOnce checks OTEL_BSP_MAX_EXPORT_BATCH_SIZE:
// as soon as a batch is full it is exported, without waiting for the
// schedule delay; what is left waits for the delay.
func TestBatchExportsFullBatchesAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &spanRecorder{}
		tp := newTP(t, rec, sdk.BatchConfig{ScheduleDelay: 5 * time.Second, ExportTimeout: time.Second, MaxQueueSize: 100, MaxExportBatchSize: 3})
		endSpans(tp, "s", 7)
		synctest.Wait()
		if got := rec.got(); len(got) != 2 || len(got[0]) != 3 || len(got[1]) != 3 {
			t.Fatalf("exports before the delay: %v, want two of 3", got)
		}
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if got := rec.got(); len(got) != 3 || !slices.Equal(got[2], []string{"s6"}) {
			t.Fatalf("exports after the delay: %v", got)
		}
		if err := tp.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}

// TestBatchScheduleDelay checks OTEL_BSP_SCHEDULE_DELAY: a span waits
// the delay, not longer, and the delay starts again after an export.
func TestBatchScheduleDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &spanRecorder{}
		tp := newTP(t, rec, sdk.BatchConfig{ScheduleDelay: 2 * time.Second, ExportTimeout: time.Second, MaxQueueSize: 100, MaxExportBatchSize: 10})
		endSpans(tp, "a", 1)
		time.Sleep(2*time.Second - time.Millisecond)
		synctest.Wait()
		if n := rec.exported(); n != 0 {
			t.Fatalf("%d exported before the delay", n)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if got := rec.got(); len(got) != 1 {
			t.Fatalf("after the delay: %v", got)
		}
		time.Sleep(time.Second)
		endSpans(tp, "b", 1)
		time.Sleep(time.Second - time.Millisecond)
		synctest.Wait()
		if got := rec.got(); len(got) != 1 {
			t.Fatalf("before one delay after the first export: %v", got)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if got := rec.got(); len(got) != 2 {
			t.Fatalf("one delay after the first export: %v", got)
		}
		if err := tp.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}

// TestBatchQueueFullDrops checks OTEL_BSP_MAX_QUEUE_SIZE: while the
// exporter is stuck, spans past the queue are dropped (never blocking
// the span's End), counted, and reported to otel.Handle.
func TestBatchQueueFullDrops(t *testing.T) {
	errs := errorsTo(t)
	synctest.Test(t, func(t *testing.T) {
		rec := &spanRecorder{block: make(chan struct{})}
		tp := newTP(t, rec, sdk.BatchConfig{ScheduleDelay: time.Second, ExportTimeout: time.Hour, MaxQueueSize: 4, MaxExportBatchSize: 2})
		endSpans(tp, "s", 2) // a full batch: the worker takes it and is stuck in the export
		synctest.Wait()
		endSpans(tp, "t", 10) // 4 fit
		if n := tp.Dropped(); n != 6 {
			t.Errorf("Dropped() = %d, want 6", n)
		}
		close(rec.block) // read by the export in progress
		if err := tp.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := rec.got(); !slices.Equal(slices.Concat(got...), []string{"s0", "s1", "t0", "t1", "t2", "t3"}) {
			t.Errorf("exported %v", got)
		}
	})
	if e := errs(); len(e) != 1 || !strings.Contains(e[0].Error(), "6 spans dropped") {
		t.Errorf("reported %v, want the 6 dropped spans", e)
	}
}

// TestBatchExportTimeout checks OTEL_BSP_EXPORT_TIMEOUT: an export that
// does not end is cancelled after the timeout, the error goes to
// otel.Handle, and the next spans are exported.
func TestBatchExportTimeout(t *testing.T) {
	errs := errorsTo(t)
	synctest.Test(t, func(t *testing.T) {
		rec := &spanRecorder{block: make(chan struct{})}
		tp := newTP(t, rec, sdk.BatchConfig{ScheduleDelay: time.Hour, ExportTimeout: 3 * time.Second, MaxQueueSize: 10, MaxExportBatchSize: 1})
		start := time.Now()
		endSpans(tp, "stuck", 1)
		synctest.Wait()
		time.Sleep(3*time.Second - time.Millisecond)
		synctest.Wait()
		if len(errs()) != 0 {
			t.Fatal("the export ended before its timeout")
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if e := errs(); len(e) != 1 || !errors.Is(e[0], context.DeadlineExceeded) || time.Since(start) != 3*time.Second {
			t.Fatalf("after %v: errors %v", time.Since(start), e)
		}
		rec.mu.Lock()
		rec.block = nil
		rec.mu.Unlock()
		endSpans(tp, "next", 1)
		synctest.Wait()
		if got := rec.got(); len(got) != 1 || got[0][0] != "next0" {
			t.Fatalf("exports %v", got)
		}
		if err := tp.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}

// TestBatchShutdownFlushes checks Shutdown: what is queued is exported,
// the exporter is shut down, spans ended or started later are not
// exported, and ForceFlush says it is shut down.
func TestBatchShutdownFlushes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &spanRecorder{}
		tp := newTP(t, rec, sdk.BatchConfig{ScheduleDelay: time.Hour, ExportTimeout: time.Second, MaxQueueSize: 100, MaxExportBatchSize: 4})
		tr := tp.Tracer("t")
		_, open := tr.Start(context.Background(), "open at shutdown")
		endSpans(tp, "s", 10)
		if err := tp.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := rec.got(); len(slices.Concat(got...)) != 10 || len(got) != 3 {
			t.Errorf("exported %v, want 10 in batches of at most 4", got)
		}
		open.End()
		_, late := tr.Start(context.Background(), "started after")
		if late.IsRecording() || late.SpanContext().IsSampled() {
			t.Error("a span started after Shutdown is recorded")
		}
		late.End()
		synctest.Wait()
		if n := rec.exported(); n != 10 {
			t.Errorf("%d exported, want the 10 ended before Shutdown", n)
		}
		if rec.shut != 1 {
			t.Errorf("the exporter was shut down %d times", rec.shut)
		}
		if err := tp.ForceFlush(context.Background()); !errors.Is(err, sdk.ErrShutdown) {
			t.Errorf("ForceFlush after Shutdown: %v", err)
		}
	})
}

// TestBatchForceFlush checks ForceFlush: everything queued is exported
// before it returns, and an export's error is returned.
func TestBatchForceFlush(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &spanRecorder{err: errors.New("refused")}
		tp := newTP(t, rec, sdk.BatchConfig{ScheduleDelay: time.Hour, ExportTimeout: time.Second, MaxQueueSize: 100, MaxExportBatchSize: 50})
		endSpans(tp, "s", 7)
		if err := tp.ForceFlush(context.Background()); err == nil || err.Error() != "refused" {
			t.Errorf("ForceFlush: %v", err)
		}
		if n := rec.exported(); n != 7 {
			t.Errorf("%d exported by ForceFlush, want 7", n)
		}
		rec.mu.Lock()
		rec.err = nil
		rec.mu.Unlock()
		if err := tp.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}

// TestBatchShutdownWithinContext checks that a collector that never
// answers holds Shutdown no longer than its context: the export in
// progress is cancelled, what is queued is dropped, and counted.
func TestBatchShutdownWithinContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &spanRecorder{block: make(chan struct{})}
		tp := newTP(t, rec, sdk.BatchConfig{ScheduleDelay: time.Hour, ExportTimeout: time.Hour, MaxQueueSize: 100, MaxExportBatchSize: 2})
		endSpans(tp, "s", 5) // two exports begin, the first sticks
		synctest.Wait()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		start := time.Now()
		err := tp.Shutdown(ctx)
		if d := time.Since(start); d != 5*time.Second || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Shutdown returned %v after %v, want the deadline after 5s", err, d)
		}
		if n := tp.Dropped(); n != 3 {
			t.Errorf("Dropped() = %d, want the 3 never exported", n)
		}
		if rec.shut != 1 {
			t.Error("the exporter was not shut down")
		}
	})
}

// TestBatchFailuresReportedAtMostOncePerDelay checks that a collector
// that refuses every export does not flood otel.Handle (a program's
// stderr, by default) with one report per batch: the first failure is
// reported at once, the next ones together, at most once per schedule
// delay, with how many spans they cost.
func TestBatchFailuresReportedAtMostOncePerDelay(t *testing.T) {
	errs := errorsTo(t)
	synctest.Test(t, func(t *testing.T) {
		rec := &spanRecorder{err: errors.New("refused")}
		tp := newTP(t, rec, sdk.BatchConfig{ScheduleDelay: 5 * time.Second, ExportTimeout: time.Second, MaxQueueSize: 100, MaxExportBatchSize: 1})
		for range 50 {
			endSpans(tp, "s", 1)
			synctest.Wait()
		}
		if e := errs(); len(e) != 1 || e[0].Error() != "refused" {
			t.Fatalf("%d reports after 50 failed exports: %v", len(e), e[:min(len(e), 3)])
		}
		time.Sleep(5 * time.Second)
		synctest.Wait()
		e := errs()
		if len(e) != 2 || !strings.Contains(e[1].Error(), "49 more exports failed (49 spans)") || !strings.Contains(e[1].Error(), "refused") {
			t.Fatalf("after the delay: %v", e[1:])
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if n := len(errs()); n != 2 {
			t.Errorf("%d reports: without new failures, no new report", n)
		}
	})
}
