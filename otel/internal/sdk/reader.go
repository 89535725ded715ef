package sdk

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
)

// reader is the periodic metric reader: every Interval, and on
// ForceFlush, it collects the provider's instruments and exports the
// collection, within Timeout; at shutdown, one last time.
type reader struct {
	p   *MeterProvider
	exp MetricExporter

	flushes chan flushRequest
	stop    chan struct{} // closed by shutdown
	done    chan struct{} // closed when the worker returns

	// The worker's exports end when wctx does, which shutdown cancels
	// when its own context ends.
	wctx    context.Context
	wcancel context.CancelFunc

	once         sync.Once
	shutdownDone chan struct{}
}

func newReader(p *MeterProvider, exp MetricExporter) *reader {
	r := &reader{
		p:            p,
		exp:          exp,
		flushes:      make(chan flushRequest),
		stop:         make(chan struct{}),
		done:         make(chan struct{}),
		shutdownDone: make(chan struct{}),
	}
	r.wctx, r.wcancel = context.WithCancel(context.Background())
	go r.run()
	return r
}

func (r *reader) run() {
	defer close(r.done)
	ticker := time.NewTicker(r.p.cfg.Interval)
	defer ticker.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-ticker.C:
			if err := r.export(r.wctx); err != nil {
				otel.Handle(err)
			}
		case req := <-r.flushes:
			req.err <- r.export(req.ctx)
			ticker.Reset(r.p.cfg.Interval)
		}
	}
}

// export collects and exports, within ctx, Timeout and wctx.
func (r *reader) export(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, r.p.cfg.Timeout)
	defer cancel()
	defer context.AfterFunc(r.wctx, cancel)()
	rm := r.p.collect(time.Now())
	if len(rm.Scopes) == 0 {
		return nil
	}
	return r.exp.Export(ctx, rm)
}

// forceFlush has the worker collect and export now, within ctx.
func (r *reader) forceFlush(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	req := flushRequest{ctx: ctx, err: make(chan error, 1)}
	select {
	case r.flushes <- req:
	case <-r.stop:
		return ErrShutdown
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-req.err:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// shutdown stops the worker (ending an export in progress when ctx
// ends), collects and exports one last time within ctx, and shuts the
// exporter down. Later calls wait for the first's end, within their ctx.
func (r *reader) shutdown(ctx context.Context) error {
	first := false
	r.once.Do(func() { first = true })
	if !first {
		select {
		case <-r.shutdownDone:
		case <-ctx.Done():
		}
		return nil
	}
	defer close(r.shutdownDone)
	stop := context.AfterFunc(ctx, r.wcancel)
	defer stop()
	close(r.stop)
	<-r.done
	err := r.export(ctx)
	r.wcancel()
	return errors.Join(err, r.exp.Shutdown(ctx))
}
