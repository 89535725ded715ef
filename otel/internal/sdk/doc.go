// Package sdk is mcpwire's own OpenTelemetry SDK: a TracerProvider and a
// MeterProvider implementing the OpenTelemetry Go API
// (go.opentelemetry.io/otel/trace and .../metric), for the programs that
// package otlpenv sets up. It does what the specification asks of an SDK
// for what mcpwire's instrumentation records, and what a program's own
// spans and synchronous instruments need, in a fraction of the official
// Go SDK's size in a binary (go.opentelemetry.io/otel/sdk, sdk/metric and
// the packages they link cost the mcpwire command 2.3 MB with the
// exporter; this package and the exporter, 0.6 MB).
//
// Traces: W3C trace and span ids from math/rand/v2's generator (ChaCha8,
// seeded by the runtime from the system's entropy); the parent from the
// context, local or remote (trace.WithNewRoot for none); the samplers of
// OTEL_TRACES_SAMPLER (Sampler); the span limits of OTEL_SPAN_* and
// OTEL_ATTRIBUTE_* (SpanLimits: attribute count and value length, events
// and links, the attributes of each; what is dropped is counted and
// exported as such); the status rules (Ok is final, Error keeps its
// description, Unset changes nothing); events, RecordError (an exception
// event: exception.type, exception.message, exception.stacktrace on
// request), a panic recorded by a deferred End, links, SetName, End's
// timestamp; and a batch span processor as OTEL_BSP_* says
// (BatchConfig): a bounded queue that drops, and counts, what does not
// fit, batches exported as soon as they are full or when the schedule
// delay passes, each within the export timeout, ForceFlush, and Shutdown
// exporting what is queued within its context.
//
// Metrics: counters, up-down counters, histograms and gauges (int64 and
// float64) aggregated into sums, explicit-bucket histograms (the
// instrument's bucket advice, or the default buckets; count, sum, min,
// max) or base-2 exponential histograms, and last values; cumulative or
// delta temporality as OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE
// asks; a series per attribute set, at most 2000 per instrument, the
// measurements of any more going to one series whose attribute is
// otel.metric.overflow=true; exemplars (the last sampled measurement of
// each bucket) on explicit-bucket histograms, as
// OTEL_METRICS_EXEMPLAR_FILTER says; a periodic reader as
// OTEL_METRIC_EXPORT_INTERVAL and _TIMEOUT say, ForceFlush, and Shutdown
// collecting one last time.
//
// Left out, because nothing mcpwire records needs them: the asynchronous
// (observable) instruments and their callbacks, which are accepted and
// never called; views; exemplars of other aggregations than explicit
// histograms; samplers other than the environment's, span processors
// other than the batch one, and the official SDK's self-observability
// metrics and runtime/trace tasks.
//
// Where it differs from the official Go SDK, on purpose: the length limit
// of attribute values applies to the attributes of events and links too,
// as the specification says (the Go SDK cuts span attributes only); a
// tracer whose name is "" keeps that name, as the specification says (the
// Go SDK names it go.opentelemetry.io/otel/sdk/tracer); the resource's
// telemetry.sdk.name is this SDK's (SDKName), its telemetry.sdk.version
// the otel module's; a variable of the environment it cannot follow is
// an error (otlpenv then sets nothing up), where the Go SDK reports it
// and uses its default; and Shutdown called again returns nil.
// TestAsOfficial holds the rest to the official SDK's output, through
// the same exporter, message for message.
//
// The package is internal to the otel module: otlpenv is the way in.
package sdk
