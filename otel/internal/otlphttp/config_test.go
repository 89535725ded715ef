package otlphttp

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestFromEnv checks the variables of each signal: the endpoint and its
// path rules, the per-signal forms overriding the general ones, headers,
// timeout, compression, and a clear error for
// each value it cannot follow.
func TestFromEnv(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := writeCert(t, dir, "client")
	caFile, _ := writeCert(t, dir, "ca")
	notPEM := filepath.Join(dir, "not.pem")
	os.WriteFile(notPEM, []byte("hello"), 0o600)
	big := filepath.Join(dir, "big.pem")
	os.WriteFile(big, make([]byte, MaxFileSize+1), 0o600)

	type want struct {
		url     string
		header  http.Header
		timeout time.Duration
		gzip    bool
		roots   bool // TLS with RootCAs
		certs   int  // TLS client certificates
	}
	const base = "http://collector:4318"
	for _, tc := range []struct {
		name    string
		signal  Signal
		env     map[string]string
		want    want
		wantErr string
	}{
		{name: "general endpoint", signal: Traces, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": base},
			want: want{url: base + "/v1/traces"}},
		{name: "general endpoint, metrics", signal: Metrics, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": base},
			want: want{url: base + "/v1/metrics"}},
		{name: "general endpoint with a path", signal: Traces, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": base + "/otlp/"},
			want: want{url: base + "/otlp/v1/traces"}},
		{name: "general endpoint with a query", signal: Metrics, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c/p?tenant=a"},
			want: want{url: "https://c/p/v1/metrics?tenant=a"}},
		{name: "signal endpoint as it is", signal: Traces, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": base, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://traces:443/custom/path"},
			want: want{url: "https://traces:443/custom/path"}},
		{name: "signal endpoint without a path", signal: Metrics, env: map[string]string{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://m:9000"},
			want: want{url: "http://m:9000/"}},
		{name: "the other signal's endpoint does not apply", signal: Traces, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": base, "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://m:9000"},
			want: want{url: base + "/v1/traces"}},
		{name: "white space around values", signal: Traces, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": " " + base + "\t", "OTEL_EXPORTER_OTLP_TIMEOUT": " 250 "},
			want: want{url: base + "/v1/traces", timeout: 250 * time.Millisecond}},
		{name: "no endpoint", signal: Traces, env: map[string]string{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": base},
			wantErr: "neither OTEL_EXPORTER_OTLP_TRACES_ENDPOINT nor OTEL_EXPORTER_OTLP_ENDPOINT is set"},
		{name: "no scheme", signal: Traces, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "localhost:4318"},
			wantErr: `OTEL_EXPORTER_OTLP_ENDPOINT="localhost:4318": want an http or https URL`},
		{name: "another scheme", signal: Metrics, env: map[string]string{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "unix:///run/otel.sock"},
			wantErr: "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"},
		{name: "no host", signal: Traces, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http:///v1"},
			wantErr: "with a host"},
		{name: "not a URL", signal: Traces, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://[::1"},
			wantErr: "OTEL_EXPORTER_OTLP_ENDPOINT: parse"},

		{name: "headers, URL-decoded", signal: Traces, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": base,
			"OTEL_EXPORTER_OTLP_HEADERS": "api-key=s3cr%3Dt, X-Tenant = team%20a ,,authorization=Basic%20dTpw,"},
			want: want{url: base + "/v1/traces", header: http.Header{"Api-Key": {"s3cr=t"}, "X-Tenant": {"team a"}, "Authorization": {"Basic dTpw"}}}},
		{name: "signal headers replace the general ones", signal: Metrics, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": base,
			"OTEL_EXPORTER_OTLP_HEADERS": "a=1,b=2", "OTEL_EXPORTER_OTLP_METRICS_HEADERS": "c=3"},
			want: want{url: base + "/v1/metrics", header: http.Header{"C": {"3"}}}},
		{name: "a header without =", signal: Traces, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": base, "OTEL_EXPORTER_OTLP_HEADERS": "a=1,novalue"},
			wantErr: `OTEL_EXPORTER_OTLP_HEADERS: "novalue" is not key=value`},
		{name: "a header name that is not a token", signal: Traces, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": base, "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "bad key=1"},
			wantErr: `OTEL_EXPORTER_OTLP_TRACES_HEADERS: "bad key=1"`},
		{name: "a bad escape", signal: Traces, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": base, "OTEL_EXPORTER_OTLP_HEADERS": "a=%zz"},
			wantErr: "OTEL_EXPORTER_OTLP_HEADERS: the value of a"},
		{name: "a control character in a header", signal: Traces, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": base, "OTEL_EXPORTER_OTLP_HEADERS": "a=x%0D%0AInjected: 1"},
			wantErr: "control character"},

		{name: "timeout", signal: Traces, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": base, "OTEL_EXPORTER_OTLP_TIMEOUT": "1500"},
			want: want{url: base + "/v1/traces", timeout: 1500 * time.Millisecond}},
		{name: "signal timeout", signal: Metrics, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": base, "OTEL_EXPORTER_OTLP_TIMEOUT": "1500", "OTEL_EXPORTER_OTLP_METRICS_TIMEOUT": "30000"},
			want: want{url: base + "/v1/metrics", timeout: 30 * time.Second}},
		{name: "timeout 0", signal: Traces, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": base, "OTEL_EXPORTER_OTLP_TIMEOUT": "0"},
			wantErr: `OTEL_EXPORTER_OTLP_TIMEOUT="0": want milliseconds, from 1 to 3600000`},
		{name: "timeout in seconds", signal: Traces, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": base, "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "10s"},
			wantErr: `OTEL_EXPORTER_OTLP_TRACES_TIMEOUT="10s"`},
		{name: "timeout too long", signal: Traces, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": base, "OTEL_EXPORTER_OTLP_TIMEOUT": "3600001"},
			wantErr: "from 1 to 3600000"},

		{name: "gzip", signal: Traces, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": base, "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip"},
			want: want{url: base + "/v1/traces", gzip: true}},
		{name: "signal compression none", signal: Traces, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": base, "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION": "none"},
			want: want{url: base + "/v1/traces"}},
		{name: "another compression", signal: Metrics, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": base, "OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"},
			wantErr: `OTEL_EXPORTER_OTLP_COMPRESSION="zstd" is not supported (gzip or none)`},

		{name: "roots", signal: Traces, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c", "OTEL_EXPORTER_OTLP_CERTIFICATE": caFile},
			want: want{url: "https://c/v1/traces", roots: true}},
		{name: "client certificate", signal: Traces, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c", "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE": certFile, "OTEL_EXPORTER_OTLP_CLIENT_KEY": keyFile},
			want: want{url: "https://c/v1/traces", certs: 1}},
		{name: "signal client certificate", signal: Metrics, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c", "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE": notPEM, "OTEL_EXPORTER_OTLP_CLIENT_KEY": notPEM,
			"OTEL_EXPORTER_OTLP_METRICS_CLIENT_CERTIFICATE": certFile, "OTEL_EXPORTER_OTLP_METRICS_CLIENT_KEY": keyFile, "OTEL_EXPORTER_OTLP_METRICS_CERTIFICATE": caFile},
			want: want{url: "https://c/v1/metrics", roots: true, certs: 1}},
		{name: "a certificate without its key", signal: Traces, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c", "OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE": certFile, "OTEL_EXPORTER_OTLP_CLIENT_KEY": keyFile},
			wantErr: "OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE is set but not OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY"},
		{name: "a key that is not the certificate's", signal: Traces, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c", "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE": certFile, "OTEL_EXPORTER_OTLP_CLIENT_KEY": strings.TrimSuffix(caFile, ".pem") + ".key"},
			wantErr: "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and OTEL_EXPORTER_OTLP_CLIENT_KEY"},
		{name: "no such file", signal: Traces, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c", "OTEL_EXPORTER_OTLP_CERTIFICATE": filepath.Join(dir, "missing.pem")},
			wantErr: "OTEL_EXPORTER_OTLP_CERTIFICATE: open"},
		{name: "not PEM", signal: Traces, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c", "OTEL_EXPORTER_OTLP_CERTIFICATE": notPEM},
			wantErr: "holds no PEM certificate"},
		{name: "a file too big", signal: Traces, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c", "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE": big},
			wantErr: "is larger than 1048576 bytes"},
		{name: "a certificate for http", signal: Traces, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": base, "OTEL_EXPORTER_OTLP_CERTIFICATE": caFile},
			wantErr: "TLS needs https"},

		{name: "the metric preferences are the SDK's", signal: Metrics, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": base,
			"OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE": "deltas", "OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION": "exponential"},
			want: want{url: base + "/v1/metrics"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := FromEnv(func(k string) string { return tc.env[k] }, tc.signal)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			w := tc.want
			if w.timeout == 0 {
				w.timeout = DefaultTimeout
			}
			if w.header == nil {
				w.header = http.Header{}
			}
			if cfg.URL != w.url || cfg.Timeout != w.timeout || cfg.Gzip != w.gzip || !reflect.DeepEqual(cfg.Header, w.header) {
				t.Errorf("got URL %s, timeout %v, gzip %v, header %v\nwant URL %s, timeout %v, gzip %v, header %v",
					cfg.URL, cfg.Timeout, cfg.Gzip, cfg.Header, w.url, w.timeout, w.gzip, w.header)
			}
			if roots, certs := cfg.TLS != nil && cfg.TLS.RootCAs != nil, 0; roots != w.roots || cfg.TLS != nil && len(cfg.TLS.Certificates) != w.certs || cfg.TLS == nil && w.certs != certs {
				t.Errorf("TLS %+v, want roots %v and %d client certificates", cfg.TLS, w.roots, w.certs)
			}
		})
	}
}

// writeCert writes a self-signed certificate for 127.0.0.1 and its key
// as name.pem and name.key in dir.
func writeCert(t *testing.T, dir, name string) (certFile, keyFile string) {
	t.Helper()
	cert, key := newCert(t)
	certFile, keyFile = filepath.Join(dir, name+".pem"), filepath.Join(dir, name+".key")
	if err := os.WriteFile(certFile, cert, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, key, 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

// newCert returns a self-signed certificate, usable by a server on
// 127.0.0.1 and by a client, and its key, in PEM.
func newCert(t *testing.T) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "otlphttp test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true, IsCA: true,
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}

// TestTLSFromEnv exports to a server that requires a client certificate,
// with the roots and the certificate the environment names: without the
// client certificate, the export fails.
func TestTLSFromEnv(t *testing.T) {
	dir := t.TempDir()
	serverCert, serverKey := writeCert(t, dir, "server")
	clientCert, clientKey := writeCert(t, dir, "client")
	pair, err := tls.LoadX509KeyPair(serverCert, serverKey)
	if err != nil {
		t.Fatal(err)
	}
	clients := x509.NewCertPool()
	b, _ := os.ReadFile(clientCert)
	clients.AppendCertsFromPEM(b)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/traces" || len(r.TLS.PeerCertificates) != 1 {
			http.Error(w, "no", http.StatusBadRequest)
		}
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pair}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: clients}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes
	srv.StartTLS()
	defer srv.Close()

	env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL, "OTEL_EXPORTER_OTLP_CERTIFICATE": serverCert}
	export := func() error {
		cfg, err := FromEnv(func(k string) string { return env[k] }, Traces)
		if err != nil {
			t.Fatal(err)
		}
		x, err := NewTraceExporter(cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer x.Shutdown(context.Background())
		return x.ExportSpans(context.Background(), toSDK(stubSpans()))
	}
	if err := export(); err == nil {
		t.Error("the export succeeded without a client certificate")
	}
	env["OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE"], env["OTEL_EXPORTER_OTLP_CLIENT_KEY"] = clientCert, clientKey
	if err := export(); err != nil {
		t.Errorf("with the client certificate: %v", err)
	}
	delete(env, "OTEL_EXPORTER_OTLP_CERTIFICATE")
	if err := export(); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("without the roots: %v, want a certificate error", err)
	}
}
