package sdk

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Bounds of the numbers the environment gives.
const (
	// MaxLimit bounds the span limits and the queue sizes.
	MaxLimit = 1 << 20
	// MaxDelay bounds the durations (milliseconds in the environment),
	// but the metric export interval.
	MaxDelay = time.Hour
	// MaxInterval bounds OTEL_METRIC_EXPORT_INTERVAL.
	MaxInterval = 24 * time.Hour
)

// TraceConfigFromEnv returns the configuration the environment gives a
// TracerProvider (res is its resource): the sampler (SamplerFromEnv); the
// span limits, each an integer from 0 to MaxLimit,
// OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT (or
// OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT; no limit by default),
// OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT (or OTEL_ATTRIBUTE_COUNT_LIMIT),
// OTEL_SPAN_EVENT_COUNT_LIMIT, OTEL_SPAN_LINK_COUNT_LIMIT,
// OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT and OTEL_LINK_ATTRIBUTE_COUNT_LIMIT
// (128 by default); and the batch span processor's OTEL_BSP_SCHEDULE_DELAY
// and OTEL_BSP_EXPORT_TIMEOUT (milliseconds, from 1 to an hour; 5000 and
// 30000 by default), OTEL_BSP_MAX_QUEUE_SIZE (from 1 to MaxLimit; 2048)
// and OTEL_BSP_MAX_EXPORT_BATCH_SIZE (from 1 to the queue size; 512, or
// the queue size if smaller). An empty variable is unset; a value out of
// its range, or not a number, is an error naming the variable.
func TraceConfigFromEnv(getenv func(string) string, res *Resource) (TraceConfig, error) {
	cfg := TraceConfig{Resource: res, Limits: DefaultSpanLimits, Batch: DefaultBatchConfig}
	var err error
	if cfg.Sampler, err = SamplerFromEnv(getenv); err != nil {
		return cfg, err
	}
	e := envReader{getenv: getenv}
	l := &cfg.Limits
	l.AttributeValueLength = e.int(l.AttributeValueLength, 0, MaxLimit, "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT")
	l.AttributeCount = e.int(l.AttributeCount, 0, MaxLimit, "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", "OTEL_ATTRIBUTE_COUNT_LIMIT")
	l.EventCount = e.int(l.EventCount, 0, MaxLimit, "OTEL_SPAN_EVENT_COUNT_LIMIT")
	l.LinkCount = e.int(l.LinkCount, 0, MaxLimit, "OTEL_SPAN_LINK_COUNT_LIMIT")
	l.AttributePerEvent = e.int(l.AttributePerEvent, 0, MaxLimit, "OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT")
	l.AttributePerLink = e.int(l.AttributePerLink, 0, MaxLimit, "OTEL_LINK_ATTRIBUTE_COUNT_LIMIT")
	b := &cfg.Batch
	b.ScheduleDelay = e.millis(b.ScheduleDelay, MaxDelay, "OTEL_BSP_SCHEDULE_DELAY")
	b.ExportTimeout = e.millis(b.ExportTimeout, MaxDelay, "OTEL_BSP_EXPORT_TIMEOUT")
	b.MaxQueueSize = e.int(b.MaxQueueSize, 1, MaxLimit, "OTEL_BSP_MAX_QUEUE_SIZE")
	b.MaxExportBatchSize = e.int(min(b.MaxExportBatchSize, b.MaxQueueSize), 1, b.MaxQueueSize, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE")
	return cfg, e.err
}

// MetricConfigFromEnv returns the configuration the environment gives a
// MeterProvider (res is its resource): OTEL_METRIC_EXPORT_INTERVAL
// (milliseconds, from 1 to a day; 60000 by default) and
// OTEL_METRIC_EXPORT_TIMEOUT (from 1 to an hour; 30000);
// OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE (cumulative, delta
// or lowmemory); OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION
// (explicit_bucket_histogram or base2_exponential_bucket_histogram); and
// OTEL_METRICS_EXEMPLAR_FILTER (trace_based, always_on or always_off).
// A value it cannot follow is an error naming the variable.
func MetricConfigFromEnv(getenv func(string) string, res *Resource) (MetricConfig, error) {
	cfg := DefaultMetricConfig
	cfg.Resource = res
	e := envReader{getenv: getenv}
	cfg.Interval = e.millis(cfg.Interval, MaxInterval, "OTEL_METRIC_EXPORT_INTERVAL")
	cfg.Timeout = e.millis(cfg.Timeout, MaxDelay, "OTEL_METRIC_EXPORT_TIMEOUT")
	cfg.Temporality = TemporalityPreference(e.choice("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE", "cumulative", "delta", "lowmemory"))
	cfg.Exponential = e.choice("OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION", "explicit_bucket_histogram", "base2_exponential_bucket_histogram") == 1
	cfg.Exemplars = ExemplarFilter(e.choice("OTEL_METRICS_EXEMPLAR_FILTER", "trace_based", "always_on", "always_off"))
	return cfg, e.err
}

// envReader reads variables, keeping the first error.
type envReader struct {
	getenv func(string) string
	err    error
}

// get returns the first of names that is set, and its value, trimmed.
func (e *envReader) get(names ...string) (name, value string) {
	for _, name := range names {
		if v := strings.TrimSpace(e.getenv(name)); v != "" {
			return name, v
		}
	}
	return "", ""
}

// int reads an integer from lo to hi; def when unset.
func (e *envReader) int(def, lo, hi int, names ...string) int {
	name, v := e.get(names...)
	if v == "" || e.err != nil {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		e.err = fmt.Errorf("%s=%q: want an integer from %d to %d", name, v, lo, hi)
		return def
	}
	return n
}

// millis reads a duration in milliseconds, from 1 to hi; def when unset.
func (e *envReader) millis(def, hi time.Duration, name string) time.Duration {
	_, v := e.get(name)
	if v == "" || e.err != nil {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 1 || n > hi.Milliseconds() {
		e.err = fmt.Errorf("%s=%q: want milliseconds, from 1 to %d", name, v, hi.Milliseconds())
		return def
	}
	return time.Duration(n) * time.Millisecond
}

// choice returns the index of the value of name among choices, in any
// case; 0 (the default) when unset.
func (e *envReader) choice(name string, choices ...string) int {
	_, v := e.get(name)
	if v == "" || e.err != nil {
		return 0
	}
	for i, c := range choices {
		if strings.EqualFold(v, c) {
			return i
		}
	}
	e.err = fmt.Errorf("%s=%q is not supported (%s)", name, v, strings.Join(choices, ", "))
	return 0
}
