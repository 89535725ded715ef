package sdk_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/mcpwire/mcpwire/otel/internal/sdk"
)

func getenv(env map[string]string) func(string) string {
	return func(k string) string { return env[k] }
}

// TestTraceConfigFromEnv checks the variables of traces: the limits (the
// span forms over the general ones), the batch span processor, their
// ranges, and an error naming the variable for what is not a number in
// range.
func TestTraceConfigFromEnv(t *testing.T) {
	for _, c := range []struct {
		env     map[string]string
		want    func(*sdk.TraceConfig)
		wantErr string
	}{
		{env: nil, want: func(*sdk.TraceConfig) {}},
		{env: map[string]string{"OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT": "10", "OTEL_ATTRIBUTE_COUNT_LIMIT": " 3 "},
			want: func(c *sdk.TraceConfig) { c.Limits.AttributeValueLength, c.Limits.AttributeCount = 10, 3 }},
		{env: map[string]string{"OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT": "10", "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT": "20", "OTEL_ATTRIBUTE_COUNT_LIMIT": "3", "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT": "0"},
			want: func(c *sdk.TraceConfig) { c.Limits.AttributeValueLength, c.Limits.AttributeCount = 20, 0 }},
		{env: map[string]string{"OTEL_SPAN_EVENT_COUNT_LIMIT": "1", "OTEL_SPAN_LINK_COUNT_LIMIT": "2", "OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT": "3", "OTEL_LINK_ATTRIBUTE_COUNT_LIMIT": "4"},
			want: func(c *sdk.TraceConfig) {
				c.Limits.EventCount, c.Limits.LinkCount, c.Limits.AttributePerEvent, c.Limits.AttributePerLink = 1, 2, 3, 4
			}},
		{env: map[string]string{"OTEL_BSP_SCHEDULE_DELAY": "100", "OTEL_BSP_EXPORT_TIMEOUT": "3600000", "OTEL_BSP_MAX_QUEUE_SIZE": "10"},
			want: func(c *sdk.TraceConfig) {
				c.Batch = sdk.BatchConfig{ScheduleDelay: 100 * time.Millisecond, ExportTimeout: time.Hour, MaxQueueSize: 10, MaxExportBatchSize: 10}
			}},
		{env: map[string]string{"OTEL_BSP_MAX_QUEUE_SIZE": "10", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "11"}, wantErr: `OTEL_BSP_MAX_EXPORT_BATCH_SIZE="11": want an integer from 1 to 10`},
		{env: map[string]string{"OTEL_BSP_MAX_QUEUE_SIZE": "0"}, wantErr: "OTEL_BSP_MAX_QUEUE_SIZE"},
		{env: map[string]string{"OTEL_BSP_MAX_QUEUE_SIZE": "1048577"}, wantErr: "OTEL_BSP_MAX_QUEUE_SIZE"},
		{env: map[string]string{"OTEL_BSP_SCHEDULE_DELAY": "0"}, wantErr: `OTEL_BSP_SCHEDULE_DELAY="0": want milliseconds, from 1 to 3600000`},
		{env: map[string]string{"OTEL_BSP_EXPORT_TIMEOUT": "5s"}, wantErr: "OTEL_BSP_EXPORT_TIMEOUT"},
		{env: map[string]string{"OTEL_BSP_EXPORT_TIMEOUT": "3600001"}, wantErr: "OTEL_BSP_EXPORT_TIMEOUT"},
		{env: map[string]string{"OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT": "-1"}, wantErr: "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT"},
		{env: map[string]string{"OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT": "1e3"}, wantErr: "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT"},
		{env: map[string]string{"OTEL_TRACES_SAMPLER": "nope"}, wantErr: "OTEL_TRACES_SAMPLER"},
	} {
		cfg, err := sdk.TraceConfigFromEnv(getenv(c.env), nil)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%v: error %v, want %q", c.env, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", c.env, err)
			continue
		}
		want := sdk.TraceConfig{Sampler: sdk.ParentBased(sdk.AlwaysOn()), Limits: sdk.DefaultSpanLimits, Batch: sdk.DefaultBatchConfig}
		c.want(&want)
		if !reflect.DeepEqual(cfg, want) {
			t.Errorf("%v:\n got %+v\nwant %+v", c.env, cfg, want)
		}
	}
}

// TestMetricConfigFromEnv checks the variables of metrics.
func TestMetricConfigFromEnv(t *testing.T) {
	cfg, err := sdk.MetricConfigFromEnv(getenv(map[string]string{
		"OTEL_METRIC_EXPORT_INTERVAL":                              "86400000",
		"OTEL_METRIC_EXPORT_TIMEOUT":                               "1",
		"OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE":        "LowMemory",
		"OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION": "base2_exponential_bucket_histogram",
		"OTEL_METRICS_EXEMPLAR_FILTER":                             "always_off",
	}), nil)
	want := sdk.MetricConfig{Interval: 24 * time.Hour, Timeout: time.Millisecond, Temporality: sdk.PreferLowMemory, Exponential: true, Exemplars: sdk.ExemplarsAlwaysOff}
	if err != nil || !reflect.DeepEqual(cfg, want) {
		t.Errorf("%+v %v", cfg, err)
	}
	for env, wantErr := range map[string]string{
		"OTEL_METRIC_EXPORT_INTERVAL=86400001":                                 "OTEL_METRIC_EXPORT_INTERVAL",
		"OTEL_METRIC_EXPORT_TIMEOUT=-5":                                        "OTEL_METRIC_EXPORT_TIMEOUT",
		"OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE=deltas":             `OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE="deltas" is not supported (cumulative, delta, lowmemory)`,
		"OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION=exponential": "OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION",
		"OTEL_METRICS_EXEMPLAR_FILTER=sometimes":                               "OTEL_METRICS_EXEMPLAR_FILTER",
	} {
		k, v, _ := strings.Cut(env, "=")
		if _, err := sdk.MetricConfigFromEnv(getenv(map[string]string{k: v}), nil); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%s: error %v, want %q", env, err, wantErr)
		}
	}
}

// TestResourceFromEnv checks the resource: the program's name and
// version, OTEL_RESOURCE_ATTRIBUTES over them (percent-decoded values,
// trimmed pairs, empty pairs skipped), OTEL_SERVICE_NAME over
// service.name, telemetry.sdk.* over all; a malformed value is an error.
func TestResourceFromEnv(t *testing.T) {
	env := map[string]string{
		"OTEL_RESOURCE_ATTRIBUTES": " service.name = from-attrs ,deployment.environment=prod%2Ceu, note=a%3Db+c%20d ,, telemetry.sdk.name=liar,empty=",
	}
	res, err := sdk.ResourceFromEnv(getenv(env), sdk.ResourceOptions{ServiceName: "prog", ServiceVersion: "1.0", SchemaURL: "https://s"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"service.name": "from-attrs", "service.version": "1.0", "deployment.environment": "prod,eu", "note": "a=b+c d", "empty": "",
		"telemetry.sdk.name": sdk.SDKName, "telemetry.sdk.language": "go", "telemetry.sdk.version": sdk.SDKVersion(),
	}
	if got := attrMap(res.Set()); !reflect.DeepEqual(got, want) || res.SchemaURL() != "https://s" {
		t.Errorf("got %v (%s)\nwant %v", got, res.SchemaURL(), want)
	}
	env["OTEL_SERVICE_NAME"] = " from-name "
	if res, _ := sdk.ResourceFromEnv(getenv(env), sdk.ResourceOptions{ServiceName: "prog"}); attrMap(res.Set())["service.name"] != "from-name" {
		t.Errorf("OTEL_SERVICE_NAME: %v", attrMap(res.Set()))
	}
	if res, _ := sdk.ResourceFromEnv(getenv(nil), sdk.ResourceOptions{}); !strings.HasPrefix(attrMap(res.Set())["service.name"], "unknown_service:") {
		t.Errorf("no name: %v", attrMap(res.Set()))
	}
	for v, wantErr := range map[string]string{
		"a=1,novalue": `OTEL_RESOURCE_ATTRIBUTES: "novalue" is not key=value`,
		"=v":          "is not key=value",
		"a=%zz":       "OTEL_RESOURCE_ATTRIBUTES: the value of a: invalid URL escape",
		"a=1,b=%":     "the value of b",
		strings.Repeat("k=v,", sdk.MaxResourceAttributes+1): "more than 128 attributes",
	} {
		if _, err := sdk.ResourceFromEnv(getenv(map[string]string{"OTEL_RESOURCE_ATTRIBUTES": v}), sdk.ResourceOptions{}); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%.40q: error %v, want %q", v, err, wantErr)
		}
	}
}

func attrMap(s *attribute.Set) map[string]string {
	m := map[string]string{}
	for _, kv := range s.ToSlice() {
		m[string(kv.Key)] = kv.Value.String()
	}
	return m
}
