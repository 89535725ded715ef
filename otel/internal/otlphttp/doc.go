// Package otlphttp exports OpenTelemetry traces and metrics over
// OTLP/HTTP with protobuf encoding (opentelemetry.io/docs/specs/otlp):
// a TraceExporter and a MetricExporter, the exporters of mcpwire's SDK
// (package otel/internal/sdk: sdk.SpanExporter and sdk.MetricExporter),
// that POST ExportTraceServiceRequest and ExportMetricsServiceRequest
// messages as application/x-protobuf. Package otlpenv sets them up from
// the standard environment (FromEnv).
//
// It is what the official exporters (go.opentelemetry.io/otel/exporters/
// otlp/otlptrace/otlptracehttp and otlpmetric/otlpmetrichttp) do, without
// what they link: their messages are the generated types of
// go.opentelemetry.io/proto/otlp, whose collector packages hold the gRPC
// services and gateway too, so that the protobuf runtime, gRPC,
// grpc-gateway and genproto came into the mcpwire command with them
// (6.3 MB of its 38.7). Here the messages are written straight from the
// SDK's data by a small encoder of the protobuf wire format (wire.go),
// with no intermediate message: the bytes are those proto.Marshal writes
// for the official exporters' messages, given the same data (the tests
// give the official exporters the official SDK's data and this one the
// same converted, compare the bytes, and fuzz the attributes), with two
// repairs: a link's trace state, which they leave out, is written, and a
// string that is not UTF-8, for which they fail the whole batch, is sent
// with U+FFFD in place of its invalid bytes. Every aggregation the SDK
// produces is written (gauges, sums, histograms, exponential
// histograms); a metric of another kind (or of an unknown temporality)
// is left out and reported. A batch of spans whose request would pass
// MaxRequest is sent in parts, so that one oversized span costs only
// itself.
//
// Sending follows the specification: the statuses 429, 502, 503 and 504
// are retried with exponential backoff (1 s, doubling, ±50 % jitter) or
// after the Retry-After of the response, as long as the next attempt
// comes within the export's timeout (OTEL_EXPORTER_OTLP_TIMEOUT, 10 s by
// default, for the whole export) and its context; another status fails
// the export with a StatusError; a connection that fails is not retried
// (as the official exporters do not), so that a program whose collector
// is away is not held at exit. The body of a response is read up to
// MaxResponse bytes; a partial success in it is reported to otel.Handle.
// Shutdown cancels an export in progress and waits for it within its
// context; exports after it fail with ErrShutdown.
//
// The package is internal to the otel module: otlpenv is the way in, and
// an exporter API is not promised yet (see docs/design.md).
package otlphttp
