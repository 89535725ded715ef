package sdk

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/embedded"
	"go.opentelemetry.io/otel/metric/noop"
)

// TemporalityPreference is what OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE
// asks for.
type TemporalityPreference uint8

// The preferences: cumulative (every instrument); delta and lowmemory
// (both: counters and histograms delta, up-down counters cumulative, for
// the synchronous instruments this SDK records).
const (
	PreferCumulative TemporalityPreference = iota
	PreferDelta
	PreferLowMemory
)

// ExemplarFilter is which measurements may become exemplars
// (OTEL_METRICS_EXEMPLAR_FILTER).
type ExemplarFilter uint8

// The filters: those made in a sampled span (the default), all, none.
const (
	ExemplarsTraceBased ExemplarFilter = iota
	ExemplarsAlwaysOn
	ExemplarsAlwaysOff
)

// DefaultCardinalityLimit bounds the series of an instrument, the
// overflow series included, as the official Go SDK does.
const DefaultCardinalityLimit = 2000

// MetricConfig configures a MeterProvider. MetricConfigFromEnv reads one
// from the environment.
type MetricConfig struct {
	Resource *Resource
	// Interval is the time between two exports; Timeout bounds one
	// collection and export.
	Interval, Timeout time.Duration
	Temporality       TemporalityPreference
	// Exponential makes histograms base-2 exponential ones (max size
	// 160, max scale 20), their explicit bucket advice ignored.
	Exponential bool
	// CardinalityLimit bounds the series of each instrument; 0 is
	// DefaultCardinalityLimit, -1 none.
	CardinalityLimit int
	Exemplars        ExemplarFilter
}

// DefaultMetricConfig is the specification's: a collection a minute,
// within 30 s, cumulative.
var DefaultMetricConfig = MetricConfig{Interval: time.Minute, Timeout: 30 * time.Second}

// A MetricExporter sends collections somewhere. The periodic reader calls
// it from one goroutine at a time, and never after Shutdown.
type MetricExporter interface {
	// Export sends rm, within ctx; it must not keep rm once it returns.
	Export(ctx context.Context, rm *ResourceMetrics) error
	// Shutdown stops the exporter, ending within ctx an export in
	// progress.
	Shutdown(ctx context.Context) error
}

// A MeterProvider makes meters whose synchronous instruments (counters,
// up-down counters, histograms, gauges; int64 and float64) aggregate
// their measurements, which a periodic reader collects and exports. The
// asynchronous (observable) instruments and callbacks are accepted and
// never called: nothing mcpwire records uses them. It is a
// go.opentelemetry.io/otel/metric.MeterProvider, safe for concurrent
// use.
type MeterProvider struct {
	embedded.MeterProvider
	cfg    MetricConfig
	reader *reader

	mu      sync.Mutex
	meters  map[Scope]*meter
	ordered []*meter
}

var _ metric.MeterProvider = (*MeterProvider)(nil)

// NewMeterProvider returns a provider exporting with exp as cfg says. It
// starts the periodic reader's goroutine, which Shutdown ends.
func NewMeterProvider(exp MetricExporter, cfg MetricConfig) *MeterProvider {
	if cfg.Resource == nil {
		cfg.Resource = NewResource("")
	}
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultMetricConfig.Interval
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultMetricConfig.Timeout
	}
	switch cfg.CardinalityLimit {
	case 0:
		cfg.CardinalityLimit = DefaultCardinalityLimit
	case -1:
		cfg.CardinalityLimit = 0
	}
	p := &MeterProvider{cfg: cfg, meters: make(map[Scope]*meter)}
	p.reader = newReader(p, exp)
	return p
}

// Meter returns the meter of an instrumentation scope; the same scope is
// the same meter.
func (p *MeterProvider) Meter(name string, opts ...metric.MeterOption) metric.Meter {
	c := metric.NewMeterConfig(opts...)
	sc := Scope{Name: name, Version: c.InstrumentationVersion(), SchemaURL: c.SchemaURL(), Attributes: scopeAttributes(c.InstrumentationAttributes())}
	p.mu.Lock()
	defer p.mu.Unlock()
	m, ok := p.meters[sc]
	if !ok {
		m = &meter{p: p, scope: sc, streams: make(map[streamKey]any)}
		p.meters[sc] = m
		p.ordered = append(p.ordered, m)
	}
	return m
}

// ForceFlush collects and exports now, within ctx.
func (p *MeterProvider) ForceFlush(ctx context.Context) error { return p.reader.forceFlush(ctx) }

// Shutdown collects and exports one last time, within ctx, and stops the
// reader and the exporter. Later calls wait for the first one's end,
// within their ctx, and return nil.
func (p *MeterProvider) Shutdown(ctx context.Context) error { return p.reader.shutdown(ctx) }

// collect returns what every instrument holds now.
func (p *MeterProvider) collect(now time.Time) *ResourceMetrics {
	p.mu.Lock()
	meters := slices.Clone(p.ordered)
	p.mu.Unlock()
	rm := &ResourceMetrics{Resource: p.cfg.Resource}
	for _, m := range meters {
		if ms := m.collect(now); len(ms) > 0 {
			rm.Scopes = append(rm.Scopes, ScopeMetrics{Scope: &m.scope, Metrics: ms})
		}
	}
	return rm
}

// meter makes the instruments of one scope. The observable ones are
// noop.Meter's.
type meter struct {
	noop.Meter
	p     *MeterProvider
	scope Scope

	mu      sync.Mutex
	streams map[streamKey]any // *stream[int64] or *stream[float64]
	ordered []collector
}

var _ metric.Meter = (*meter)(nil)

type collector interface {
	collect(now time.Time) (Metric, bool)
}

// instKind is the kind of a synchronous instrument.
type instKind uint8

const (
	kindCounter instKind = iota + 1
	kindUpDownCounter
	kindHistogram
	kindGauge
)

// streamKey identifies an instrument: the same name (in any case), kind
// and number type is the same instrument, with the description and unit
// it was first made with.
type streamKey struct {
	name  string
	kind  instKind
	isInt bool
}

// ErrInstrumentName is the error of an instrument whose name the
// specification does not allow; the instrument records anyway.
var ErrInstrumentName = errors.New("sdk: invalid instrument name")

// checkName checks an instrument name: a letter, then up to 254 letters,
// digits and _ . - /.
func checkName(name string) error {
	ok := len(name) > 0 && len(name) <= 255
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		ok = letter || i > 0 && (c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-' || c == '/')
	}
	if !ok {
		return fmt.Errorf("%w: %q", ErrInstrumentName, name)
	}
	return nil
}

// getStream returns the stream of an instrument, made on first use.
func getStream[N int64 | float64](m *meter, name, desc, unit string, kind instKind, bounds []float64) (*stream[N], error) {
	var zero N
	_, isInt := any(zero).(int64)
	key := streamKey{name: strings.ToLower(name), kind: kind, isInt: isInt}
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.streams[key]; ok {
		return s.(*stream[N]), nil
	}
	cfg := &m.p.cfg
	s := &stream[N]{name: name, description: desc, unit: unit, limit: cfg.CardinalityLimit, exemplars: cfg.Exemplars, temporality: Cumulative}
	delta := cfg.Temporality != PreferCumulative
	var err error
	switch kind {
	case kindCounter:
		s.agg, s.monotonic = aggSum, true
		if delta {
			s.temporality = Delta
		}
	case kindUpDownCounter:
		s.agg = aggSum
	case kindGauge:
		s.agg = aggLastValue
	case kindHistogram:
		if delta {
			s.temporality = Delta
		}
		if cfg.Exponential {
			s.agg, s.expMaxSize, s.expMaxScale = aggExponential, DefaultExpMaxSize, DefaultExpMaxScale
			break
		}
		s.agg, s.bounds = aggExplicit, defaultBounds
		if bounds != nil {
			if err = checkBounds(bounds); err == nil {
				s.bounds = slices.Clone(bounds)
			}
		}
	}
	s.init()
	m.streams[key] = s
	m.ordered = append(m.ordered, s)
	return s, errors.Join(err, checkName(name))
}

// defaultBounds are the specification's bucket boundaries for a
// histogram without advice.
var defaultBounds = []float64{0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000}

// checkBounds checks explicit bucket boundaries: increasing, no NaN.
func checkBounds(b []float64) error {
	for i := 1; i < len(b); i++ {
		if !(b[i-1] < b[i]) {
			return fmt.Errorf("sdk: bucket boundaries %v are not increasing: the default ones are used", b)
		}
	}
	return nil
}

func (m *meter) collect(now time.Time) []Metric {
	m.mu.Lock()
	streams := slices.Clone(m.ordered)
	m.mu.Unlock()
	var ms []Metric
	for _, s := range streams {
		if x, ok := s.collect(now); ok {
			ms = append(ms, x)
		}
	}
	return ms
}
