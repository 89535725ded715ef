package otel

import (
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
)

// durationBuckets are the explicit bucket boundaries the conventions give
// every MCP duration histogram, in seconds.
var durationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// The histograms, as the conventions name and describe them.
var histograms = [...]struct {
	name, desc string
}{
	{"mcp.client.operation.duration", "The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received."},
	{"mcp.server.operation.duration", "MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent."},
	{"mcp.client.session.duration", "The duration of the MCP session as observed on the MCP client."},
	{"mcp.server.session.duration", "The duration of the MCP session as observed on the MCP server."},
}

func (t *Instrumentation) makeInstruments(m metric.Meter) {
	for i, dst := range []*metric.Float64Histogram{&t.clientOp, &t.serverOp, &t.clientSession, &t.serverSession} {
		h, err := m.Float64Histogram(histograms[i].name,
			metric.WithUnit("s"),
			metric.WithDescription(histograms[i].desc),
			metric.WithExplicitBucketBoundaries(durationBuckets...))
		if err != nil {
			otel.Handle(err)
		}
		if h == nil {
			h = noop.Float64Histogram{}
		}
		*dst = h
	}
}
