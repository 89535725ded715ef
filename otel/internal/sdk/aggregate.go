package sdk

import (
	"context"
	"math"
	"slices"
	"sort"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// The aggregation of one instrument: a series (a point) for each
// attribute set measured, up to the cardinality limit.

// overflowSet is the series of the measurements past the cardinality
// limit.
var overflowSet = attribute.NewSet(attribute.Bool("otel.metric.overflow", true))

// aggKind is how a stream aggregates.
type aggKind uint8

const (
	aggSum aggKind = iota + 1
	aggLastValue
	aggExplicit
	aggExponential
)

// A stream is the state of one instrument: its series, and what it is.
type stream[N int64 | float64] struct {
	name, description, unit string
	agg                     aggKind
	temporality             Temporality
	monotonic               bool
	bounds                  []float64 // explicit histograms, sorted
	expMaxSize              int       // exponential histograms
	expMaxScale             int32
	limit                   int // the cardinality limit; 0 for none
	exemplars               ExemplarFilter

	mu     sync.Mutex
	series map[attribute.Distinct]*point[N]
	order  []*point[N] // the series in the order they appeared
	start  time.Time   // of the points: the stream's creation, or the last delta collection
}

// A point is one series.
type point[N int64 | float64] struct {
	attrs attribute.Set
	value N // sums and last values

	// Histograms.
	count     uint64
	sum       N
	min, max  N
	counts    []uint64      // explicit buckets
	exemplars []exemplar[N] // one per explicit bucket, the last sampled
	exp       *expHistogram // exponential buckets
}

type exemplar[N int64 | float64] struct {
	set   bool
	value N
	at    time.Time
	sc    trace.SpanContext
}

func (s *stream[N]) init() {
	s.series = make(map[attribute.Distinct]*point[N])
	s.start = time.Now()
}

// measure records v in the series of attrs.
func (s *stream[N]) measure(ctx context.Context, v N, attrs attribute.Set) {
	if s.agg == aggExponential && (math.IsNaN(float64(v)) || math.IsInf(float64(v), 0)) {
		return // no bucket holds them
	}
	var ex exemplar[N]
	if s.agg == aggExplicit && s.exemplars != ExemplarsAlwaysOff {
		sc := trace.SpanContextFromContext(ctx)
		if s.exemplars == ExemplarsAlwaysOn || sc.IsSampled() {
			ex = exemplar[N]{set: true, value: v, at: time.Now(), sc: sc}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.lookup(attrs)
	switch s.agg {
	case aggSum:
		p.value += v
	case aggLastValue:
		p.value = v
	case aggExplicit:
		i := sort.SearchFloat64s(s.bounds, float64(v))
		p.counts[i]++
		p.histogram(v)
		if ex.set {
			if p.exemplars == nil {
				p.exemplars = make([]exemplar[N], len(p.counts))
			}
			p.exemplars[i] = ex
		}
	case aggExponential:
		p.histogram(v)
		p.exp.record(float64(v))
	}
}

// histogram counts v in the count, sum, min and max of p.
func (p *point[N]) histogram(v N) {
	if p.count == 0 {
		p.min, p.max = v, v
	} else {
		p.min, p.max = min(p.min, v), max(p.max, v)
	}
	p.count++
	p.sum += v
}

// lookup returns the series of attrs, made if new; past the cardinality
// limit, a new attribute set goes to the overflow series, so that the
// stream holds at most limit series. Called with mu held.
func (s *stream[N]) lookup(attrs attribute.Set) *point[N] {
	d := attrs.Equivalent()
	if p, ok := s.series[d]; ok {
		return p
	}
	if s.limit > 0 && len(s.series) >= s.limit-1 {
		attrs, d = overflowSet, overflowSet.Equivalent()
		if p, ok := s.series[d]; ok {
			return p
		}
	}
	p := &point[N]{attrs: attrs}
	switch s.agg {
	case aggExplicit:
		p.counts = make([]uint64, len(s.bounds)+1)
	case aggExponential:
		p.exp = newExpHistogram(s.expMaxSize, s.expMaxScale)
	}
	s.series[d] = p
	s.order = append(s.order, p)
	return p
}

// collect returns the stream's metric as of now, false when it has no
// point. A delta stream starts over.
func (s *stream[N]) collect(now time.Time) (Metric, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	start := s.start
	pts := s.order
	if s.temporality == Delta {
		s.series = make(map[attribute.Distinct]*point[N], len(pts))
		s.order = nil
		s.start = now
	}
	if len(pts) == 0 {
		return Metric{}, false
	}
	var zero N
	_, isInt := any(zero).(int64)
	m := Metric{Name: s.name, Description: s.description, Unit: s.unit, Temporality: s.temporality, Monotonic: s.monotonic, Int: isInt}
	switch s.agg {
	case aggSum, aggLastValue:
		m.Kind = KindSum
		if s.agg == aggLastValue {
			m.Kind, m.Temporality = KindGauge, 0
		}
		m.Numbers = make([]NumberPoint, len(pts))
		for i, p := range pts {
			m.Numbers[i] = NumberPoint{Attributes: p.attrs, Start: start, Time: now}
			setNumber(&m.Numbers[i].Int, &m.Numbers[i].Float, p.value)
		}
	case aggExplicit:
		m.Kind = KindHistogram
		m.Histograms = make([]HistogramPoint, len(pts))
		for i, p := range pts {
			h := &m.Histograms[i]
			*h = HistogramPoint{Attributes: p.attrs, Start: start, Time: now, Count: p.count, Sum: float64(p.sum),
				Min: float64(p.min), Max: float64(p.max), HasMinMax: p.count > 0,
				Bounds: s.bounds, Counts: slices.Clone(p.counts)}
			for _, e := range p.exemplars {
				if e.set {
					x := Exemplar{Time: e.at, TraceID: e.sc.TraceID(), SpanID: e.sc.SpanID()}
					setNumber(&x.Int, &x.Float, e.value)
					h.Exemplars = append(h.Exemplars, x)
				}
			}
		}
	case aggExponential:
		m.Kind = KindExpHistogram
		m.ExpHistograms = make([]ExpHistogramPoint, len(pts))
		for i, p := range pts {
			h := &m.ExpHistograms[i]
			*h = ExpHistogramPoint{Attributes: p.attrs, Start: start, Time: now, Count: p.count, Sum: float64(p.sum),
				Min: float64(p.min), Max: float64(p.max), HasMinMax: p.count > 0}
			p.exp.snapshot(h)
		}
	}
	return m, true
}

func setNumber[N int64 | float64](i *int64, f *float64, v N) {
	switch v := any(v).(type) {
	case int64:
		*i = v
	case float64:
		*f = v
	}
}
