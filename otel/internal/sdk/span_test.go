package sdk_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwire/mcpwire/otel/internal/sdk"
)

// captured returns the spans a provider exported, once shut down.
type captured struct {
	mu    sync.Mutex
	spans []sdk.SpanData
}

func (c *captured) ExportSpans(_ context.Context, spans []*sdk.SpanData) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range spans {
		c.spans = append(c.spans, *s)
	}
	return nil
}

func (c *captured) Shutdown(context.Context) error { return nil }

func record(t *testing.T, limits sdk.SpanLimits, f func(tr trace.Tracer)) []sdk.SpanData {
	t.Helper()
	c := &captured{}
	tp := sdk.NewTracerProvider(c, sdk.TraceConfig{Sampler: sdk.AlwaysOn(), Limits: limits, Batch: sdk.DefaultBatchConfig})
	f(tp.Tracer("t"))
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	return c.spans
}

// TestLengthLimitOfEventsAndLinks checks what differs from the official
// Go SDK on purpose: the attribute value length limit applies to the
// attributes of events and links too, as the specification says.
func TestLengthLimitOfEventsAndLinks(t *testing.T) {
	limits := sdk.DefaultSpanLimits
	limits.AttributeValueLength = 3
	long := attribute.String("k", "abcdef")
	spans := record(t, limits, func(tr trace.Tracer) {
		_, s := tr.Start(context.Background(), "s", trace.WithAttributes(long))
		s.AddEvent("e", trace.WithAttributes(long))
		s.AddLink(trace.Link{Attributes: []attribute.KeyValue{long}})
		s.RecordError(errors.New("a long message"))
		s.End()
	})
	s := spans[0]
	for what, kv := range map[string]attribute.KeyValue{
		"span": s.Attributes[0], "event": s.Events[0].Attributes[0], "link": s.Links[0].Attributes[0], "exception": s.Events[1].Attributes[1],
	} {
		if len(kv.Value.AsString()) != 3 {
			t.Errorf("the %s attribute %v was not cut", what, kv)
		}
	}
}

// TestLinkAttributesCopied checks that a link keeps its attributes as
// they were when it was added, whatever the caller does with its slice
// afterwards.
func TestLinkAttributesCopied(t *testing.T) {
	attrs := []attribute.KeyValue{attribute.String("k", "before")}
	spans := record(t, sdk.DefaultSpanLimits, func(tr trace.Tracer) {
		_, s := tr.Start(context.Background(), "s")
		s.AddLink(trace.Link{Attributes: attrs})
		attrs[0] = attribute.String("k", "after")
		s.End()
	})
	if v := spans[0].Links[0].Attributes[0].Value.AsString(); v != "before" {
		t.Errorf("the link's attribute is %q", v)
	}
}

// TestSpanConcurrently uses a span from several goroutines while it ends
// (for the race detector): what comes after End is not kept.
func TestSpanConcurrently(t *testing.T) {
	spans := record(t, sdk.DefaultSpanLimits, func(tr trace.Tracer) {
		_, s := tr.Start(context.Background(), "s")
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Go(func() {
				for range 100 {
					s.SetAttributes(attribute.Int("i", i))
					s.AddEvent("e")
					s.SetName("renamed")
					s.IsRecording()
					_ = s.SpanContext()
				}
			})
		}
		wg.Go(func() { s.End() })
		wg.Wait()
		s.SetAttributes(attribute.Bool("after", true))
	})
	if len(spans) != 1 || len(spans[0].Attributes) > 1 || len(spans[0].Events)+spans[0].DroppedEvents > 400 {
		t.Errorf("%+v", spans)
	}
}
