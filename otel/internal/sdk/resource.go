package sdk

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"go.opentelemetry.io/otel/attribute"
)

// A Resource is the entity that produces the telemetry: its attributes
// (service.name, ...) and the schema they follow. It does not change
// once made.
type Resource struct {
	attrs     attribute.Set
	schemaURL string
}

// NewResource returns the resource of attrs (a key given twice keeps its
// last value), following the schema at schemaURL ("" for none).
func NewResource(schemaURL string, attrs ...attribute.KeyValue) *Resource {
	return &Resource{attrs: attribute.NewSet(attrs...), schemaURL: schemaURL}
}

// Set returns the attributes, sorted by key.
func (r *Resource) Set() *attribute.Set { return &r.attrs }

// SchemaURL returns the schema the attributes follow, "" for none.
func (r *Resource) SchemaURL() string { return r.schemaURL }

// The telemetry.sdk.* attributes of every resource: this SDK is not the
// OpenTelemetry project's, so its name is its module's path, as the
// resource conventions ask of other SDKs ("the fully-qualified ... module
// name of this SDK's main entry point").
const (
	SDKName     = "github.com/mcpwire/mcpwire/otel"
	SDKLanguage = "go"
)

// SDKVersion is the version of the otel module in the program's build
// information: v0.99.0 for a program built from a release, "(devel)"
// for a program built from a checkout or without build information.
func SDKVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Path == SDKName && bi.Main.Version != "" {
			return bi.Main.Version
		}
		for _, m := range bi.Deps {
			if m.Path == SDKName && m.Version != "" {
				return m.Version
			}
		}
	}
	return "(devel)"
}

// ResourceOptions say what the program knows of itself.
type ResourceOptions struct {
	// ServiceName is service.name unless the environment says
	// otherwise; "" means unknown_service:<the executable's name>, as
	// the specification asks.
	ServiceName string
	// ServiceVersion is service.version, if not empty.
	ServiceVersion string
	// SchemaURL is the schema of the attributes.
	SchemaURL string
}

// ResourceFromEnv returns the resource of a program: service.name and
// service.version of opts, then the attributes of
// OTEL_RESOURCE_ATTRIBUTES over them, then OTEL_SERVICE_NAME over
// service.name, then telemetry.sdk.name, .language and .version over
// everything. A malformed OTEL_RESOURCE_ATTRIBUTES is an error naming
// it (the specification says to discard the whole value; a program set
// up from the environment refuses it instead, as it refuses any other
// value it cannot follow).
func ResourceFromEnv(getenv func(string) string, opts ResourceOptions) (*Resource, error) {
	name := opts.ServiceName
	if name == "" {
		name = "unknown_service"
		if exe, err := os.Executable(); err == nil {
			name += ":" + filepath.Base(exe)
		}
	}
	attrs := []attribute.KeyValue{attribute.String("service.name", name)}
	if opts.ServiceVersion != "" {
		attrs = append(attrs, attribute.String("service.version", opts.ServiceVersion))
	}
	env, err := parseResourceAttributes(getenv("OTEL_RESOURCE_ATTRIBUTES"))
	if err != nil {
		return nil, err
	}
	attrs = append(attrs, env...)
	if s := strings.TrimSpace(getenv("OTEL_SERVICE_NAME")); s != "" {
		attrs = append(attrs, attribute.String("service.name", s))
	}
	attrs = append(attrs,
		attribute.String("telemetry.sdk.name", SDKName),
		attribute.String("telemetry.sdk.language", SDKLanguage),
		attribute.String("telemetry.sdk.version", SDKVersion()))
	return NewResource(opts.SchemaURL, attrs...), nil
}

// MaxResourceAttributes bounds the pairs of OTEL_RESOURCE_ATTRIBUTES.
const MaxResourceAttributes = 128

// parseResourceAttributes reads OTEL_RESOURCE_ATTRIBUTES: key=value pairs
// separated by commas, keys and values trimmed of white space, values
// percent-decoded (%2C is a comma, %3D an equals sign; a plus sign stays
// a plus sign). An empty pair is skipped; a pair without "=", an empty
// key or a bad escape is an error.
func parseResourceAttributes(v string) ([]attribute.KeyValue, error) {
	const name = "OTEL_RESOURCE_ATTRIBUTES"
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	var attrs []attribute.KeyValue
	for pair := range strings.SplitSeq(v, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		k, val, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("%s: %q is not key=value", name, pair)
		}
		dec, err := url.PathUnescape(strings.TrimSpace(val))
		if err != nil {
			return nil, fmt.Errorf("%s: the value of %s: %w", name, k, err)
		}
		if len(attrs) == MaxResourceAttributes {
			return nil, fmt.Errorf("%s: more than %d attributes", name, MaxResourceAttributes)
		}
		attrs = append(attrs, attribute.String(k, dec))
	}
	return attrs, nil
}

// A Scope is the instrumentation scope of a tracer or a meter: the
// library that records, as it names itself. Scopes are comparable: equal
// scopes are the same tracer or meter.
type Scope struct {
	Name, Version, SchemaURL string
	Attributes               attribute.Set
}
