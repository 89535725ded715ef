package sdk_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/mcpwire/mcpwire/otel/internal/sdk"
)

// metricRecorder is a MetricExporter that keeps each collection.
type metricRecorder struct {
	block chan struct{} // an export waits for it or its context
	mu    sync.Mutex
	got   []*sdk.ResourceMetrics
	shut  int
}

func (r *metricRecorder) Export(ctx context.Context, rm *sdk.ResourceMetrics) error {
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
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, rm)
	return nil
}

func (r *metricRecorder) Shutdown(context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.shut++
	return nil
}

func (r *metricRecorder) collections() []*sdk.ResourceMetrics {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

// last returns the named metric of the last collection.
func (r *metricRecorder) last(t *testing.T, name string) sdk.Metric {
	t.Helper()
	c := r.collections()
	if len(c) == 0 {
		t.Fatal("nothing collected")
	}
	for _, sm := range c[len(c)-1].Scopes {
		for _, m := range sm.Metrics {
			if m.Name == name {
				return m
			}
		}
	}
	t.Fatalf("no metric %s", name)
	return sdk.Metric{}
}

func newMP(t *testing.T, exp sdk.MetricExporter, cfg sdk.MetricConfig) *sdk.MeterProvider {
	mp := sdk.NewMeterProvider(exp, cfg)
	t.Cleanup(func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		mp.Shutdown(ctx)
	})
	return mp
}

func flush(t *testing.T, mp *sdk.MeterProvider) {
	t.Helper()
	if err := mp.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestHistogram checks an explicit-bucket histogram: each value in the
// bucket whose upper bound it does not pass (a bound belongs to the
// bucket it closes), count, sum, min and max, the advice's bounds.
func TestHistogram(t *testing.T) {
	rec := &metricRecorder{}
	mp := newMP(t, rec, sdk.MetricConfig{Interval: time.Hour})
	h, err := mp.Meter("m").Float64Histogram("h", metric.WithExplicitBucketBoundaries(0, 1, 10))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []float64{-5, 0, 0.5, 1, 1.0000001, 10, 11, 1e9} {
		h.Record(context.Background(), v)
	}
	flush(t, mp)
	p := rec.last(t, "h").Histograms[0]
	if !slices.Equal(p.Bounds, []float64{0, 1, 10}) || !slices.Equal(p.Counts, []uint64{2, 2, 2, 2}) {
		t.Errorf("bounds %v, counts %v", p.Bounds, p.Counts)
	}
	if p.Count != 8 || p.Sum != -5+0+0.5+1+1.0000001+10+11+1e9 || p.Min != -5 || p.Max != 1e9 || !p.HasMinMax {
		t.Errorf("count %d, sum %v, min %v, max %v", p.Count, p.Sum, p.Min, p.Max)
	}
	d, _ := mp.Meter("m").Int64Histogram("default")
	d.Record(context.Background(), 7)
	bad, err := mp.Meter("m").Float64Histogram("bad", metric.WithExplicitBucketBoundaries(1, 1, 0))
	if err == nil {
		t.Error("bounds that do not increase: no error")
	}
	bad.Record(context.Background(), 3)
	flush(t, mp)
	for _, name := range []string{"default", "bad"} {
		if p := rec.last(t, name).Histograms[0]; len(p.Bounds) != 15 || p.Bounds[14] != 10000 {
			t.Errorf("%s: bounds %v, want the default ones", name, p.Bounds)
		}
	}
}

// TestCumulativeAndDelta checks the temporalities: cumulative points
// keep counting from the same start; delta points count what came since
// the last collection, starting then, and a series measured no more is
// not exported; up-down counters stay cumulative, gauges keep their last
// value.
func TestCumulativeAndDelta(t *testing.T) {
	for _, pref := range []sdk.TemporalityPreference{sdk.PreferCumulative, sdk.PreferDelta, sdk.PreferLowMemory} {
		rec := &metricRecorder{}
		mp := newMP(t, rec, sdk.MetricConfig{Interval: time.Hour, Temporality: pref})
		m := mp.Meter("m")
		c, _ := m.Int64Counter("c")
		u, _ := m.Float64UpDownCounter("u")
		h, _ := m.Float64Histogram("h")
		g, _ := m.Int64Gauge("g")
		a := metric.WithAttributes(attribute.String("k", "a"))
		c.Add(context.Background(), 2, a)
		u.Add(context.Background(), -1)
		h.Record(context.Background(), 3, a)
		g.Record(context.Background(), 5)
		flush(t, mp)
		first := rec.last(t, "c").Numbers[0]
		c.Add(context.Background(), 3, a)
		u.Add(context.Background(), -1)
		g.Record(context.Background(), 6)
		flush(t, mp)
		second := rec.last(t, "c").Numbers[0]
		delta := pref != sdk.PreferCumulative
		switch {
		case !delta && (second.Int != 5 || !second.Start.Equal(first.Start) || rec.last(t, "c").Temporality != sdk.Cumulative):
			t.Errorf("cumulative: %+v after %+v", second, first)
		case delta && (second.Int != 3 || !second.Start.Equal(first.Time) || rec.last(t, "c").Temporality != sdk.Delta):
			t.Errorf("%v: %+v after %+v", pref, second, first)
		}
		if um := rec.last(t, "u"); um.Temporality != sdk.Cumulative || um.Numbers[0].Float != -2 || um.Monotonic {
			t.Errorf("%v: the up-down counter %+v", pref, um)
		}
		if gm := rec.last(t, "g"); gm.Kind != sdk.KindGauge || gm.Numbers[0].Int != 6 {
			t.Errorf("%v: the gauge %+v", pref, gm)
		}
		hasH := slices.ContainsFunc(rec.collections()[1].Scopes[0].Metrics, func(m sdk.Metric) bool { return m.Name == "h" })
		if hasH == delta {
			t.Errorf("%v: the histogram measured before the first collection only is in the second: %v", pref, hasH)
		}
	}
}

// TestCardinalityLimit checks the bound on series: past limit-1 attribute
// sets, new sets go to one overflow series (otel.metric.overflow=true);
// the series that exist go on counting.
func TestCardinalityLimit(t *testing.T) {
	rec := &metricRecorder{}
	mp := newMP(t, rec, sdk.MetricConfig{Interval: time.Hour, CardinalityLimit: 10})
	c, _ := mp.Meter("m").Int64Counter("c")
	for i := range 25 {
		c.Add(context.Background(), 1, metric.WithAttributes(attribute.Int("i", i)))
	}
	c.Add(context.Background(), 100, metric.WithAttributes(attribute.Int("i", 0)))
	flush(t, mp)
	pts := rec.last(t, "c").Numbers
	if len(pts) != 10 {
		t.Fatalf("%d series, want 10", len(pts))
	}
	overflow := attribute.NewSet(attribute.Bool("otel.metric.overflow", true))
	for _, p := range pts {
		switch {
		case p.Attributes.Equals(&overflow):
			if p.Int != 16 {
				t.Errorf("the overflow series counted %d, want 16", p.Int)
			}
		case p.Attributes.Equals(ptr(attribute.NewSet(attribute.Int("i", 0)))):
			if p.Int != 101 {
				t.Errorf("series 0 counted %d", p.Int)
			}
		}
	}
	if !slices.ContainsFunc(pts, func(p sdk.NumberPoint) bool { return p.Attributes.Equals(&overflow) }) {
		t.Error("no overflow series")
	}
}

func ptr[T any](v T) *T { return &v }

// TestExemplars checks OTEL_METRICS_EXEMPLAR_FILTER's filters on an
// explicit histogram: the last measurement of each bucket, made in a
// sampled span (trace_based), any (always_on), none (always_off).
func TestExemplars(t *testing.T) {
	rec := &spanRecorder{}
	tp := newTP(t, rec, sdk.DefaultBatchConfig)
	sampled, span := tp.Tracer("t").Start(context.Background(), "s")
	defer span.End()
	for _, c := range []struct {
		filter sdk.ExemplarFilter
		want   int // exemplars
	}{{sdk.ExemplarsTraceBased, 2}, {sdk.ExemplarsAlwaysOn, 3}, {sdk.ExemplarsAlwaysOff, 0}} {
		mr := &metricRecorder{}
		mp := newMP(t, mr, sdk.MetricConfig{Interval: time.Hour, Exemplars: c.filter})
		h, _ := mp.Meter("m").Float64Histogram("h", metric.WithExplicitBucketBoundaries(1, 2))
		h.Record(sampled, 0.5)
		h.Record(sampled, 0.7) // replaces 0.5
		h.Record(sampled, 1.5)
		h.Record(context.Background(), 3)
		flush(t, mp)
		xs := mr.last(t, "h").Histograms[0].Exemplars
		if len(xs) != c.want {
			t.Fatalf("filter %v: %d exemplars, want %d", c.filter, len(xs), c.want)
		}
		if c.want > 0 && (xs[0].Float != 0.7 || xs[0].SpanID != span.SpanContext().SpanID() || xs[0].TraceID != span.SpanContext().TraceID()) {
			t.Errorf("filter %v: first exemplar %+v", c.filter, xs[0])
		}
	}
}

// TestInstruments checks the instruments' identity (the same name in any
// case is the same instrument), names the specification refuses (an
// error, but the instrument records), and the observable instruments,
// accepted and never called.
func TestInstruments(t *testing.T) {
	rec := &metricRecorder{}
	mp := newMP(t, rec, sdk.MetricConfig{Interval: time.Hour})
	m := mp.Meter("m")
	a, _ := m.Int64Counter("Requests", metric.WithDescription("first"))
	b, _ := m.Int64Counter("requests", metric.WithDescription("second"))
	a.Add(context.Background(), 1)
	b.Add(context.Background(), 2)
	for _, name := range []string{"", "1abc", "a b", string(make([]byte, 256))} {
		c, err := m.Float64Counter(name)
		if !errors.Is(err, sdk.ErrInstrumentName) {
			t.Errorf("name %q: error %v", name, err)
		}
		c.Add(context.Background(), 1)
	}
	called := false
	_, err := m.Int64ObservableGauge("observed", metric.WithInt64Callback(func(context.Context, metric.Int64Observer) error {
		called = true
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	flush(t, mp)
	if got := rec.last(t, "Requests"); got.Numbers[0].Int != 3 || got.Description != "first" {
		t.Errorf("%+v", got)
	}
	if called {
		t.Error("an observable instrument's callback was called")
	}
}

// TestPeriodicReader checks OTEL_METRIC_EXPORT_INTERVAL and _TIMEOUT: a
// collection every interval; an export that does not end is cancelled
// at the timeout; Shutdown collects once more and shuts the exporter
// down; a second Shutdown waits for nothing and returns nil.
func TestPeriodicReader(t *testing.T) {
	errs := errorsTo(t)
	synctest.Test(t, func(t *testing.T) {
		rec := &metricRecorder{}
		mp := newMP(t, rec, sdk.MetricConfig{Interval: time.Minute, Timeout: 10 * time.Second})
		c, _ := mp.Meter("m").Int64Counter("c")
		c.Add(context.Background(), 1)
		time.Sleep(time.Minute - time.Millisecond)
		synctest.Wait()
		if n := len(rec.collections()); n != 0 {
			t.Fatalf("%d collections before the interval", n)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if n := len(rec.collections()); n != 1 {
			t.Fatalf("%d collections after the interval", n)
		}
		rec.mu.Lock()
		rec.block = make(chan struct{}) // the collector hangs
		rec.mu.Unlock()
		start := time.Now()
		time.Sleep(time.Minute)
		synctest.Wait()
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if n := len(rec.collections()); n != 1 || time.Since(start) != time.Minute+10*time.Second {
			t.Fatalf("%d collections", n)
		}
		if e := errs(); len(e) != 1 || !errors.Is(e[0], context.DeadlineExceeded) {
			t.Fatalf("the export that timed out reported %v", e)
		}
		rec.mu.Lock()
		rec.block = nil
		rec.mu.Unlock()
		c.Add(context.Background(), 1)
		if err := mp.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := rec.last(t, "c").Numbers[0].Int; got != 2 || rec.shut != 1 {
			t.Errorf("the last collection counted %d; the exporter shut down %d times", got, rec.shut)
		}
		if err := mp.Shutdown(context.Background()); err != nil {
			t.Errorf("a second Shutdown: %v", err)
		}
		if err := mp.ForceFlush(context.Background()); !errors.Is(err, sdk.ErrShutdown) {
			t.Errorf("ForceFlush after Shutdown: %v", err)
		}
	})
}

// TestMeasureConcurrently records from many goroutines while collections
// run (for the race detector), and checks the totals.
func TestMeasureConcurrently(t *testing.T) {
	rec := &metricRecorder{}
	mp := newMP(t, rec, sdk.MetricConfig{Interval: time.Hour})
	h, _ := mp.Meter("m").Float64Histogram("h")
	c, _ := mp.Meter("m").Int64Counter("c")
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 1000 {
				set := metric.WithAttributes(attribute.Int("g", g%3))
				h.Record(context.Background(), float64(i), set)
				c.Add(context.Background(), 1, set)
			}
		})
	}
	for range 5 {
		flush(t, mp)
	}
	wg.Wait()
	flush(t, mp)
	var n int64
	var count uint64
	for _, p := range rec.last(t, "c").Numbers {
		n += p.Int
	}
	for _, p := range rec.last(t, "h").Histograms {
		count += p.Count
	}
	if n != 8000 || count != 8000 {
		t.Errorf("counted %d and %d, want 8000", n, count)
	}
}

// TestExponentialHistogram checks the base-2 exponential histogram: a
// value in the bucket (2^(i/2^s), 2^((i+1)/2^s)] at the scale reached, the
// scale lowered so that the buckets of a side fit in 160, zeros counted
// apart, NaN and infinities left out.
func TestExponentialHistogram(t *testing.T) {
	rec := &metricRecorder{}
	mp := newMP(t, rec, sdk.MetricConfig{Interval: time.Hour, Exponential: true})
	h, _ := mp.Meter("m").Float64Histogram("h", metric.WithExplicitBucketBoundaries(1, 2))
	values := []float64{1, 2, 3, 1000, 1e6, 0, -4, math.NaN(), math.Inf(1)}
	for _, v := range values {
		h.Record(context.Background(), v)
	}
	flush(t, mp)
	m := rec.last(t, "h")
	if m.Kind != sdk.KindExpHistogram {
		t.Fatalf("kind %v: the bucket advice made an explicit histogram", m.Kind)
	}
	p := m.ExpHistograms[0]
	if p.Count != 7 || p.ZeroCount != 1 || len(p.Positive.Counts) > 160 || p.Scale > 20 {
		t.Fatalf("%+v", p)
	}
	base := math.Exp2(math.Exp2(-float64(p.Scale)))
	var n uint64
	for i, c := range p.Positive.Counts {
		n += c
		lo, hi := math.Pow(base, float64(int(p.Positive.Offset)+i)), math.Pow(base, float64(int(p.Positive.Offset)+i+1))
		for _, v := range []float64{3, 1000, 1e6} { // not on a bound, where the floats of lo and hi are not exact
			if in := v > lo && v <= hi; in && c == 0 {
				t.Errorf("%v is in bucket %d (%v, %v], which counts none", v, i, lo, hi)
			}
		}
	}
	if n != 5 || p.Negative.Counts[len(p.Negative.Counts)-1] != 1 {
		t.Errorf("positive buckets count %d; negative %+v", n, p.Negative)
	}
	if p.Min != -4 || p.Max != 1e6 {
		t.Errorf("min %v max %v", p.Min, p.Max)
	}
}
