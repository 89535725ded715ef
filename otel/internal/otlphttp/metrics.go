package otlphttp

import (
	"context"
	"errors"
	"fmt"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// MetricExporter exports metrics over OTLP/HTTP: an
// ExportMetricsServiceRequest POSTed to the metrics URL. It is a
// go.opentelemetry.io/otel/sdk/metric.Exporter, for a periodic reader.
type MetricExporter struct {
	c           *client
	temporality sdkmetric.TemporalitySelector
	aggregation sdkmetric.AggregationSelector
}

var _ sdkmetric.Exporter = (*MetricExporter)(nil)

// NewMetricExporter returns an exporter that sends metrics as cfg says.
func NewMetricExporter(cfg *Config) (*MetricExporter, error) {
	c, err := newClient(cfg, "metric data points")
	if err != nil {
		return nil, err
	}
	x := &MetricExporter{c: c, temporality: cfg.Temporality, aggregation: cfg.Aggregation}
	if x.temporality == nil {
		x.temporality = sdkmetric.DefaultTemporalitySelector
	}
	if x.aggregation == nil {
		x.aggregation = sdkmetric.DefaultAggregationSelector
	}
	return x, nil
}

// Temporality returns the temporality of Config.Temporality for an
// instrument kind: cumulative by default.
func (x *MetricExporter) Temporality(k sdkmetric.InstrumentKind) metricdata.Temporality {
	return x.temporality(k)
}

// Aggregation returns the aggregation of Config.Aggregation for an
// instrument kind: the SDK's default by default.
func (x *MetricExporter) Aggregation(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	return x.aggregation(k)
}

// Export sends rm in one request, retrying what the endpoint asks to
// retry within the timeout and ctx. A metric it cannot encode (an
// aggregation it does not know, an unknown temporality) is left out of
// the request and reported in the error, with the others sent. After
// Shutdown it returns ErrShutdown.
func (x *MetricExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	if x.c.isShutdown() {
		return ErrShutdown
	}
	e := encoder{b: make([]byte, 0, x.c.sizeHint())}
	encErr := e.metrics(rm)
	if err := x.c.send(ctx, e.b); err != nil {
		return errors.Join(fmt.Errorf("otlphttp: exporting metrics: %w", err), encErr)
	}
	return encErr
}

// ForceFlush does nothing (the exporter holds nothing) but report ctx's
// error, or ErrShutdown after Shutdown.
func (x *MetricExporter) ForceFlush(ctx context.Context) error {
	if x.c.isShutdown() {
		return ErrShutdown
	}
	return ctx.Err()
}

// Shutdown stops the exporter: an export in progress is cancelled, and
// Shutdown waits, within ctx, for it to end. Later exports fail with
// ErrShutdown, and so does a second Shutdown.
func (x *MetricExporter) Shutdown(ctx context.Context) error {
	return x.c.shutdown(ctx)
}

// metrics writes the ExportMetricsServiceRequest of rm: resource_metrics
// 1, one ResourceMetrics (resource 1, always present; scope_metrics 2;
// schema_url 3), each ScopeMetrics with scope 1 (always present),
// metrics 2, schema_url 3. It returns the error of the metrics it left
// out.
func (e *encoder) metrics(rm *metricdata.ResourceMetrics) error {
	var errs []error
	r := e.begin(1)
	rs := e.begin(1)
	e.set(1, rm.Resource.Set())
	e.end(rs)
	for i := range rm.ScopeMetrics {
		sm := &rm.ScopeMetrics[i]
		s := e.begin(2)
		e.scope(1, &sm.Scope)
		for j := range sm.Metrics {
			if err := e.metric(2, &sm.Metrics[j]); err != nil {
				errs = append(errs, err)
			}
		}
		e.str(3, sm.Scope.SchemaURL)
		e.end(s)
	}
	e.str(3, rm.Resource.SchemaURL())
	e.end(r)
	return errors.Join(errs...)
}

// ErrUnsupported is the error of a metric the exporter cannot encode.
var ErrUnsupported = errors.New("otlphttp: metric not supported")

// metric writes a Metric: name 1, description 2, unit 3, and one of
// gauge 5, sum 7, histogram 9, exponential_histogram 10, summary 11.
// When it cannot, it writes nothing and returns an error.
func (e *encoder) metric(field int, m *metricdata.Metrics) error {
	mark := len(e.b)
	s := e.begin(field)
	e.str(1, m.Name)
	e.str(2, m.Description)
	e.str(3, m.Unit)
	var err error
	switch a := m.Data.(type) {
	case metricdata.Gauge[int64]:
		gauge(e, a)
	case metricdata.Gauge[float64]:
		gauge(e, a)
	case metricdata.Sum[int64]:
		err = sum(e, a)
	case metricdata.Sum[float64]:
		err = sum(e, a)
	case metricdata.Histogram[int64]:
		err = histogram(e, a)
	case metricdata.Histogram[float64]:
		err = histogram(e, a)
	case metricdata.ExponentialHistogram[int64]:
		err = expHistogram(e, a)
	case metricdata.ExponentialHistogram[float64]:
		err = expHistogram(e, a)
	case metricdata.Summary:
		summary(e, a)
	default:
		err = fmt.Errorf("%w: aggregation %T", ErrUnsupported, a)
	}
	if err != nil {
		e.b = e.b[:mark]
		return fmt.Errorf("metric %q: %w", m.Name, err)
	}
	e.end(s)
	return nil
}

// temporality is the AggregationTemporality of t: DELTA 1, CUMULATIVE 2.
func temporality(t metricdata.Temporality) (uint64, error) {
	switch t {
	case metricdata.DeltaTemporality:
		return 1, nil
	case metricdata.CumulativeTemporality:
		return 2, nil
	}
	return 0, fmt.Errorf("%w: temporality %v", ErrUnsupported, t)
}

// gauge writes a Gauge (field 5): data_points 1.
func gauge[N int64 | float64](e *encoder, g metricdata.Gauge[N]) {
	s := e.begin(5)
	for i := range g.DataPoints {
		numberPoint(e, 1, &g.DataPoints[i])
	}
	e.end(s)
}

// sum writes a Sum (field 7): data_points 1, aggregation_temporality 2,
// is_monotonic 3.
func sum[N int64 | float64](e *encoder, a metricdata.Sum[N]) error {
	t, err := temporality(a.Temporality)
	if err != nil {
		return err
	}
	s := e.begin(7)
	for i := range a.DataPoints {
		numberPoint(e, 1, &a.DataPoints[i])
	}
	e.uvarint(2, t)
	e.boolean(3, a.IsMonotonic)
	e.end(s)
	return nil
}

// numberPoint writes a NumberDataPoint: start_time_unix_nano 2,
// time_unix_nano 3, exemplars 5, attributes 7, then the oneof value,
// as_double 4 or as_int 6 (sfixed64).
func numberPoint[N int64 | float64](e *encoder, field int, p *metricdata.DataPoint[N]) {
	s := e.begin(field)
	e.fixed64(2, unixNano(p.StartTime))
	e.fixed64(3, unixNano(p.Time))
	exemplars(e, 5, p.Exemplars)
	e.set(7, &p.Attributes)
	number(e, 4, 6, p.Value)
	e.end(s)
}

// number writes the oneof of a float64 (as a double) or an int64 (as an
// sfixed64).
func number[N int64 | float64](e *encoder, doubleField, intField int, v N) {
	switch v := any(v).(type) {
	case float64:
		e.doubleAlways(doubleField, v)
	case int64:
		e.fixed64Always(intField, uint64(v))
	}
}

// histogram writes a Histogram (field 9): data_points 1,
// aggregation_temporality 2.
func histogram[N int64 | float64](e *encoder, h metricdata.Histogram[N]) error {
	t, err := temporality(h.Temporality)
	if err != nil {
		return err
	}
	s := e.begin(9)
	for i := range h.DataPoints {
		// HistogramDataPoint: start_time_unix_nano 2, time_unix_nano 3,
		// count 4, sum 5 (optional, always set), bucket_counts 6,
		// explicit_bounds 7, exemplars 8, attributes 9, min 11, max 12
		// (optional).
		p := &h.DataPoints[i]
		ps := e.begin(1)
		e.fixed64(2, unixNano(p.StartTime))
		e.fixed64(3, unixNano(p.Time))
		e.fixed64(4, p.Count)
		e.doubleAlways(5, float64(p.Sum))
		e.packedFixed64(6, p.BucketCounts)
		e.packedDouble(7, p.Bounds)
		exemplars(e, 8, p.Exemplars)
		e.set(9, &p.Attributes)
		extrema(e, 11, p.Min)
		extrema(e, 12, p.Max)
		e.end(ps)
	}
	e.uvarint(2, t)
	e.end(s)
	return nil
}

// expHistogram writes an ExponentialHistogram (field 10): data_points 1,
// aggregation_temporality 2.
func expHistogram[N int64 | float64](e *encoder, h metricdata.ExponentialHistogram[N]) error {
	t, err := temporality(h.Temporality)
	if err != nil {
		return err
	}
	s := e.begin(10)
	for i := range h.DataPoints {
		// ExponentialHistogramDataPoint: attributes 1,
		// start_time_unix_nano 2, time_unix_nano 3, count 4, sum 5
		// (optional, always set), scale 6 (sint32), zero_count 7,
		// positive 8, negative 9 (always present), exemplars 11, min 12,
		// max 13 (optional), zero_threshold 14.
		p := &h.DataPoints[i]
		ps := e.begin(1)
		e.set(1, &p.Attributes)
		e.fixed64(2, unixNano(p.StartTime))
		e.fixed64(3, unixNano(p.Time))
		e.fixed64(4, p.Count)
		e.doubleAlways(5, float64(p.Sum))
		e.sint32(6, p.Scale)
		e.fixed64(7, p.ZeroCount)
		buckets(e, 8, &p.PositiveBucket)
		buckets(e, 9, &p.NegativeBucket)
		exemplars(e, 11, p.Exemplars)
		extrema(e, 12, p.Min)
		extrema(e, 13, p.Max)
		e.double(14, p.ZeroThreshold)
		e.end(ps)
	}
	e.uvarint(2, t)
	e.end(s)
	return nil
}

// buckets writes the Buckets of an exponential histogram: offset 1
// (sint32), bucket_counts 2 (packed varints).
func buckets(e *encoder, field int, b *metricdata.ExponentialBucket) {
	s := e.begin(field)
	e.sint32(1, b.Offset)
	e.packedUvarint(2, b.Counts)
	e.end(s)
}

// summary writes a Summary (field 11): data_points 1, each with
// start_time_unix_nano 2, time_unix_nano 3, count 4, sum 5,
// quantile_values 6 (quantile 1, value 2), attributes 7.
func summary(e *encoder, a metricdata.Summary) {
	s := e.begin(11)
	for i := range a.DataPoints {
		p := &a.DataPoints[i]
		ps := e.begin(1)
		e.fixed64(2, unixNano(p.StartTime))
		e.fixed64(3, unixNano(p.Time))
		e.fixed64(4, p.Count)
		e.double(5, p.Sum)
		for _, q := range p.QuantileValues {
			qs := e.begin(6)
			e.double(1, q.Quantile)
			e.double(2, q.Value)
			e.end(qs)
		}
		e.set(7, &p.Attributes)
		e.end(ps)
	}
	e.end(s)
}

func extrema[N int64 | float64](e *encoder, field int, x metricdata.Extrema[N]) {
	if v, ok := x.Value(); ok {
		e.doubleAlways(field, float64(v))
	}
}

// exemplars writes Exemplars: time_unix_nano 2, span_id 4, trace_id 5,
// filtered_attributes 7, then the oneof value, as_double 3 or as_int 6
// (sfixed64).
func exemplars[N int64 | float64](e *encoder, field int, xs []metricdata.Exemplar[N]) {
	for i := range xs {
		x := &xs[i]
		s := e.begin(field)
		e.fixed64(2, unixNano(x.Time))
		e.bytes(4, x.SpanID)
		e.bytes(5, x.TraceID)
		e.attrs(7, x.FilteredAttributes)
		number(e, 3, 6, x.Value)
		e.end(s)
	}
}
