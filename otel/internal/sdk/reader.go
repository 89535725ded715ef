package sdk

import (
	"context"
	"errors"
	"time"

	"go.opentelemetry.io/otel"
)

// reader is the periodic metric reader: every Interval, and on
// ForceFlush, it collects the provider's instruments and exports the
// collection, within Timeout; at shutdown, one last time.
type reader struct {
	p   *MeterProvider
	exp MetricExporter
	worker
}

func newReader(p *MeterProvider, exp MetricExporter) *reader {
	r := &reader{p: p, exp: exp}
	r.init()
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

// shutdown stops the worker (ending an export in progress when ctx
// ends), collects and exports one last time within ctx, and shuts the
// exporter down. Later calls wait for the first's end, within their ctx.
func (r *reader) shutdown(ctx context.Context) error {
	if !r.firstShutdown(ctx) {
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
