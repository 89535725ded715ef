package otlphttp

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/mcpwire/mcpwire/otel/internal/sdk"
)

// A script answers the requests it receives in turn with its responses
// (the last one again when they run out), and keeps the requests.
type script struct {
	t         *testing.T
	responses []response
	mu        sync.Mutex
	requests  []*http.Request
	bodies    [][]byte
}

type response struct {
	status int
	header map[string]string
	body   []byte
}

func newScript(t *testing.T, responses ...response) (*script, string) {
	s := &script{t: t, responses: responses}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL + "/v1/traces"
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		s.t.Error(err)
	}
	s.mu.Lock()
	s.requests = append(s.requests, r)
	s.bodies = append(s.bodies, body)
	resp := s.responses[min(len(s.requests), len(s.responses))-1]
	s.mu.Unlock()
	for k, v := range resp.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(resp.status)
	w.Write(resp.body)
}

func (s *script) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// waits records the waits between attempts, and waits for none.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) wait(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	w.d = append(w.d, d)
	w.mu.Unlock()
	return ctx.Err()
}

func exportWith(t *testing.T, cfg *Config) error {
	t.Helper()
	x, err := NewTraceExporter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Shutdown(context.Background())
	return x.ExportSpans(context.Background(), toSDK(stubSpans()))
}

// TestRetryAfter checks that a 503 with Retry-After is retried after the
// time it says, once, and that the export then succeeds.
func TestRetryAfter(t *testing.T) {
	for _, after := range []string{"7", time.Now().Add(20 * time.Second).UTC().Format(http.TimeFormat)} {
		s, url := newScript(t, response{status: 503, header: map[string]string{"Retry-After": after}}, response{status: 200})
		w := &waits{}
		if err := exportWith(t, &Config{URL: url, Timeout: time.Minute, wait: w.wait}); err != nil {
			t.Fatal(err)
		}
		if s.count() != 2 || len(w.d) != 1 {
			t.Fatalf("Retry-After %s: %d attempts, waits %v; want 2 attempts, one wait", after, s.count(), w.d)
		}
		if lo, hi := 7*time.Second, 20*time.Second; after == "7" && w.d[0] != lo || after != "7" && (w.d[0] < 17*time.Second || w.d[0] > hi) {
			t.Errorf("Retry-After %s: waited %v", after, w.d[0])
		}
		if !bytes.Equal(s.bodies[0], s.bodies[1]) || len(s.bodies[0]) == 0 {
			t.Error("the retry sent another body")
		}
	}
}

// TestRetryBackoff checks that each status the specification says to
// retry is, after waits that grow exponentially (with jitter), and that
// other statuses are not.
func TestRetryBackoff(t *testing.T) {
	s, url := newScript(t, response{status: 429}, response{status: 502}, response{status: 504}, response{status: 503}, response{status: 200})
	w := &waits{}
	if err := exportWith(t, &Config{URL: url, Timeout: time.Minute, wait: w.wait}); err != nil {
		t.Fatal(err)
	}
	if s.count() != 5 || len(w.d) != 4 {
		t.Fatalf("%d attempts, waits %v", s.count(), w.d)
	}
	for i, d := range w.d {
		base := initialBackoff << i
		if d < base/2 || d >= base*3/2 {
			t.Errorf("wait %d: %v, want %v ± 50%%", i, d, base)
		}
	}
	for _, code := range []int{400, 401, 404, 413, 500} {
		s, url := newScript(t, response{status: code, body: []byte("  no!\n")})
		err := exportWith(t, &Config{URL: url, Timeout: time.Minute, wait: (&waits{}).wait})
		var se *StatusError
		if !errors.As(err, &se) || se.StatusCode != code || se.Message != "no!" || s.count() != 1 {
			t.Errorf("status %d: %d attempts, error %v", code, s.count(), err)
		}
	}
}

// TestRetryBoundedByTimeout checks that an export gives up, without
// waiting, when the next attempt would come after its timeout, and that
// a collector that keeps answering 503 is given up on within the timeout
// (real time).
func TestRetryBoundedByTimeout(t *testing.T) {
	s, url := newScript(t, response{status: 503, header: map[string]string{"Retry-After": "120"}})
	w := &waits{}
	err := exportWith(t, &Config{URL: url, Timeout: 10 * time.Second, wait: w.wait})
	var se *StatusError
	if !errors.As(err, &se) || se.StatusCode != 503 || se.RetryAfter != 2*time.Minute || !strings.Contains(err.Error(), "would pass the deadline") {
		t.Errorf("error %v", err)
	}
	if s.count() != 1 || len(w.d) != 0 {
		t.Errorf("%d attempts, waits %v; want 1, none", s.count(), w.d)
	}

	s, url = newScript(t, response{status: 503})
	begin := time.Now()
	err = exportWith(t, &Config{URL: url, Timeout: 1500 * time.Millisecond})
	elapsed := time.Since(begin)
	if !errors.As(err, &se) || se.StatusCode != 503 {
		t.Errorf("error %v", err)
	}
	if elapsed > 1500*time.Millisecond+time.Second || s.count() < 1 || s.count() > 3 {
		t.Errorf("%d attempts in %v, with a timeout of 1.5 s", s.count(), elapsed)
	}
}

// TestTimeout checks that an endpoint that does not answer fails the
// export when its timeout passes, and that the caller's context bounds
// it too.
func TestTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)

	begin := time.Now()
	err := exportWith(t, &Config{URL: srv.URL, Timeout: 200 * time.Millisecond})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "timeout of 200ms") {
		t.Errorf("error %v, want the deadline and the exporter's timeout", err)
	}
	if d := time.Since(begin); d > 5*time.Second {
		t.Errorf("the export took %v", d)
	}

	x, err := NewTraceExporter(&Config{URL: srv.URL, Timeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Shutdown(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := x.ExportSpans(ctx, toSDK(stubSpans())); !errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "timeout of") {
		t.Errorf("with the caller's deadline: %v", err)
	}
}

// TestGzip checks that with Gzip the body is compressed and says so, and
// is what the encoder wrote; without, it is sent as it is.
func TestGzip(t *testing.T) {
	e := encoder{}
	e.traces(toSDK(stubSpans()))
	for _, gz := range []bool{false, true} {
		s, url := newScript(t, response{status: 200})
		if err := exportWith(t, &Config{URL: url, Gzip: gz}); err != nil {
			t.Fatal(err)
		}
		r, body := s.requests[0], s.bodies[0]
		if got := r.Header.Get("Content-Encoding"); got != map[bool]string{true: "gzip"}[gz] {
			t.Errorf("gzip %v: Content-Encoding %q", gz, got)
		}
		if gz {
			z, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if body, err = io.ReadAll(z); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(body, e.b) {
			t.Errorf("gzip %v: the body is not what the encoder wrote", gz)
		}
	}
}

// TestHeaders checks the headers of a request: the configured ones, the
// User-Agent, and a Content-Type that they cannot change.
func TestHeaders(t *testing.T) {
	s, url := newScript(t, response{status: 200})
	h := http.Header{"Authorization": {"Bearer x"}, "content-type": {"text/plain"}, "Content-Encoding": {"br"}}
	if err := exportWith(t, &Config{URL: url, Header: h}); err != nil {
		t.Fatal(err)
	}
	got := s.requests[0].Header
	if got.Get("Authorization") != "Bearer x" || got.Get("Content-Type") != "application/x-protobuf" ||
		got.Get("Content-Encoding") != "" || got.Get("User-Agent") != userAgent || s.requests[0].Method != http.MethodPost {
		t.Errorf("%s with headers %v", s.requests[0].Method, got)
	}
}

// errorsTo sends what otel.Handle reports to a channel while the test
// runs.
func errorsTo(t *testing.T) <-chan error {
	ch := make(chan error, 10)
	old := otel.GetErrorHandler()
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { ch <- err }))
	t.Cleanup(func() { otel.SetErrorHandler(old) })
	return ch
}

// TestPartialSuccess checks that what a server says it rejected of an
// export it accepted is reported to otel.Handle, the export succeeding;
// and that a response body over MaxResponse, or not protobuf, is
// reported without failing the export.
func TestPartialSuccess(t *testing.T) {
	handled := errorsTo(t)
	ok, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{PartialSuccess: &coltracepb.ExportTracePartialSuccess{RejectedSpans: 2, ErrorMessage: "too old"}})
	for _, tc := range []struct {
		resp response
		want string // "" for nothing reported
	}{
		{response{status: 200, header: map[string]string{"Content-Type": "application/x-protobuf"}, body: ok}, `OTLP partial success: 2 spans rejected: "too old"`},
		{response{status: 200, header: map[string]string{"Content-Type": "application/x-protobuf"}}, ""},
		{response{status: 200, header: map[string]string{"Content-Type": "application/x-protobuf"}, body: []byte{0x0a, 0x05, 1}}, "malformed protobuf"},
		{response{status: 202, header: map[string]string{"Content-Type": "text/plain"}, body: []byte("accepted")}, ""},
		{response{status: 200, header: map[string]string{"Content-Type": "application/x-protobuf"}, body: make([]byte, MaxResponse+1)}, "larger than 1048576 bytes"},
	} {
		_, url := newScript(t, tc.resp)
		if err := exportWith(t, &Config{URL: url}); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-handled:
			if tc.want == "" || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("reported %v, want %q", err, tc.want)
			}
			var ps *PartialSuccess
			if strings.Contains(tc.want, "partial") && (!errors.As(err, &ps) || ps.Rejected != 2 || ps.Kind != "spans") {
				t.Errorf("%#v", err)
			}
		default:
			if tc.want != "" {
				t.Errorf("nothing reported, want %q", tc.want)
			}
		}
	}
}

// TestErrorStatusMessage checks that the google.rpc.Status of an error
// response is read, and a long text body cut.
func TestErrorStatusMessage(t *testing.T) {
	// google.rpc.Status{code: 3, message: "bad span", details: [an Any]}
	b := append([]byte{0x08, 3, 0x12, 8}, "bad span"...)
	b = append(b, 0x1a, 2, 0x0a, 0)
	_, url := newScript(t, response{status: 400, header: map[string]string{"Content-Type": "application/x-protobuf"}, body: b})
	err := exportWith(t, &Config{URL: url})
	var se *StatusError
	if !errors.As(err, &se) || se.Message != "bad span" || !strings.Contains(err.Error(), `400 Bad Request: "bad span"`) {
		t.Errorf("error %v", err)
	}
	_, url = newScript(t, response{status: 500, body: bytes.Repeat([]byte("x"), 5000)})
	err = exportWith(t, &Config{URL: url})
	if !errors.As(err, &se) || len(se.Message) != maxQuoted+3 {
		t.Errorf("error %v", err)
	}
}

// TestShutdown checks the SDK's contract: Shutdown cancels an export in
// progress and waits for it; later exports and a second Shutdown fail
// with ErrShutdown.
func TestShutdown(t *testing.T) {
	tr := &cancelled{entered: make(chan struct{})}
	x, err := NewTraceExporter(&Config{URL: "http://otlp.invalid/v1/traces", Timeout: time.Hour, httpClient: &http.Client{Transport: tr}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { done <- x.ExportSpans(context.Background(), toSDK(stubSpans())) }()
	<-tr.entered
	if err := x.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !tr.returned.Load() {
		t.Error("Shutdown returned before the export in progress")
	}
	if err := <-done; !errors.Is(err, ErrShutdown) {
		t.Errorf("the export in progress: %v, want ErrShutdown", err)
	}
	if err := x.ExportSpans(context.Background(), toSDK(stubSpans())); !errors.Is(err, ErrShutdown) {
		t.Errorf("an export after Shutdown: %v", err)
	}
	if err := x.Shutdown(context.Background()); !errors.Is(err, ErrShutdown) {
		t.Errorf("a second Shutdown: %v", err)
	}

	m, err := NewMetricExporter(&Config{URL: "http://otlp.invalid/v1/metrics"})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := m.Export(context.Background(), &sdk.ResourceMetrics{}); !errors.Is(err, ErrShutdown) {
		t.Errorf("an export after Shutdown: %v", err)
	}
}

// TestShutdownWithinContext checks that Shutdown returns when its
// context ends, even if an export does not.
func TestShutdownWithinContext(t *testing.T) {
	tr := &stuck{entered: make(chan struct{}), release: make(chan struct{})}
	x, err := NewTraceExporter(&Config{URL: "http://otlp.invalid/v1/traces", httpClient: &http.Client{Transport: tr}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { done <- x.ExportSpans(context.Background(), toSDK(stubSpans())) }()
	<-tr.entered
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := x.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown: %v, want its context's deadline", err)
	}
	close(tr.release)
	<-done
}

// cancelled is a transport that waits for its request to be cancelled,
// and says when it returns.
type cancelled struct {
	entered  chan struct{}
	returned atomic.Bool
}

func (c *cancelled) RoundTrip(r *http.Request) (*http.Response, error) {
	close(c.entered)
	<-r.Context().Done()
	c.returned.Store(true)
	return nil, context.Cause(r.Context())
}

// stuck is a transport that ignores cancellation until released.
type stuck struct{ entered, release chan struct{} }

func (s *stuck) RoundTrip(r *http.Request) (*http.Response, error) {
	close(s.entered)
	<-s.release
	return nil, errors.New("released")
}

// TestMaxRequest checks that a request over MaxRequest is refused
// without being sent.
func TestMaxRequest(t *testing.T) {
	s, url := newScript(t, response{status: 200})
	x, err := NewTraceExporter(&Config{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Shutdown(context.Background())
	if err := x.c.send(context.Background(), make([]byte, MaxRequest+1)); err == nil || !strings.Contains(err.Error(), "more than 67108864") {
		t.Errorf("error %v", err)
	}
	if s.count() != 0 {
		t.Error("the request was sent")
	}
}

// TestOversizedBatchIsSplit checks that a batch whose request would pass
// the request bound is sent in parts rather than lost whole, and that a
// span that alone passes it is dropped, named in the error, the others
// being sent.
func TestOversizedBatchIsSplit(t *testing.T) {
	c := &capture{}
	x, err := NewTraceExporter(&Config{URL: "http://otlp.invalid/v1/traces", httpClient: &http.Client{Transport: c}})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Shutdown(context.Background())
	x.c.maxRequest = 4 << 10
	var spans []*sdk.SpanData
	res, scope := sdk.NewResource("", attribute.String("service.name", "s")), &sdk.Scope{Name: "t"}
	add := func(name string, size int) {
		spans = append(spans, &sdk.SpanData{Resource: res, Scope: scope, Name: name, SpanContext: toSDK(stubSpans())[0].SpanContext,
			Attributes: []attribute.KeyValue{attribute.String("pad", strings.Repeat("x", size))}})
	}
	for i := range 6 {
		add(fmt.Sprint("big", i), 1500)
	}
	add("huge", 5000)
	add("small", 0)
	err = x.ExportSpans(context.Background(), spans)
	if err == nil || !strings.Contains(err.Error(), "1 span") || !strings.Contains(err.Error(), "more than 4096") {
		t.Errorf("error %v, want the one span too large", err)
	}
	var got []string
	for _, b := range c.bodies {
		if len(b) > 4<<10 {
			t.Errorf("a request of %d bytes", len(b))
		}
		var req coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(b, &req); err != nil {
			t.Fatal(err)
		}
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					got = append(got, s.Name)
				}
			}
		}
	}
	slices.Sort(got)
	if want := []string{"big0", "big1", "big2", "big3", "big4", "big5", "small"}; !slices.Equal(got, want) {
		t.Errorf("sent %v, want %v", got, want)
	}
}
