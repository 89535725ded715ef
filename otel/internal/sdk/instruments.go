package sdk

import (
	"context"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/embedded"
)

// The synchronous instruments: each records into its stream, with the
// attribute set of its options.

// Float64Counter returns the counter of that name, a monotonic sum.
func (m *meter) Float64Counter(name string, opts ...metric.Float64CounterOption) (metric.Float64Counter, error) {
	c := metric.NewFloat64CounterConfig(opts...)
	s, err := getStream[float64](m, name, c.Description(), c.Unit(), kindCounter, nil)
	return f64Counter{s: s}, err
}

// Float64UpDownCounter returns the up-down counter of that name, a sum.
func (m *meter) Float64UpDownCounter(name string, opts ...metric.Float64UpDownCounterOption) (metric.Float64UpDownCounter, error) {
	c := metric.NewFloat64UpDownCounterConfig(opts...)
	s, err := getStream[float64](m, name, c.Description(), c.Unit(), kindUpDownCounter, nil)
	return f64UpDown{s: s}, err
}

// Float64Histogram returns the histogram of that name: explicit buckets,
// those of its advice (metric.WithExplicitBucketBoundaries) or the
// default ones, unless the provider makes exponential histograms.
func (m *meter) Float64Histogram(name string, opts ...metric.Float64HistogramOption) (metric.Float64Histogram, error) {
	c := metric.NewFloat64HistogramConfig(opts...)
	s, err := getStream[float64](m, name, c.Description(), c.Unit(), kindHistogram, c.ExplicitBucketBoundaries())
	return f64Histogram{s: s}, err
}

// Float64Gauge returns the gauge of that name: the last value.
func (m *meter) Float64Gauge(name string, opts ...metric.Float64GaugeOption) (metric.Float64Gauge, error) {
	c := metric.NewFloat64GaugeConfig(opts...)
	s, err := getStream[float64](m, name, c.Description(), c.Unit(), kindGauge, nil)
	return f64Gauge{s: s}, err
}

// Int64Counter returns the counter of that name, a monotonic sum.
func (m *meter) Int64Counter(name string, opts ...metric.Int64CounterOption) (metric.Int64Counter, error) {
	c := metric.NewInt64CounterConfig(opts...)
	s, err := getStream[int64](m, name, c.Description(), c.Unit(), kindCounter, nil)
	return i64Counter{s: s}, err
}

// Int64UpDownCounter returns the up-down counter of that name, a sum.
func (m *meter) Int64UpDownCounter(name string, opts ...metric.Int64UpDownCounterOption) (metric.Int64UpDownCounter, error) {
	c := metric.NewInt64UpDownCounterConfig(opts...)
	s, err := getStream[int64](m, name, c.Description(), c.Unit(), kindUpDownCounter, nil)
	return i64UpDown{s: s}, err
}

// Int64Histogram returns the histogram of that name (see
// Float64Histogram).
func (m *meter) Int64Histogram(name string, opts ...metric.Int64HistogramOption) (metric.Int64Histogram, error) {
	c := metric.NewInt64HistogramConfig(opts...)
	s, err := getStream[int64](m, name, c.Description(), c.Unit(), kindHistogram, c.ExplicitBucketBoundaries())
	return i64Histogram{s: s}, err
}

// Int64Gauge returns the gauge of that name: the last value.
func (m *meter) Int64Gauge(name string, opts ...metric.Int64GaugeOption) (metric.Int64Gauge, error) {
	c := metric.NewInt64GaugeConfig(opts...)
	s, err := getStream[int64](m, name, c.Description(), c.Unit(), kindGauge, nil)
	return i64Gauge{s: s}, err
}

type f64Counter struct {
	embedded.Float64Counter
	s *stream[float64]
}

// Add adds v to the series of the options\' attributes.
func (i f64Counter) Add(ctx context.Context, v float64, opts ...metric.AddOption) {
	i.s.measure(ctx, v, metric.NewAddConfig(opts).Attributes())
}

// Enabled reports true: every measurement is recorded.
func (f64Counter) Enabled(context.Context) bool { return true }

type f64UpDown struct {
	embedded.Float64UpDownCounter
	s *stream[float64]
}

// Add adds v to the series of the options\' attributes.
func (i f64UpDown) Add(ctx context.Context, v float64, opts ...metric.AddOption) {
	i.s.measure(ctx, v, metric.NewAddConfig(opts).Attributes())
}

// Enabled reports true: every measurement is recorded.
func (f64UpDown) Enabled(context.Context) bool { return true }

type f64Histogram struct {
	embedded.Float64Histogram
	s *stream[float64]
}

// Record records v in the series of the options\' attributes.
func (i f64Histogram) Record(ctx context.Context, v float64, opts ...metric.RecordOption) {
	i.s.measure(ctx, v, metric.NewRecordConfig(opts).Attributes())
}

// Enabled reports true: every measurement is recorded.
func (f64Histogram) Enabled(context.Context) bool { return true }

type f64Gauge struct {
	embedded.Float64Gauge
	s *stream[float64]
}

// Record records v in the series of the options\' attributes.
func (i f64Gauge) Record(ctx context.Context, v float64, opts ...metric.RecordOption) {
	i.s.measure(ctx, v, metric.NewRecordConfig(opts).Attributes())
}

// Enabled reports true: every measurement is recorded.
func (f64Gauge) Enabled(context.Context) bool { return true }

type i64Counter struct {
	embedded.Int64Counter
	s *stream[int64]
}

// Add adds v to the series of the options\' attributes.
func (i i64Counter) Add(ctx context.Context, v int64, opts ...metric.AddOption) {
	i.s.measure(ctx, v, metric.NewAddConfig(opts).Attributes())
}

// Enabled reports true: every measurement is recorded.
func (i64Counter) Enabled(context.Context) bool { return true }

type i64UpDown struct {
	embedded.Int64UpDownCounter
	s *stream[int64]
}

// Add adds v to the series of the options\' attributes.
func (i i64UpDown) Add(ctx context.Context, v int64, opts ...metric.AddOption) {
	i.s.measure(ctx, v, metric.NewAddConfig(opts).Attributes())
}

// Enabled reports true: every measurement is recorded.
func (i64UpDown) Enabled(context.Context) bool { return true }

type i64Histogram struct {
	embedded.Int64Histogram
	s *stream[int64]
}

// Record records v in the series of the options\' attributes.
func (i i64Histogram) Record(ctx context.Context, v int64, opts ...metric.RecordOption) {
	i.s.measure(ctx, v, metric.NewRecordConfig(opts).Attributes())
}

// Enabled reports true: every measurement is recorded.
func (i64Histogram) Enabled(context.Context) bool { return true }

type i64Gauge struct {
	embedded.Int64Gauge
	s *stream[int64]
}

// Record records v in the series of the options\' attributes.
func (i i64Gauge) Record(ctx context.Context, v int64, opts ...metric.RecordOption) {
	i.s.measure(ctx, v, metric.NewRecordConfig(opts).Attributes())
}

// Enabled reports true: every measurement is recorded.
func (i64Gauge) Enabled(context.Context) bool { return true }
