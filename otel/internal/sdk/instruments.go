package sdk

import (
	"context"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/embedded"
)

// The synchronous instruments: each records into its stream, with the
// attribute set of its options. The int64 and float64 ones differ only
// in their types: adder and recorder, generic in the value, do the work;
// each instrument type adds the marker its interface asks for.

// Float64Counter returns the counter of that name, a monotonic sum.
func (m *meter) Float64Counter(name string, opts ...metric.Float64CounterOption) (metric.Float64Counter, error) {
	s, err := syncStream[float64](m, name, metric.NewFloat64CounterConfig(opts...), kindCounter, nil)
	return f64Counter{adder: adder[float64]{s}}, err
}

// Float64UpDownCounter returns the up-down counter of that name, a sum.
func (m *meter) Float64UpDownCounter(name string, opts ...metric.Float64UpDownCounterOption) (metric.Float64UpDownCounter, error) {
	s, err := syncStream[float64](m, name, metric.NewFloat64UpDownCounterConfig(opts...), kindUpDownCounter, nil)
	return f64UpDown{adder: adder[float64]{s}}, err
}

// Float64Histogram returns the histogram of that name: explicit buckets,
// those of its advice (metric.WithExplicitBucketBoundaries) or the
// default ones, unless the provider makes exponential histograms.
func (m *meter) Float64Histogram(name string, opts ...metric.Float64HistogramOption) (metric.Float64Histogram, error) {
	c := metric.NewFloat64HistogramConfig(opts...)
	s, err := syncStream[float64](m, name, c, kindHistogram, c.ExplicitBucketBoundaries())
	return f64Histogram{recorder: recorder[float64]{s}}, err
}

// Float64Gauge returns the gauge of that name: the last value.
func (m *meter) Float64Gauge(name string, opts ...metric.Float64GaugeOption) (metric.Float64Gauge, error) {
	s, err := syncStream[float64](m, name, metric.NewFloat64GaugeConfig(opts...), kindGauge, nil)
	return f64Gauge{recorder: recorder[float64]{s}}, err
}

// Int64Counter returns the counter of that name, a monotonic sum.
func (m *meter) Int64Counter(name string, opts ...metric.Int64CounterOption) (metric.Int64Counter, error) {
	s, err := syncStream[int64](m, name, metric.NewInt64CounterConfig(opts...), kindCounter, nil)
	return i64Counter{adder: adder[int64]{s}}, err
}

// Int64UpDownCounter returns the up-down counter of that name, a sum.
func (m *meter) Int64UpDownCounter(name string, opts ...metric.Int64UpDownCounterOption) (metric.Int64UpDownCounter, error) {
	s, err := syncStream[int64](m, name, metric.NewInt64UpDownCounterConfig(opts...), kindUpDownCounter, nil)
	return i64UpDown{adder: adder[int64]{s}}, err
}

// Int64Histogram returns the histogram of that name (see
// Float64Histogram).
func (m *meter) Int64Histogram(name string, opts ...metric.Int64HistogramOption) (metric.Int64Histogram, error) {
	c := metric.NewInt64HistogramConfig(opts...)
	s, err := syncStream[int64](m, name, c, kindHistogram, c.ExplicitBucketBoundaries())
	return i64Histogram{recorder: recorder[int64]{s}}, err
}

// Int64Gauge returns the gauge of that name: the last value.
func (m *meter) Int64Gauge(name string, opts ...metric.Int64GaugeOption) (metric.Int64Gauge, error) {
	s, err := syncStream[int64](m, name, metric.NewInt64GaugeConfig(opts...), kindGauge, nil)
	return i64Gauge{recorder: recorder[int64]{s}}, err
}

// syncStream returns the stream of an instrument of that name and
// configuration (one of metric's instrument configurations).
func syncStream[N int64 | float64](m *meter, name string, c interface {
	Description() string
	Unit() string
}, kind instKind, bounds []float64) (*stream[N], error) {
	return getStream[N](m, name, c.Description(), c.Unit(), kind, bounds)
}

// An adder is the work of a counter or up-down counter.
type adder[N int64 | float64] struct{ s *stream[N] }

// Add adds v to the series of the options' attributes.
func (i adder[N]) Add(ctx context.Context, v N, opts ...metric.AddOption) {
	i.s.measure(ctx, v, metric.NewAddConfig(opts).Attributes())
}

// Enabled reports true: every measurement is recorded.
func (adder[N]) Enabled(context.Context) bool { return true }

// A recorder is the work of a histogram or gauge.
type recorder[N int64 | float64] struct{ s *stream[N] }

// Record records v in the series of the options' attributes.
func (i recorder[N]) Record(ctx context.Context, v N, opts ...metric.RecordOption) {
	i.s.measure(ctx, v, metric.NewRecordConfig(opts).Attributes())
}

// Enabled reports true: every measurement is recorded.
func (recorder[N]) Enabled(context.Context) bool { return true }

type (
	f64Counter struct {
		embedded.Float64Counter
		adder[float64]
	}
	f64UpDown struct {
		embedded.Float64UpDownCounter
		adder[float64]
	}
	f64Histogram struct {
		embedded.Float64Histogram
		recorder[float64]
	}
	f64Gauge struct {
		embedded.Float64Gauge
		recorder[float64]
	}
	i64Counter struct {
		embedded.Int64Counter
		adder[int64]
	}
	i64UpDown struct {
		embedded.Int64UpDownCounter
		adder[int64]
	}
	i64Histogram struct {
		embedded.Int64Histogram
		recorder[int64]
	}
	i64Gauge struct {
		embedded.Int64Gauge
		recorder[int64]
	}
)
