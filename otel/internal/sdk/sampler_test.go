package sdk

import (
	"context"
	"math"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// TestTraceIDRatioStatistics checks that the ratio sampler samples its
// ratio of random traces (within 6 standard deviations of a binomial
// count: a false failure once in 10^9 runs), in bounded time (a fixed
// number of ids), and that it decides as the official Go SDK's
// TraceIDRatioBased does, id for id.
func TestTraceIDRatioStatistics(t *testing.T) {
	const n = 100_000
	ids := make([]trace.TraceID, n)
	for i := range ids {
		ids[i] = newTraceID()
	}
	for _, r := range []float64{0, 0.001, 0.1, 0.25, 0.5, 0.9, 1} {
		ours, official := TraceIDRatio(r), sdktrace.TraceIDRatioBased(r)
		k := 0
		for _, id := range ids {
			got := ours.sample(trace.SpanContext{}, id)
			want := official.ShouldSample(sdktrace.SamplingParameters{ParentContext: context.Background(), TraceID: id}).Decision == sdktrace.RecordAndSample
			if got != want {
				t.Fatalf("ratio %v, trace %v: sampled %v, the official sampler %v", r, id, got, want)
			}
			if got {
				k++
			}
		}
		mean, sd := r*n, math.Sqrt(n*r*(1-r))
		if math.Abs(float64(k)-mean) > 6*sd {
			t.Errorf("ratio %v: %d of %d sampled, want %v ± %.0f", r, k, n, mean, 6*sd)
		}
	}
}

// TestParentBasedRules checks the specification's rules: a parent-based
// sampler follows a valid parent, remote or local, sampled or not, and
// asks its root sampler for a root span; the others ignore the parent.
func TestParentBasedRules(t *testing.T) {
	tid := trace.TraceID{1}
	parent := func(remote, sampled bool) trace.SpanContext {
		var f trace.TraceFlags
		if sampled {
			f = trace.FlagsSampled
		}
		return trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID{1}, TraceFlags: f, Remote: remote})
	}
	parents := []struct {
		name string
		sc   trace.SpanContext
	}{
		{"root", trace.SpanContext{}},
		{"remote sampled", parent(true, true)},
		{"remote not sampled", parent(true, false)},
		{"local sampled", parent(false, true)},
		{"local not sampled", parent(false, false)},
	}
	for _, c := range []struct {
		s    Sampler
		want [5]bool // for each parent, in order
	}{
		{AlwaysOn(), [5]bool{true, true, true, true, true}},
		{AlwaysOff(), [5]bool{false, false, false, false, false}},
		{TraceIDRatio(0), [5]bool{false, false, false, false, false}},
		{ParentBased(AlwaysOn()), [5]bool{true, true, false, true, false}},
		{ParentBased(AlwaysOff()), [5]bool{false, true, false, true, false}},
		{ParentBased(TraceIDRatio(0)), [5]bool{false, true, false, true, false}},
		{ParentBased(TraceIDRatio(1)), [5]bool{true, true, false, true, false}},
	} {
		for i, p := range parents {
			if got := c.s.sample(p.sc, tid); got != c.want[i] {
				t.Errorf("%s, %s: sampled %v, want %v", c.s, p.name, got, c.want[i])
			}
		}
	}
}

// TestSamplerFromEnv checks the names and arguments of
// OTEL_TRACES_SAMPLER and _ARG, and an error naming the variable for
// what it cannot follow.
func TestSamplerFromEnv(t *testing.T) {
	for _, c := range []struct {
		name, arg, want, wantErr string
	}{
		{want: "parentbased_always_on"},
		{name: "always_on", want: "always_on"},
		{name: " Always_Off ", want: "always_off"},
		{name: "traceidratio", want: "traceidratio(1)"},
		{name: "traceidratio", arg: "0.125", want: "traceidratio(0.125)"},
		{name: "parentbased_traceidratio", arg: "0", want: "parentbased_traceidratio(0)"},
		{name: "parentbased_always_off", arg: "ignored", want: "parentbased_always_off"},
		{name: "traceidratio", arg: "1.5", wantErr: `OTEL_TRACES_SAMPLER_ARG="1.5": want a ratio from 0 to 1`},
		{name: "traceidratio", arg: "-0.1", wantErr: "OTEL_TRACES_SAMPLER_ARG"},
		{name: "traceidratio", arg: "NaN", wantErr: "OTEL_TRACES_SAMPLER_ARG"},
		{name: "parentbased_traceidratio", arg: "half", wantErr: "OTEL_TRACES_SAMPLER_ARG"},
		{name: "jaeger_remote", wantErr: `OTEL_TRACES_SAMPLER="jaeger_remote" is not supported`},
	} {
		env := map[string]string{"OTEL_TRACES_SAMPLER": c.name, "OTEL_TRACES_SAMPLER_ARG": c.arg}
		s, err := SamplerFromEnv(func(k string) string { return env[k] })
		switch {
		case c.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%q %q: error %v, want %q", c.name, c.arg, err, c.wantErr)
			}
		case err != nil:
			t.Errorf("%q %q: %v", c.name, c.arg, err)
		case s.String() != c.want:
			t.Errorf("%q %q: %s, want %s", c.name, c.arg, s, c.want)
		}
	}
}

// TestTruncate checks the length limit on strings: characters, not
// bytes, and bytes that are not UTF-8 left out once a string is cut, as
// the official Go SDK does (its exporter refuses such strings, so the
// differential tests cannot send them).
func TestTruncate(t *testing.T) {
	for _, c := range []struct {
		s     string
		limit int
		want  string
	}{
		{"héllo", 4, "héll"},
		{"héllo", 5, "héllo"},
		{"héllo", 0, ""},
		{"日本語", 2, "日本"},
		{"日本語", 3, "日本語"},
		{"ab\xffcdef", 4, "abcd"},
		{"ab\xffc", 3, "abc"},
		{"ab\xffc", 2, "ab"},
		{"\xff\xfe", 0, ""},
		{"a\uFFFDb", 2, "a\uFFFD"},
	} {
		if got := truncate(c.s, c.limit); got != c.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", c.s, c.limit, got, c.want)
		}
	}
}
