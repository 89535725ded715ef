package otlphttp

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpwire/mcpwire/otel/internal/sdk"
)

// MetricExporter exports metrics over OTLP/HTTP: an
// ExportMetricsServiceRequest POSTed to the metrics URL. It is an
// sdk.MetricExporter, for the periodic reader.
type MetricExporter struct {
	c *client
}

var _ sdk.MetricExporter = (*MetricExporter)(nil)

// NewMetricExporter returns an exporter that sends metrics as cfg says.
func NewMetricExporter(cfg *Config) (*MetricExporter, error) {
	c, err := newClient(cfg, "metric data points")
	if err != nil {
		return nil, err
	}
	return &MetricExporter{c: c}, nil
}

// Export sends rm in one request, retrying what the endpoint asks to
// retry within the timeout and ctx. A metric it cannot encode (a kind or
// a temporality it does not know) is left out of the request and
// reported in the error, with the others sent. After Shutdown it returns
// ErrShutdown.
func (x *MetricExporter) Export(ctx context.Context, rm *sdk.ResourceMetrics) error {
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
func (e *encoder) metrics(rm *sdk.ResourceMetrics) error {
	var errs []error
	r := e.begin(1)
	rs := e.begin(1)
	if rm.Resource != nil {
		e.set(1, rm.Resource.Set())
	}
	e.end(rs)
	for i := range rm.Scopes {
		sm := &rm.Scopes[i]
		s := e.begin(2)
		scope := sm.Scope
		if scope == nil {
			scope = &sdk.Scope{}
		}
		e.scope(1, scope)
		for j := range sm.Metrics {
			if err := e.metric(2, &sm.Metrics[j]); err != nil {
				errs = append(errs, err)
			}
		}
		e.str(3, scope.SchemaURL)
		e.end(s)
	}
	if rm.Resource != nil {
		e.str(3, rm.Resource.SchemaURL())
	}
	e.end(r)
	return errors.Join(errs...)
}

// ErrUnsupported is the error of a metric the exporter cannot encode.
var ErrUnsupported = errors.New("otlphttp: metric not supported")

// metric writes a Metric: name 1, description 2, unit 3, and one of
// gauge 5, sum 7, histogram 9, exponential_histogram 10. When it cannot,
// it writes nothing and returns an error.
func (e *encoder) metric(field int, m *sdk.Metric) error {
	mark := len(e.b)
	s := e.begin(field)
	e.str(1, m.Name)
	e.str(2, m.Description)
	e.str(3, m.Unit)
	var err error
	switch m.Kind {
	case sdk.KindGauge:
		e.gauge(m)
	case sdk.KindSum:
		err = e.sum(m)
	case sdk.KindHistogram:
		err = e.histogram(m)
	case sdk.KindExpHistogram:
		err = e.expHistogram(m)
	default:
		err = fmt.Errorf("%w: kind %d", ErrUnsupported, m.Kind)
	}
	if err != nil {
		e.b = e.b[:mark]
		return fmt.Errorf("metric %q: %w", m.Name, err)
	}
	e.end(s)
	return nil
}

// temporality is the AggregationTemporality of t: DELTA 1, CUMULATIVE 2.
func temporality(t sdk.Temporality) (uint64, error) {
	switch t {
	case sdk.Delta:
		return 1, nil
	case sdk.Cumulative:
		return 2, nil
	}
	return 0, fmt.Errorf("%w: temporality %d", ErrUnsupported, t)
}

// gauge writes a Gauge (field 5): data_points 1.
func (e *encoder) gauge(m *sdk.Metric) {
	s := e.begin(5)
	for i := range m.Numbers {
		e.numberPoint(1, &m.Numbers[i], m.Int)
	}
	e.end(s)
}

// sum writes a Sum (field 7): data_points 1, aggregation_temporality 2,
// is_monotonic 3.
func (e *encoder) sum(m *sdk.Metric) error {
	t, err := temporality(m.Temporality)
	if err != nil {
		return err
	}
	s := e.begin(7)
	for i := range m.Numbers {
		e.numberPoint(1, &m.Numbers[i], m.Int)
	}
	e.uvarint(2, t)
	e.boolean(3, m.Monotonic)
	e.end(s)
	return nil
}

// numberPoint writes a NumberDataPoint: start_time_unix_nano 2,
// time_unix_nano 3, exemplars 5, attributes 7, then the oneof value,
// as_double 4 or as_int 6 (sfixed64).
func (e *encoder) numberPoint(field int, p *sdk.NumberPoint, isInt bool) {
	s := e.begin(field)
	e.fixed64(2, unixNano(p.Start))
	e.fixed64(3, unixNano(p.Time))
	e.exemplars(5, p.Exemplars, isInt)
	e.set(7, &p.Attributes)
	e.number(4, 6, isInt, p.Int, p.Float)
	e.end(s)
}

// number writes the oneof of a float64 (as a double) or an int64 (as an
// sfixed64).
func (e *encoder) number(doubleField, intField int, isInt bool, i int64, f float64) {
	if isInt {
		e.fixed64Always(intField, uint64(i))
	} else {
		e.doubleAlways(doubleField, f)
	}
}

// histogram writes a Histogram (field 9): data_points 1,
// aggregation_temporality 2.
func (e *encoder) histogram(m *sdk.Metric) error {
	t, err := temporality(m.Temporality)
	if err != nil {
		return err
	}
	s := e.begin(9)
	for i := range m.Histograms {
		// HistogramDataPoint: start_time_unix_nano 2, time_unix_nano 3,
		// count 4, sum 5 (optional, always set), bucket_counts 6,
		// explicit_bounds 7, exemplars 8, attributes 9, min 11, max 12
		// (optional).
		p := &m.Histograms[i]
		ps := e.begin(1)
		e.fixed64(2, unixNano(p.Start))
		e.fixed64(3, unixNano(p.Time))
		e.fixed64(4, p.Count)
		e.doubleAlways(5, p.Sum)
		e.packedFixed64(6, p.Counts)
		e.packedDouble(7, p.Bounds)
		e.exemplars(8, p.Exemplars, m.Int)
		e.set(9, &p.Attributes)
		if p.HasMinMax {
			e.doubleAlways(11, p.Min)
			e.doubleAlways(12, p.Max)
		}
		e.end(ps)
	}
	e.uvarint(2, t)
	e.end(s)
	return nil
}

// expHistogram writes an ExponentialHistogram (field 10): data_points 1,
// aggregation_temporality 2.
func (e *encoder) expHistogram(m *sdk.Metric) error {
	t, err := temporality(m.Temporality)
	if err != nil {
		return err
	}
	s := e.begin(10)
	for i := range m.ExpHistograms {
		// ExponentialHistogramDataPoint: attributes 1,
		// start_time_unix_nano 2, time_unix_nano 3, count 4, sum 5
		// (optional, always set), scale 6 (sint32), zero_count 7,
		// positive 8, negative 9 (always present), exemplars 11, min 12,
		// max 13 (optional), zero_threshold 14.
		p := &m.ExpHistograms[i]
		ps := e.begin(1)
		e.set(1, &p.Attributes)
		e.fixed64(2, unixNano(p.Start))
		e.fixed64(3, unixNano(p.Time))
		e.fixed64(4, p.Count)
		e.doubleAlways(5, p.Sum)
		e.sint32(6, p.Scale)
		e.fixed64(7, p.ZeroCount)
		e.buckets(8, &p.Positive)
		e.buckets(9, &p.Negative)
		e.exemplars(11, p.Exemplars, m.Int)
		if p.HasMinMax {
			e.doubleAlways(12, p.Min)
			e.doubleAlways(13, p.Max)
		}
		e.double(14, p.ZeroThreshold)
		e.end(ps)
	}
	e.uvarint(2, t)
	e.end(s)
	return nil
}

// buckets writes the Buckets of an exponential histogram: offset 1
// (sint32), bucket_counts 2 (packed varints).
func (e *encoder) buckets(field int, b *sdk.Buckets) {
	s := e.begin(field)
	e.sint32(1, b.Offset)
	e.packedUvarint(2, b.Counts)
	e.end(s)
}

// exemplars writes Exemplars: time_unix_nano 2, span_id 4, trace_id 5
// (each left out without a span), filtered_attributes 7, then the oneof
// value, as_double 3 or as_int 6 (sfixed64).
func (e *encoder) exemplars(field int, xs []sdk.Exemplar, isInt bool) {
	for i := range xs {
		x := &xs[i]
		s := e.begin(field)
		e.fixed64(2, unixNano(x.Time))
		if x.SpanID.IsValid() {
			e.bytes(4, x.SpanID[:])
		}
		if x.TraceID.IsValid() {
			e.bytes(5, x.TraceID[:])
		}
		e.attrs(7, x.FilteredAttributes)
		e.number(3, 6, isInt, x.Int, x.Float)
		e.end(s)
	}
}
