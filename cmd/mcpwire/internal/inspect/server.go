package inspect

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/frames"
	"github.com/mcpwire/mcpwire/mcp"
)

// The pages are served on a loopback address only, to the browser of the
// person who started mcpwire inspect. Every request must pass, in order:
//
//  1. its Host is the address the inspector listens on (127.0.0.1:PORT,
//     or localhost:PORT): a page of another site whose name resolves to
//     127.0.0.1 (DNS rebinding) is refused;
//  2. its Origin, when it has one, is the inspector's own, and so is its
//     Sec-Fetch-Site (or "none": the person typed or opened the URL); a
//     POST must have the inspector's Origin. Requests of other pages
//     (cross-site requests, forms) are refused;
//  3. it carries the access token, ?token=..., which mcpwire printed;
//  4. a POST is JSON (application/json; a recording is
//     application/x-ndjson), which no form of another page can send, and
//     its body is bounded.
//
// Refusals are 403 (Host, Origin), 401 (token), 405, 415, 413 and 429
// (too many event streams, or requests).

// tokenParam is the query parameter of the access token.
const tokenParam = "token"

// handler serves the pages, the event stream and the operations of an
// inspector.
type handler struct {
	in    *Inspector
	token string
	hosts map[string]bool // the Host values accepted, lowercase
	mux   *http.ServeMux
	apps  *appsHost // the Apps host (apps.go), nil without one
}

// newHandler returns the handler of in's pages, served at addr (the
// listener's address, an IP address and a port) with the access token
// token.
func newHandler(in *Inspector, addr, token string) (*handler, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("%s is not a loopback address", addr)
	}
	h := &handler{in: in, token: token, hosts: map[string]bool{
		strings.ToLower(net.JoinHostPort(host, port)): true,
		"localhost:" + port:                           true,
	}}
	h.mux = http.NewServeMux()
	h.mux.HandleFunc("GET /{$}", h.page)
	h.mux.HandleFunc("GET /events", h.events)
	h.mux.HandleFunc("GET /export", h.export)
	h.mux.HandleFunc("GET /checks", h.checks)
	h.mux.HandleFunc("POST /api/recording", h.recording)
	h.mux.HandleFunc("POST /api/answer", h.answer)
	h.mux.HandleFunc("POST /api/cancel", h.cancel)
	for name, f := range operations {
		h.mux.HandleFunc("POST /api/"+name, func(w http.ResponseWriter, r *http.Request) { h.operate(w, r, f) })
	}
	return h, nil
}

// newToken returns a new access token: 128 bits or more of randomness.
func newToken() string { return rand.Text() }

// ServeHTTP checks the request (Host, Origin, token) and serves it.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("Cache-Control", "no-store")
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("X-Frame-Options", "DENY")
	hdr.Set("Cross-Origin-Resource-Policy", "same-origin")
	if !h.hosts[strings.ToLower(r.Host)] {
		refuse(w, http.StatusForbidden, "this address answers to the Host 127.0.0.1 or localhost with its port only")
		return
	}
	origin := r.Header.Get("Origin")
	if origin != "" && origin != "http://"+r.Host {
		refuse(w, http.StatusForbidden, "requests from other sites are refused")
		return
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		refuse(w, http.StatusForbidden, "requests from other sites are refused")
		return
	}
	if r.Method == http.MethodPost && origin == "" {
		refuse(w, http.StatusForbidden, "a POST must come from the inspector's page (it has no Origin)")
		return
	}
	if subtle.ConstantTimeCompare([]byte(r.URL.Query().Get(tokenParam)), []byte(h.token)) != 1 {
		refuse(w, http.StatusUnauthorized, "the access token is missing or wrong: open the URL that mcpwire inspect printed")
		return
	}
	if r.Method == http.MethodPost {
		want := "application/json"
		if r.URL.Path == "/api/recording" {
			want = "application/x-ndjson"
		}
		if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != want {
			refuse(w, http.StatusUnsupportedMediaType, "the body must be "+want)
			return
		}
		limit := h.in.opts.MaxBody
		if want != "application/json" {
			limit = h.in.opts.MaxRecording
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
	}
	h.mux.ServeHTTP(w, r)
}

// refuse answers with status and a one-line reason.
func refuse(w http.ResponseWriter, status int, reason string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprintf(w, "mcpwire inspect: %s\n", reason)
}

// writeJSON answers with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		status, data = http.StatusInternalServerError, []byte(`{"error":{"message":"cannot encode the answer"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(data)
}

// fail answers an operation the inspector could not start, with the
// status its error calls for.
func fail(w http.ResponseWriter, err error) {
	status := http.StatusBadRequest
	var mbe *http.MaxBytesError
	switch {
	case errors.Is(err, errBusy):
		status = http.StatusTooManyRequests
	case errors.Is(err, errDuplicate), errors.Is(err, errNoQuestion), errors.Is(err, errOpening), errors.Is(err, errRaced):
		status = http.StatusConflict
	case errors.Is(err, errNoSession):
		status = http.StatusServiceUnavailable
	case errors.Is(err, errNotInCatalog):
		status = http.StatusNotFound
	case errors.Is(err, errRefusedFile), errors.Is(err, errUntrusted), errors.Is(err, errChanged):
		status = http.StatusForbidden
	case errors.Is(err, errTooLarge):
		status = http.StatusRequestEntityTooLarge
	case errors.As(err, &mbe):
		status = http.StatusRequestEntityTooLarge
		err = fmt.Errorf("the request is larger than %d bytes", mbe.Limit)
	}
	writeJSON(w, status, &outcome{Error: &opError{Message: err.Error()}})
}

// readBody decodes the JSON body of r into v, strictly.
func readBody(r *http.Request, v any) error {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	return strictJSON(data, v)
}

// An operation is one POST /api/NAME: it decodes its arguments and runs.
type operation func(in *Inspector, ctx context.Context, r *http.Request) (*outcome, error)

// op makes an operation of a method of the inspector that takes the
// arguments A.
func op[A any](f func(in *Inspector, ctx context.Context, a *A) (*outcome, error)) operation {
	return func(in *Inspector, ctx context.Context, r *http.Request) (*outcome, error) {
		a := new(A)
		if err := readBody(r, a); err != nil {
			return nil, err
		}
		return f(in, ctx, a)
	}
}

// noArgs are the arguments of operations that take none.
type noArgs struct{}

// operations are the operations of the page, by name.
var operations = map[string]operation{
	"call":      op((*Inspector).callTool),
	"read":      op((*Inspector).readResource),
	"prompt":    op((*Inspector).getPrompt),
	"complete":  op((*Inspector).complete),
	"subscribe": op((*Inspector).subscribe),
	"loglevel":  op((*Inspector).setLogLevel),
	"roots":     op((*Inspector).setRoots),
	"refresh":   op(func(in *Inspector, ctx context.Context, _ *noArgs) (*outcome, error) { return in.refreshAll(ctx) }),
	"ping":      op(func(in *Inspector, ctx context.Context, _ *noArgs) (*outcome, error) { return in.ping(ctx) }),
	// reconnect.go, catalog.go, checks.go, extras.go
	"reconnect": op((*Inspector).reconnect),
	"connect":   op((*Inspector).connectTo),
	"catalog": op(func(in *Inspector, ctx context.Context, _ *noArgs) (*outcome, error) {
		return &outcome{}, in.loadCatalog()
	}),
	"doctor":        op((*Inspector).runDoctor),
	"checks/save":   op((*Inspector).saveCheck),
	"checks/delete": op((*Inspector).deleteCheck),
	"checks/run":    op((*Inspector).runChecks),
	"task/call":     op((*Inspector).callAsTask),
	"task/get":      op((*Inspector).getTask),
	"task/result":   op((*Inspector).taskResult),
	"task/cancel":   op((*Inspector).cancelTask),
}

// operate runs an operation of the page.
func (h *handler) operate(w http.ResponseWriter, r *http.Request, f operation) {
	o, err := f(h.in, r.Context(), r)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, o)
}

// answer takes the person's answer to a question of the server.
func (h *handler) answer(w http.ResponseWriter, r *http.Request) {
	var a struct {
		ID     string          `json:"id"`
		Answer json.RawMessage `json:"answer"`
	}
	if err := readBody(r, &a); err != nil {
		fail(w, err)
		return
	}
	q := h.in.hub.question(a.ID)
	if q == nil {
		fail(w, errNoQuestion)
		return
	}
	if err := checkAnswer(q.Kind, a.Answer); err != nil {
		fail(w, err)
		return
	}
	if err := h.in.hub.reply(a.ID, a.Answer); err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, &outcome{})
}

// checkAnswer checks that answer is an answer to a question of kind.
func checkAnswer(kind string, answer []byte) error {
	switch kind {
	case askElicit:
		var res mcp.ElicitResult
		if err := strictJSON(answer, &res); err != nil {
			return err
		}
		switch res.Action {
		case mcp.ElicitAccept, mcp.ElicitDecline, mcp.ElicitCancel:
		default:
			return fmt.Errorf("unknown action %q", res.Action)
		}
		if res.Action != mcp.ElicitAccept && res.Content != nil {
			return errors.New("only an accepted elicitation has content")
		}
	case askSample:
		var a sampleAnswer
		if err := strictJSON(answer, &a); err != nil {
			return err
		}
		if !a.Reject && (a.Result == nil || a.Result.Role == "" || len(a.Result.Content) == 0) {
			return errors.New("a sampling answer needs a role and content, or reject")
		}
	}
	return nil
}

// cancel cancels a request of the page.
func (h *handler) cancel(w http.ResponseWriter, r *http.Request) {
	var a struct {
		ID string `json:"id"`
	}
	if err := readBody(r, &a); err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"cancelled": h.in.cancelRequest(a.ID)})
}

// events serves the event stream of a page (hub.go): the state, the
// journal, the questions.
func (h *handler) events(w http.ResponseWriter, r *http.Request) {
	if !h.in.hub.join(h.in.opts.MaxStreams) {
		refuse(w, http.StatusTooManyRequests, fmt.Sprintf("%d pages are open already", h.in.opts.MaxStreams))
		return
	}
	defer h.in.hub.leave()
	s := &stream{asked: make(map[string]bool)}
	if id, err := strconv.ParseUint(r.Header.Get("Last-Event-ID"), 10, 64); err == nil {
		_, last := h.in.hub.snapshot()
		s.cursor = min(id, last)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	if _, err := io.WriteString(w, "retry: 1000\n\n"); err != nil {
		return
	}
	for {
		b := h.in.hub.pending(s)
		rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		if err := b.writeSSE(w); err != nil {
			return
		}
		if err := rc.Flush(); err != nil || b.closed {
			return
		}
		select {
		case <-b.wake:
		case <-r.Context().Done():
			return
		}
	}
}

// streamWriteTimeout bounds one write to an event stream: a page that
// reads nothing for that long is dropped (it reconnects, and goes on
// where it was).
const streamWriteTimeout = 30 * time.Second

// export writes the frames of the journal as a recording (the format of
// mcpwire tap --record), each as the journal holds it: never copied.
func (h *handler) export(w http.ResponseWriter, r *http.Request) {
	es, _ := h.in.hub.entries(kindFrame)
	name := fmt.Sprintf("mcpwire-%s.jsonl", time.Now().Format("20060102-150405"))
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	bw := bufio.NewWriterSize(w, answerBuffer) // a long frame passes it by
	for _, e := range es {
		bw.Write(e.data)
		if err := bw.WriteByte('\n'); err != nil {
			return
		}
	}
	bw.Flush()
}

// answerBuffer is the buffer of the answers written as they are made
// (export, recording): the short records go out together, a longer one
// straight from where it is.
const answerBuffer = 64 << 10

// recording reads a recording the page loads, and answers with its
// records (as JSON, each as the format writes it), or says what is wrong
// with it. The recording is read once, into one buffer when its length
// is declared, and the answer written from it as it is made: a recording
// costs about its size.
func (h *handler) recording(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength > h.in.opts.MaxRecording {
		fail(w, &http.MaxBytesError{Limit: h.in.opts.MaxRecording})
		return
	}
	recs, err := frames.ReadSize(r.Body, r.ContentLength)
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	bw := bufio.NewWriterSize(w, answerBuffer)
	bw.WriteString(`{"records":[`)
	var buf []byte
	for i := range recs {
		if i > 0 {
			bw.WriteByte(',')
		}
		var werr error
		if buf, werr = recs[i].WriteJSON(bw, buf); werr != nil {
			return // the page went
		}
	}
	bw.WriteByte(']')
	if err != nil {
		msg, _ := json.Marshal(err.Error())
		bw.WriteString(`,"error":{"message":`)
		bw.Write(msg)
		bw.WriteByte('}')
	}
	bw.WriteByte('}')
	bw.Flush()
}
