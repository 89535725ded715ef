package sdk

import (
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// The metrics as exporters see them: one collection of every instrument
// of a MeterProvider.

// ResourceMetrics is one collection.
type ResourceMetrics struct {
	Resource *Resource
	Scopes   []ScopeMetrics
}

// ScopeMetrics are the metrics of one meter that have data points.
type ScopeMetrics struct {
	Scope   *Scope
	Metrics []Metric
}

// A MetricKind is the kind of a metric's data.
type MetricKind uint8

// The kinds of data, with the instruments that make them.
const (
	KindSum          MetricKind = iota + 1 // counters, up-down counters
	KindGauge                              // gauges: the last value
	KindHistogram                          // histograms, explicit buckets
	KindExpHistogram                       // histograms, base-2 exponential buckets
)

// Temporality says whether points cover the time since the start
// (cumulative) or since the last collection (delta).
type Temporality uint8

// The temporalities.
const (
	Cumulative Temporality = iota + 1
	Delta
)

// A Metric is one instrument's data: its points are in Numbers (sums,
// gauges), Histograms or ExpHistograms, as Kind says.
type Metric struct {
	Name, Description, Unit string
	Kind                    MetricKind
	Temporality             Temporality // of sums and histograms
	Monotonic               bool        // of sums
	// Int says the instrument records int64s: NumberPoint.Int and
	// Exemplar.Int hold the values (else the Float fields).
	Int bool

	Numbers       []NumberPoint
	Histograms    []HistogramPoint
	ExpHistograms []ExpHistogramPoint
}

// A NumberPoint is the value of one series of a sum or a gauge.
type NumberPoint struct {
	Attributes  attribute.Set
	Start, Time time.Time
	Int         int64
	Float       float64
	Exemplars   []Exemplar
}

// A HistogramPoint is one series of a histogram: Counts[i] measurements
// were at most Bounds[i] (and more than Bounds[i-1]); the last count is
// of those above the last bound.
type HistogramPoint struct {
	Attributes  attribute.Set
	Start, Time time.Time
	Count       uint64
	Sum         float64
	// Min and Max are set when HasMinMax (there were measurements).
	Min, Max  float64
	HasMinMax bool
	Bounds    []float64
	Counts    []uint64
	Exemplars []Exemplar
}

// An ExpHistogramPoint is one series of a base-2 exponential histogram
// (see the OTLP ExponentialHistogramDataPoint).
type ExpHistogramPoint struct {
	Attributes         attribute.Set
	Start, Time        time.Time
	Count              uint64
	Sum                float64
	Min, Max           float64
	HasMinMax          bool
	Scale              int32
	ZeroCount          uint64
	ZeroThreshold      float64
	Positive, Negative Buckets
	Exemplars          []Exemplar
}

// Buckets are consecutive buckets of an exponential histogram, the first
// of index Offset.
type Buckets struct {
	Offset int32
	Counts []uint64
}

// An Exemplar is one measurement kept with its trace context.
type Exemplar struct {
	// FilteredAttributes are the measurement's attributes that its
	// series does not have (none, for this SDK has no views).
	FilteredAttributes []attribute.KeyValue
	Time               time.Time
	Int                int64
	Float              float64
	TraceID            trace.TraceID // zero without a span
	SpanID             trace.SpanID
}
