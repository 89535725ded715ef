package sdk

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/trace"
)

// A Sampler decides which new spans are recorded and exported: the
// samplers OTEL_TRACES_SAMPLER names (always_on, always_off,
// traceidratio, and the parentbased_ form of each), with the
// specification's semantics. The zero Sampler samples nothing; a
// Sampler is a value, safe for concurrent use.
type Sampler struct {
	// parentBased follows the parent's decision when there is a valid
	// parent, remote or local: sampled if the parent is, not sampled if
	// it is not (the specification's defaults for the four cases).
	// Without a valid parent (or always, when false) the root decides.
	parentBased bool
	// bound is the root's decision: a trace is sampled when the last 8
	// bytes of its id, as a big-endian number shifted right by one (63
	// random bits), are below bound. 1<<63 samples every trace, 0 none;
	// TraceIDRatio(r) samples the fraction r, deciding the same way as
	// the official Go SDK's TraceIDRatioBased, so that services mixing
	// both agree on a trace.
	bound uint64
	desc  string
}

// AlwaysOn samples every span.
func AlwaysOn() Sampler { return Sampler{bound: 1 << 63, desc: "always_on"} }

// AlwaysOff samples no span.
func AlwaysOff() Sampler { return Sampler{desc: "always_off"} }

// TraceIDRatio samples the fraction r of traces, by their id: r ≥ 1 is
// every trace, r ≤ 0 none.
func TraceIDRatio(r float64) Sampler {
	s := Sampler{desc: "traceidratio(" + strconv.FormatFloat(r, 'g', -1, 64) + ")"}
	switch {
	case r >= 1:
		s.bound = 1 << 63
	case r > 0:
		s.bound = uint64(r * (1 << 63))
	}
	return s
}

// ParentBased returns root made to follow a valid parent's decision.
func ParentBased(root Sampler) Sampler {
	root.parentBased = true
	root.desc = "parentbased_" + root.desc
	return root
}

// String names the sampler as OTEL_TRACES_SAMPLER does, with its ratio.
func (s Sampler) String() string { return s.desc }

// sample decides for a new span of trace tid whose parent is parent (the
// zero SpanContext for a root span).
func (s Sampler) sample(parent trace.SpanContext, tid trace.TraceID) bool {
	if s.parentBased && parent.IsValid() {
		return parent.IsSampled()
	}
	return binary.BigEndian.Uint64(tid[8:16])>>1 < s.bound
}

// SamplerFromEnv returns the sampler of OTEL_TRACES_SAMPLER and
// OTEL_TRACES_SAMPLER_ARG: parentbased_always_on by default;
// traceidratio and parentbased_traceidratio take a ratio from 0 to 1 in
// the argument (1 without one). A name it does not know, or a ratio it
// cannot read, is an error naming the variable.
func SamplerFromEnv(getenv func(string) string) (Sampler, error) {
	name := strings.ToLower(strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER")))
	arg := strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER_ARG"))
	ratio := func() (float64, error) {
		if arg == "" {
			return 1, nil
		}
		r, err := strconv.ParseFloat(arg, 64)
		if err != nil || !(r >= 0 && r <= 1) {
			return 0, fmt.Errorf("OTEL_TRACES_SAMPLER_ARG=%q: want a ratio from 0 to 1", arg)
		}
		return r, nil
	}
	switch name {
	case "", "parentbased_always_on":
		return ParentBased(AlwaysOn()), nil
	case "always_on":
		return AlwaysOn(), nil
	case "always_off":
		return AlwaysOff(), nil
	case "parentbased_always_off":
		return ParentBased(AlwaysOff()), nil
	case "traceidratio", "parentbased_traceidratio":
		r, err := ratio()
		if err != nil {
			return Sampler{}, err
		}
		if name == "traceidratio" {
			return TraceIDRatio(r), nil
		}
		return ParentBased(TraceIDRatio(r)), nil
	}
	return Sampler{}, fmt.Errorf("OTEL_TRACES_SAMPLER=%q is not supported (always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off, parentbased_traceidratio)", name)
}
