package sdk_test

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	mcpotel "github.com/mcpwire/mcpwire/otel"
	"github.com/mcpwire/mcpwire/otel/internal/sdk"
)

// What the differential tests compare: the messages that otlptest's
// receiver decoded (with the official proto types) from the official
// SDK and exporters on one side, from mcpwire's on the other, each span
// and each data point written out as text once what must differ is made
// the same:
//
//   - trace and span ids, random on both sides, become labels (s1, s2,
//     ... t1, ...) given in the order of the spans sorted by everything
//     else, so that parents, links and exemplars still say which span
//     they name;
//   - times, checked to be set (and a span's end not before its start),
//     become zero;
//   - the resource's telemetry.sdk.* attributes and its schema URL, which
//     name the SDK, are checked on mcpwire's side and left out on both;
//   - an exception's stack trace, checked to be one, becomes "<stack>";
//   - the trace state of links, which mcpwire's exporter sends and the
//     official one leaves out, is left out;
//   - the exemplars of exponential histograms, which the official SDK
//     keeps (chosen at random) and mcpwire's does not, are left out;
//   - with zeroLimits (event and link count limits of 0), mcpwire's
//     dropped event and link counts of spans that kept none are left
//     out: the official SDK counts what it drops but exports the count
//     only with what it kept;
//   - the sums of histograms, which the official SDK adds in another
//     order (integers apart), are rounded to 12 significant digits;
//   - with fuzzy set (the instrumentation's durations are real times),
//     the sum, min, max and buckets of histogram points and their
//     exemplars are left out; their count stays.
//
// How requests are cut (how many spans in a batch, which collection a
// point is in) is not compared: the spans and the points of all the
// requests of a side are sorted and compared as a whole.

// normalizer holds the labels given to ids, shared by the spans and the
// exemplars of one side.
type normalizer struct {
	t      *testing.T
	side   string
	ours   bool
	fuzzy  bool
	labels map[string]string
	n      int
	// cut, when positive, cuts the string attributes of events and
	// links of the official side to that many characters: the official
	// Go SDK does not apply the length limit to them (mcpwire's does,
	// as the specification says).
	cut        int
	zeroLimits bool
}

func (n *normalizer) label(id []byte, prefix string) []byte {
	if len(id) == 0 {
		return nil
	}
	if n.labels == nil {
		n.labels = map[string]string{}
	}
	l, ok := n.labels[string(id)]
	if !ok {
		n.n++
		l = fmt.Sprintf("%s%d", prefix, n.n)
		n.labels[string(id)] = l
	}
	return []byte(l)
}

func (n *normalizer) resource(r *resourcepb.Resource, schema *string) {
	if n.ours {
		got := map[string]string{}
		for _, kv := range r.GetAttributes() {
			if strings.HasPrefix(kv.Key, "telemetry.sdk.") {
				got[kv.Key] = kv.GetValue().GetStringValue()
			}
		}
		if got["telemetry.sdk.name"] != sdk.SDKName || got["telemetry.sdk.language"] != "go" || got["telemetry.sdk.version"] == "" {
			n.t.Errorf("%s: the resource's telemetry.sdk attributes: %v", n.side, got)
		}
		if *schema != mcpotel.SchemaURL {
			n.t.Errorf("%s: the resource's schema URL %q, want %q", n.side, *schema, mcpotel.SchemaURL)
		}
	}
	*schema = ""
	if r != nil {
		r.Attributes = slices.DeleteFunc(r.Attributes, func(kv *commonpb.KeyValue) bool { return strings.HasPrefix(kv.Key, "telemetry.sdk.") })
	}
}

// time checks that a time is set and returns zero.
func (n *normalizer) time(what string, v uint64) uint64 {
	if v == 0 {
		n.t.Errorf("%s: %s has no time", n.side, what)
	}
	return 0
}

func (n *normalizer) attrs(kvs []*commonpb.KeyValue, cut bool) {
	for _, kv := range kvs {
		sv, ok := kv.GetValue().GetValue().(*commonpb.AnyValue_StringValue)
		if ok && cut && !n.ours && n.cut > 0 && utf8.RuneCountInString(sv.StringValue) > n.cut {
			sv.StringValue = string([]rune(sv.StringValue)[:n.cut])
		}
		if kv.Key == "exception.stacktrace" {
			// A stack, or its start under a length limit.
			const start = "goroutine "
			if s := kv.GetValue().GetStringValue(); !strings.HasPrefix(s, start) && (s == "" || !strings.HasPrefix(start, s)) {
				n.t.Errorf("%s: exception.stacktrace %q", n.side, s)
			}
			kv.Value = &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: "<stack>"}}
		}
	}
}

// spans returns the spans of reqs as text, normalized and sorted.
func (n *normalizer) spans(reqs []*coltracepb.ExportTraceServiceRequest) []string {
	type rec struct {
		rs  *tracepb.ResourceSpans
		key string
	}
	var recs []rec
	for _, req := range reqs {
		for _, rs := range req.ResourceSpans {
			n.resource(rs.Resource, &rs.SchemaUrl)
			for _, ss := range rs.ScopeSpans {
				for _, sp := range ss.Spans {
					if sp.EndTimeUnixNano < sp.StartTimeUnixNano {
						n.t.Errorf("%s: span %q ends before it starts", n.side, sp.Name)
					}
					sp.StartTimeUnixNano = n.time("span "+sp.Name, sp.StartTimeUnixNano)
					sp.EndTimeUnixNano = n.time("span "+sp.Name, sp.EndTimeUnixNano)
					n.attrs(sp.Attributes, false)
					for _, e := range sp.Events {
						e.TimeUnixNano = n.time("event "+e.Name, e.TimeUnixNano)
						n.attrs(e.Attributes, true)
					}
					for _, l := range sp.Links {
						n.attrs(l.Attributes, true)
						l.TraceState = ""
					}
					if n.ours && n.zeroLimits {
						if len(sp.Events) == 0 {
							sp.DroppedEventsCount = 0
						}
						if len(sp.Links) == 0 {
							sp.DroppedLinksCount = 0
						}
					}
					one := &tracepb.ResourceSpans{Resource: rs.Resource, SchemaUrl: rs.SchemaUrl, ScopeSpans: []*tracepb.ScopeSpans{
						{Scope: ss.Scope, SchemaUrl: ss.SchemaUrl, Spans: []*tracepb.Span{sp}},
					}}
					recs = append(recs, rec{rs: one, key: text(withoutIDs(one))})
				}
			}
		}
	}
	slices.SortStableFunc(recs, func(a, b rec) int { return strings.Compare(a.key, b.key) })
	out := make([]string, len(recs))
	for i, r := range recs {
		sp := r.rs.ScopeSpans[0].Spans[0]
		sp.TraceId, sp.SpanId = n.label(sp.TraceId, "t"), n.label(sp.SpanId, "s")
		sp.ParentSpanId = n.label(sp.ParentSpanId, "s")
		for _, l := range sp.Links {
			l.TraceId, l.SpanId = n.label(l.TraceId, "t"), n.label(l.SpanId, "s")
		}
		out[i] = text(r.rs)
	}
	return out
}

func withoutIDs(rs *tracepb.ResourceSpans) *tracepb.ResourceSpans {
	c := proto.Clone(rs).(*tracepb.ResourceSpans)
	sp := c.ScopeSpans[0].Spans[0]
	sp.TraceId, sp.SpanId, sp.ParentSpanId = nil, nil, nil
	for _, l := range sp.Links {
		l.TraceId, l.SpanId = nil, nil
	}
	return c
}

// points returns the data points of reqs as text, each with its
// resource, scope and metric, normalized and sorted.
func (n *normalizer) points(reqs []*colmetricpb.ExportMetricsServiceRequest) []string {
	var out []string
	for _, req := range reqs {
		for _, rm := range req.ResourceMetrics {
			n.resource(rm.Resource, &rm.SchemaUrl)
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					for _, one := range n.split(m) {
						out = append(out, text(&metricpb.ResourceMetrics{Resource: rm.Resource, SchemaUrl: rm.SchemaUrl, ScopeMetrics: []*metricpb.ScopeMetrics{
							{Scope: sm.Scope, SchemaUrl: sm.SchemaUrl, Metrics: []*metricpb.Metric{one}},
						}}))
					}
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// split returns a metric for each data point of m, normalized.
func (n *normalizer) split(m *metricpb.Metric) []*metricpb.Metric {
	var out []*metricpb.Metric
	one := func(set func(*metricpb.Metric)) {
		c := &metricpb.Metric{Name: m.Name, Description: m.Description, Unit: m.Unit, Metadata: m.Metadata}
		set(c)
		out = append(out, c)
	}
	switch d := m.Data.(type) {
	case *metricpb.Metric_Gauge:
		for _, p := range d.Gauge.DataPoints {
			n.number(m.Name, p)
			one(func(c *metricpb.Metric) {
				c.Data = &metricpb.Metric_Gauge{Gauge: &metricpb.Gauge{DataPoints: []*metricpb.NumberDataPoint{p}}}
			})
		}
	case *metricpb.Metric_Sum:
		for _, p := range d.Sum.DataPoints {
			n.number(m.Name, p)
			one(func(c *metricpb.Metric) {
				c.Data = &metricpb.Metric_Sum{Sum: &metricpb.Sum{DataPoints: []*metricpb.NumberDataPoint{p},
					AggregationTemporality: d.Sum.AggregationTemporality, IsMonotonic: d.Sum.IsMonotonic}}
			})
		}
	case *metricpb.Metric_Histogram:
		for _, p := range d.Histogram.DataPoints {
			p.StartTimeUnixNano, p.TimeUnixNano = n.time(m.Name, p.StartTimeUnixNano), n.time(m.Name, p.TimeUnixNano)
			var total uint64
			for _, c := range p.BucketCounts {
				total += c
			}
			if total != p.Count {
				n.t.Errorf("%s: %s: buckets count %d, the point %d", n.side, m.Name, total, p.Count)
			}
			if n.fuzzy {
				p.Sum, p.Min, p.Max, p.BucketCounts, p.Exemplars = nil, nil, nil, nil, nil
			}
			roundSum(p.Sum)
			n.exemplars(p.Exemplars)
			one(func(c *metricpb.Metric) {
				c.Data = &metricpb.Metric_Histogram{Histogram: &metricpb.Histogram{DataPoints: []*metricpb.HistogramDataPoint{p},
					AggregationTemporality: d.Histogram.AggregationTemporality}}
			})
		}
	case *metricpb.Metric_ExponentialHistogram:
		for _, p := range d.ExponentialHistogram.DataPoints {
			p.StartTimeUnixNano, p.TimeUnixNano = n.time(m.Name, p.StartTimeUnixNano), n.time(m.Name, p.TimeUnixNano)
			p.Exemplars = nil
			roundSum(p.Sum)
			one(func(c *metricpb.Metric) {
				c.Data = &metricpb.Metric_ExponentialHistogram{ExponentialHistogram: &metricpb.ExponentialHistogram{
					DataPoints: []*metricpb.ExponentialHistogramDataPoint{p}, AggregationTemporality: d.ExponentialHistogram.AggregationTemporality}}
			})
		}
	default:
		n.t.Errorf("%s: metric %s of %T", n.side, m.Name, m.Data)
	}
	return out
}

func (n *normalizer) number(name string, p *metricpb.NumberDataPoint) {
	p.StartTimeUnixNano, p.TimeUnixNano = n.time(name, p.StartTimeUnixNano), n.time(name, p.TimeUnixNano)
	n.exemplars(p.Exemplars)
}

func (n *normalizer) exemplars(xs []*metricpb.Exemplar) {
	for _, x := range xs {
		x.TimeUnixNano = n.time("an exemplar", x.TimeUnixNano)
		x.TraceId, x.SpanId = n.label(x.TraceId, "t"), n.label(x.SpanId, "s")
	}
}

// roundSum rounds a sum to 12 significant digits.
func roundSum(sum *float64) {
	if sum != nil && !math.IsInf(*sum, 0) && !math.IsNaN(*sum) {
		*sum, _ = strconv.ParseFloat(strconv.FormatFloat(*sum, 'g', 12, 64), 64)
	}
}

func text(m proto.Message) string {
	return prototext.MarshalOptions{Multiline: true, Indent: " "}.Format(m)
}

// same fails the test if the texts of the two sides differ, showing the
// first that differs.
func same(t *testing.T, what string, official, ours []string) {
	t.Helper()
	if slices.Equal(official, ours) {
		return
	}
	t.Errorf("%s: %d official, %d ours", what, len(official), len(ours))
	for i := range max(len(official), len(ours)) {
		var o, m string
		if i < len(official) {
			o = official[i]
		}
		if i < len(ours) {
			m = ours[i]
		}
		if o != m {
			t.Errorf("%s: #%d differs:\nofficial:\n%s\nours:\n%s\n%s", what, i, o, m, lineDiff(o, m))
			return
		}
	}
}

func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("first different line %d:\nofficial: %s\nours:     %s", i+1, al[i], bl[i])
		}
	}
	return "one is a prefix of the other"
}
