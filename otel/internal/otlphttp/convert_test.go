package otlphttp

import (
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/mcpwire/mcpwire/otel/internal/sdk"
)

// The differential tests of the encoder give both exporters the same
// data: the official SDK's types for the official exporters, converted
// to mcpwire's SDK's types for this one. Spans of equal resources share
// one *sdk.Resource (as the spans of one provider do), and spans of equal
// scopes one *sdk.Scope.

type converter struct {
	res    map[attribute.Distinct]*sdk.Resource
	scopes map[instrumentation.Scope]*sdk.Scope
}

func newConverter() *converter {
	return &converter{res: map[attribute.Distinct]*sdk.Resource{}, scopes: map[instrumentation.Scope]*sdk.Scope{}}
}

func (c *converter) resource(r *resource.Resource) *sdk.Resource {
	if r == nil {
		return nil
	}
	k := r.Equivalent()
	if x, ok := c.res[k]; ok {
		return x
	}
	x := sdk.NewResource(r.SchemaURL(), r.Attributes()...)
	c.res[k] = x
	return x
}

func (c *converter) scope(s instrumentation.Scope) *sdk.Scope {
	if x, ok := c.scopes[s]; ok {
		return x
	}
	x := &sdk.Scope{Name: s.Name, Version: s.Version, SchemaURL: s.SchemaURL, Attributes: s.Attributes}
	c.scopes[s] = x
	return x
}

// toSDK converts the official SDK's spans.
func toSDK(spans []sdktrace.ReadOnlySpan) []*sdk.SpanData {
	c := newConverter()
	out := make([]*sdk.SpanData, len(spans))
	for i, s := range spans {
		st := s.Status()
		d := &sdk.SpanData{
			Resource: c.resource(s.Resource()), Scope: c.scope(s.InstrumentationScope()),
			Name: s.Name(), SpanContext: s.SpanContext(), Parent: s.Parent(), Kind: s.SpanKind(),
			Start: s.StartTime(), End: s.EndTime(),
			Attributes: s.Attributes(), DroppedAttributes: s.DroppedAttributes(),
			DroppedEvents: s.DroppedEvents(), DroppedLinks: s.DroppedLinks(),
			Status: st.Code, StatusDescription: st.Description,
		}
		for _, e := range s.Events() {
			d.Events = append(d.Events, sdk.Event{Name: e.Name, Time: e.Time, Attributes: e.Attributes, DroppedAttributes: e.DroppedAttributeCount})
		}
		for _, l := range s.Links() {
			d.Links = append(d.Links, sdk.Link{SpanContext: l.SpanContext, Attributes: l.Attributes, DroppedAttributes: l.DroppedAttributeCount})
		}
		out[i] = d
	}
	return out
}

// toSDKMetrics converts the official SDK's metrics (summaries, which
// mcpwire's SDK does not make, are left out).
func toSDKMetrics(rm *metricdata.ResourceMetrics) *sdk.ResourceMetrics {
	c := newConverter()
	out := &sdk.ResourceMetrics{Resource: c.resource(rm.Resource)}
	for _, sm := range rm.ScopeMetrics {
		s := sdk.ScopeMetrics{Scope: c.scope(sm.Scope)}
		for _, m := range sm.Metrics {
			x := sdk.Metric{Name: m.Name, Description: m.Description, Unit: m.Unit}
			switch a := m.Data.(type) {
			case metricdata.Gauge[int64]:
				x.Kind, x.Int, x.Numbers = sdk.KindGauge, true, numbers(a.DataPoints)
			case metricdata.Gauge[float64]:
				x.Kind, x.Numbers = sdk.KindGauge, numbers(a.DataPoints)
			case metricdata.Sum[int64]:
				x.Kind, x.Int, x.Temporality, x.Monotonic, x.Numbers = sdk.KindSum, true, temporalityOf(a.Temporality), a.IsMonotonic, numbers(a.DataPoints)
			case metricdata.Sum[float64]:
				x.Kind, x.Temporality, x.Monotonic, x.Numbers = sdk.KindSum, temporalityOf(a.Temporality), a.IsMonotonic, numbers(a.DataPoints)
			case metricdata.Histogram[int64]:
				x.Kind, x.Int, x.Temporality, x.Histograms = sdk.KindHistogram, true, temporalityOf(a.Temporality), histograms(a.DataPoints)
			case metricdata.Histogram[float64]:
				x.Kind, x.Temporality, x.Histograms = sdk.KindHistogram, temporalityOf(a.Temporality), histograms(a.DataPoints)
			case metricdata.ExponentialHistogram[int64]:
				x.Kind, x.Int, x.Temporality, x.ExpHistograms = sdk.KindExpHistogram, true, temporalityOf(a.Temporality), expHistograms(a.DataPoints)
			case metricdata.ExponentialHistogram[float64]:
				x.Kind, x.Temporality, x.ExpHistograms = sdk.KindExpHistogram, temporalityOf(a.Temporality), expHistograms(a.DataPoints)
			default:
				continue
			}
			s.Metrics = append(s.Metrics, x)
		}
		out.Scopes = append(out.Scopes, s)
	}
	return out
}

func temporalityOf(t metricdata.Temporality) sdk.Temporality {
	switch t {
	case metricdata.CumulativeTemporality:
		return sdk.Cumulative
	case metricdata.DeltaTemporality:
		return sdk.Delta
	}
	return 99
}

func setNumber[N int64 | float64](i *int64, f *float64, v N) {
	switch v := any(v).(type) {
	case int64:
		*i = v
	case float64:
		*f = v
	}
}

func numbers[N int64 | float64](ps []metricdata.DataPoint[N]) []sdk.NumberPoint {
	out := make([]sdk.NumberPoint, len(ps))
	for i, p := range ps {
		out[i] = sdk.NumberPoint{Attributes: p.Attributes, Start: p.StartTime, Time: p.Time, Exemplars: exemplars(p.Exemplars)}
		setNumber(&out[i].Int, &out[i].Float, p.Value)
	}
	return out
}

func histograms[N int64 | float64](ps []metricdata.HistogramDataPoint[N]) []sdk.HistogramPoint {
	out := make([]sdk.HistogramPoint, len(ps))
	for i, p := range ps {
		mn, ok := p.Min.Value()
		mx, _ := p.Max.Value()
		out[i] = sdk.HistogramPoint{Attributes: p.Attributes, Start: p.StartTime, Time: p.Time, Count: p.Count, Sum: float64(p.Sum),
			Min: float64(mn), Max: float64(mx), HasMinMax: ok, Bounds: p.Bounds, Counts: p.BucketCounts, Exemplars: exemplars(p.Exemplars)}
	}
	return out
}

func expHistograms[N int64 | float64](ps []metricdata.ExponentialHistogramDataPoint[N]) []sdk.ExpHistogramPoint {
	out := make([]sdk.ExpHistogramPoint, len(ps))
	for i, p := range ps {
		mn, ok := p.Min.Value()
		mx, _ := p.Max.Value()
		out[i] = sdk.ExpHistogramPoint{Attributes: p.Attributes, Start: p.StartTime, Time: p.Time, Count: p.Count, Sum: float64(p.Sum),
			Min: float64(mn), Max: float64(mx), HasMinMax: ok, Scale: p.Scale, ZeroCount: p.ZeroCount, ZeroThreshold: p.ZeroThreshold,
			Positive:  sdk.Buckets{Offset: p.PositiveBucket.Offset, Counts: p.PositiveBucket.Counts},
			Negative:  sdk.Buckets{Offset: p.NegativeBucket.Offset, Counts: p.NegativeBucket.Counts},
			Exemplars: exemplars(p.Exemplars)}
	}
	return out
}

func exemplars[N int64 | float64](xs []metricdata.Exemplar[N]) []sdk.Exemplar {
	var out []sdk.Exemplar
	for _, x := range xs {
		e := sdk.Exemplar{FilteredAttributes: x.FilteredAttributes, Time: x.Time}
		setNumber(&e.Int, &e.Float, x.Value)
		copy(e.TraceID[:], x.TraceID)
		copy(e.SpanID[:], x.SpanID)
		out = append(out, e)
	}
	return out
}
