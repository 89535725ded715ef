package otlphttp

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"
	"time"
)

// Defaults and bounds of the configuration.
const (
	// DefaultTimeout bounds the export of one batch, retries included,
	// as OTEL_EXPORTER_OTLP_TIMEOUT does.
	DefaultTimeout = 10 * time.Second
	// MaxTimeout is the largest OTEL_EXPORTER_OTLP_TIMEOUT accepted.
	MaxTimeout = time.Hour
	// MaxFileSize bounds a certificate or key file.
	MaxFileSize = 1 << 20
)

// A Signal is what an exporter sends: traces or metrics.
type Signal string

// The signals, as the environment variables spell them.
const (
	Traces  Signal = "TRACES"
	Metrics Signal = "METRICS"
)

// path is where the signal goes under OTEL_EXPORTER_OTLP_ENDPOINT.
func (s Signal) path() string { return "/v1/" + strings.ToLower(string(s)) }

// Config says where and how an exporter sends. FromEnv makes one from the
// environment.
type Config struct {
	// URL is where requests are POSTed: an http or https URL.
	URL string
	// Header holds the headers sent with every request (User-Agent may
	// be among them; Content-Type and Content-Encoding are the
	// exporter's).
	Header http.Header
	// Timeout bounds the export of one batch, retries and waits
	// included; DefaultTimeout when 0.
	Timeout time.Duration
	// Gzip compresses the requests.
	Gzip bool
	// TLS is the TLS configuration of an https URL: trusted roots and a
	// client certificate. Nil means the system's roots.
	TLS *tls.Config

	// For tests: the HTTP client (nil: the exporter's own), and the wait
	// between attempts (nil: a timer).
	httpClient *http.Client
	wait       func(ctx context.Context, d time.Duration) error
}

// FromEnv returns the configuration that the standard environment
// (opentelemetry.io/docs/specs/otel/protocol/exporter) gives the export
// of signal, each per-signal variable (OTEL_EXPORTER_OTLP_TRACES_...)
// overriding its general form (OTEL_EXPORTER_OTLP_...):
//
//   - _ENDPOINT: the general form is a base URL to which /v1/traces or
//     /v1/metrics is joined; the per-signal form is used as it is (the
//     path / when it has none). An http URL is sent in the clear, an
//     https URL over TLS; one of them is required;
//   - _HEADERS: key=value pairs separated by commas, the values
//     URL-decoded (%20 is a space);
//   - _TIMEOUT: milliseconds, at most an hour; 10 s by default;
//   - _COMPRESSION: gzip or none;
//   - _CERTIFICATE: a PEM file of the roots to trust;
//     _CLIENT_CERTIFICATE and _CLIENT_KEY: PEM files of the client's
//     certificate and key, both or neither.
//
// OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE and
// _DEFAULT_HISTOGRAM_AGGREGATION, which decide how metrics are
// aggregated, are the SDK's (sdk.MetricConfigFromEnv).
//
// A value it cannot follow is an error naming the variable.
// OTEL_EXPORTER_OTLP_INSECURE and its per-signal form, which the
// specification gives OTLP/gRPC only, are not read: the scheme of the
// URL decides.
func FromEnv(getenv func(string) string, signal Signal) (*Config, error) {
	r := envReader{getenv: getenv, signal: signal}
	cfg := &Config{Timeout: DefaultTimeout}
	var err error
	if cfg.URL, err = r.endpoint(); err != nil {
		return nil, err
	}
	if cfg.Header, err = r.headers(); err != nil {
		return nil, err
	}
	if name, v := r.get("TIMEOUT"); v != "" {
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil || ms <= 0 || ms > MaxTimeout.Milliseconds() {
			return nil, fmt.Errorf("%s=%q: want milliseconds, from 1 to %d", name, v, MaxTimeout.Milliseconds())
		}
		cfg.Timeout = time.Duration(ms) * time.Millisecond
	}
	if name, v := r.get("COMPRESSION"); v != "" {
		switch strings.ToLower(v) {
		case "gzip":
			cfg.Gzip = true
		case "none":
		default:
			return nil, fmt.Errorf("%s=%q is not supported (gzip or none)", name, v)
		}
	}
	if cfg.TLS, err = r.tls(); err != nil {
		return nil, err
	}
	if cfg.TLS != nil && strings.HasPrefix(cfg.URL, "http:") {
		return nil, fmt.Errorf("otlphttp: a certificate is set for %s, an http URL (TLS needs https)", cfg.URL)
	}
	return cfg, nil
}

// envReader reads the variables of one signal.
type envReader struct {
	getenv func(string) string
	signal Signal
}

// get returns the per-signal variable of key if it is set, else the
// general one, with its name; the value is trimmed.
func (r envReader) get(key string) (name, value string) {
	name = "OTEL_EXPORTER_OTLP_" + string(r.signal) + "_" + key
	if v := strings.TrimSpace(r.getenv(name)); v != "" {
		return name, v
	}
	name = "OTEL_EXPORTER_OTLP_" + key
	return name, strings.TrimSpace(r.getenv(name))
}

func (r envReader) endpoint() (string, error) {
	name := "OTEL_EXPORTER_OTLP_" + string(r.signal) + "_ENDPOINT"
	v := strings.TrimSpace(r.getenv(name))
	perSignal := v != ""
	if !perSignal {
		name = "OTEL_EXPORTER_OTLP_ENDPOINT"
		v = strings.TrimSpace(r.getenv(name))
	}
	if v == "" {
		return "", fmt.Errorf("otlphttp: neither OTEL_EXPORTER_OTLP_%s_ENDPOINT nor OTEL_EXPORTER_OTLP_ENDPOINT is set", r.signal)
	}
	u, err := url.Parse(v)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("%s=%q: want an http or https URL with a host", name, v)
	}
	switch {
	case !perSignal:
		// The general endpoint is a base URL: the signal's path goes
		// under its path.
		u.Path, u.RawPath = path.Join("/", u.Path, r.signal.path()), ""
	case u.Path == "":
		u.Path = "/"
	}
	u.Fragment = ""
	return u.String(), nil
}

func (r envReader) headers() (http.Header, error) {
	name, v := r.get("HEADERS")
	h := http.Header{}
	if v == "" {
		return h, nil
	}
	for pair := range strings.SplitSeq(v, ",") {
		if strings.TrimSpace(pair) == "" {
			continue // "a=1," and such
		}
		key, val, ok := strings.Cut(pair, "=")
		key = strings.TrimSpace(key)
		if !ok || !validHeaderKey(key) {
			return nil, fmt.Errorf("%s: %q is not key=value with a header name for key", name, pair)
		}
		val, err := url.PathUnescape(val)
		if err != nil {
			return nil, fmt.Errorf("%s: the value of %s: %w", name, key, err)
		}
		val = strings.TrimSpace(val)
		if !validHeaderValue(val) {
			return nil, fmt.Errorf("%s: the value of %s has a control character", name, key)
		}
		h.Set(key, val)
	}
	return h, nil
}

// validHeaderKey reports whether k is an HTTP token (RFC 9110).
func validHeaderKey(k string) bool {
	if k == "" {
		return false
	}
	for i := range len(k) {
		c := k[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return true
}

// validHeaderValue reports whether v holds no control character but tab.
func validHeaderValue(v string) bool {
	for i := range len(v) {
		if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

func (r envReader) tls() (*tls.Config, error) {
	var cfg *tls.Config
	if name, file := r.get("CERTIFICATE"); file != "" {
		b, err := readFile(name, file)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(b) {
			return nil, fmt.Errorf("%s: %s holds no PEM certificate", name, file)
		}
		cfg = &tls.Config{RootCAs: pool}
	}
	// The certificate and the key go in pairs: the signal's pair if
	// either of it is set, else the general pair.
	certName := "OTEL_EXPORTER_OTLP_" + string(r.signal) + "_CLIENT_CERTIFICATE"
	keyName := "OTEL_EXPORTER_OTLP_" + string(r.signal) + "_CLIENT_KEY"
	certFile, keyFile := strings.TrimSpace(r.getenv(certName)), strings.TrimSpace(r.getenv(keyName))
	if certFile == "" && keyFile == "" {
		certName, keyName = "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", "OTEL_EXPORTER_OTLP_CLIENT_KEY"
		certFile, keyFile = strings.TrimSpace(r.getenv(certName)), strings.TrimSpace(r.getenv(keyName))
	}
	switch {
	case certFile == "" && keyFile == "":
		return cfg, nil
	case certFile == "":
		return nil, fmt.Errorf("%s is set but not %s", keyName, certName)
	case keyFile == "":
		return nil, fmt.Errorf("%s is set but not %s", certName, keyName)
	}
	certPEM, err := readFile(certName, certFile)
	if err != nil {
		return nil, err
	}
	keyPEM, err := readFile(keyName, keyFile)
	if err != nil {
		return nil, err
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("%s and %s: %w", certName, keyName, err)
	}
	if cfg == nil {
		cfg = &tls.Config{}
	}
	cfg.Certificates = []tls.Certificate{cert}
	return cfg, nil
}

// readFile reads the file a variable names, up to MaxFileSize bytes.
func readFile(name, file string) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(b) > MaxFileSize {
		return nil, fmt.Errorf("%s: %s is larger than %d bytes", name, file, MaxFileSize)
	}
	return b, nil
}
