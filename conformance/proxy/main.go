// Command proxy is a round-robin HTTP reverse proxy: each request goes to
// the next of its backends, whatever it carries. It stands for the load
// balancer in front of several instances of one MCP server, so that the
// conformance suites can run against three everything-server instances
// sharing Redis (.ci/conformance):
//
//	proxy -listen localhost:3000 -to http://localhost:3001,http://localhost:3002,http://localhost:3003
//
// Response bodies are flushed as they come (SSE streams), requests are
// served full duplex (the request body is the transport's alone to read
// and close, see newProxy), and the Host header is kept, so the backends
// see the address the client used.
//
// Every input is bounded, as a load balancer's is: a request's headers
// must arrive within 10 s, its body within -body-timeout (30 s; 408
// after it) and be at most -max-body bytes (16 MiB, the largest message
// mcpwire's peers read; 413 beyond it, whether declared or found on the
// way); a connection waits 2 minutes at most for its next request. So is
// the wait on a client: each write of an answer must be taken within
// -write-timeout (30 s), or the client's connection and the backend's
// answer are closed, with a line in the log. The answers as a whole, SSE
// streams of any length, are not bounded.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "proxy:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "localhost:3000", "listen on `ADDR`")
	to := fs.String("to", "", "the backends' base `URLs`, comma-separated")
	var lim limits
	fs.Int64Var(&lim.maxBody, "max-body", defaultMaxBody, "refuse a request body over `BYTES` (413)")
	fs.DurationVar(&lim.bodyTimeout, "body-timeout", defaultBodyTimeout, "refuse a request body that takes longer than `DURATION` to arrive (408)")
	fs.DurationVar(&lim.writeTimeout, "write-timeout", defaultWriteTimeout, "close the connection of a client that takes longer than `DURATION` to take a write of its answer")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var backends []*url.URL
	for _, s := range strings.Split(*to, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		u, err := url.Parse(s)
		if err != nil || u.Host == "" {
			return fmt.Errorf("-to: %q is not a URL", s)
		}
		backends = append(backends, u)
	}
	if len(backends) == 0 {
		return errors.New("-to: no backend")
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	if lim.maxBody <= 0 || lim.bodyTimeout <= 0 || lim.writeTimeout <= 0 {
		return errors.New("-max-body, -body-timeout and -write-timeout must be positive")
	}
	hs := newServer(newProxy(backends, log.New(stderr, "proxy: ", 0), lim))
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// The bounds of what a client sends.
const (
	defaultMaxBody     = 16 << 20 // jsonrpc.DefaultMaxMessageSize
	defaultBodyTimeout = 30 * time.Second
	// defaultWriteTimeout bounds each write of an answer, not the answer.
	defaultWriteTimeout = 30 * time.Second
	headerTimeout       = 10 * time.Second
	idleTimeout         = 2 * time.Minute
)

// limits bound a request's body (its size, and the time it takes to
// arrive) and the time a client takes to take each write of its answer.
type limits struct {
	maxBody      int64
	bodyTimeout  time.Duration
	writeTimeout time.Duration
}

// newServer returns the proxy's server for h: the headers of a request
// within headerTimeout, the next request of a connection within
// idleTimeout (the body's bounds, and each write's, are newProxy's), and
// no bound on the answers as a whole, SSE streams of any length. (http.Server.ReadTimeout would bound
// the body too, but it stays set while the answer streams, and ends the
// stream when it passes.)
func newServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: headerTimeout, IdleTimeout: idleTimeout}
}

// newProxy returns the round-robin handler over backends, logging the
// copy errors of ReverseProxy to errorLog. A request body over
// lim.maxBody gets 413, one that has not arrived within lim.bodyTimeout
// 408 (the body, streamed to the backend as it comes, fails there, and
// the error becomes the answer); the connection is closed after either.
//
// Each request is served in full-duplex mode, as a load balancer streams
// both directions. Without it, net/http's server, on the first write of
// the response headers, reads a request body with no unread bytes left to
// its end and closes it, while the transport that forwards it may not
// yet have made its last read (the one that checks Content-Length
// against EOF): a backend that answers as soon as it has the body's
// bytes wins that race now and then. The transport then fails the read
// ("invalid Read on closed Body"), counts it as a failed request write,
// and closes the backend connection in the middle of the response it is
// streaming: the client's stream was cut ("terminated" in Node), about
// one conformance run in ten (TestResponseStreamsEndCleanlyUnderConcurrentPosts).
func newProxy(backends []*url.URL, errorLog *log.Logger, lim limits) http.Handler {
	if lim.maxBody <= 0 {
		lim.maxBody = defaultMaxBody
	}
	if lim.bodyTimeout <= 0 {
		lim.bodyTimeout = defaultBodyTimeout
	}
	if lim.writeTimeout <= 0 {
		lim.writeTimeout = defaultWriteTimeout
	}
	var next atomic.Uint64
	p := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			b := backends[(next.Add(1)-1)%uint64(len(backends))]
			r.SetURL(b)
			r.Out.Host = r.In.Host
		},
		FlushInterval: -1,
		ErrorLog:      errorLog,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			// The transport's error may be the body's, or one it caused
			// (the backend's connection, closed on it): the body's own
			// failure decides.
			if b, _ := r.Context().Value(bodyKey{}).(*boundedBody); b != nil {
				if berr := b.failure(); berr != nil {
					err = berr
				}
			}
			var tl *http.MaxBytesError
			switch {
			case errors.As(err, &tl):
				refuse(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the request body exceeds %d bytes", lim.maxBody))
			case errors.Is(err, os.ErrDeadlineExceeded):
				refuse(w, http.StatusRequestTimeout, fmt.Sprintf("the request body did not arrive within %v", lim.bodyTimeout))
			default:
				errorLog.Printf("http: proxy error: %v", err)
				w.WriteHeader(http.StatusBadGateway)
			}
		},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if err := rc.EnableFullDuplex(); err != nil {
			errorLog.Printf("full duplex: %v", err)
		}
		tw := &timedWriter{ResponseWriter: w, rc: rc, timeout: lim.writeTimeout}
		tw.arm() // the refusals, before any write of the answer
		tw.expired = func() {
			errorLog.Printf("a client did not take its answer within %v: its connection and the backend's answer are closed (%s %s from %s)", lim.writeTimeout, r.Method, r.URL.Path, r.RemoteAddr)
		}
		defer tw.arm() // for what the server writes after the handler: the answer's end
		if r.ContentLength > lim.maxBody {
			refuse(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the request body exceeds %d bytes", lim.maxBody))
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			b := &boundedBody{ReadCloser: http.MaxBytesReader(w, r.Body, lim.maxBody), rc: rc}
			rc.SetReadDeadline(time.Now().Add(lim.bodyTimeout))
			defer b.done()
			r = r.WithContext(context.WithValue(r.Context(), bodyKey{}, b))
			r.Body = b
		}
		p.ServeHTTP(tw, r)
	})
}

// A timedWriter is the ResponseWriter of an answer whose every write (and
// flush) has timeout to be taken by the client: a write deadline on the
// connection, set before each. A client that stops reading thus fails a
// write, and ReverseProxy, whose copy of the answer fails, closes the
// client's connection and the backend's answer. (http.Server's
// WriteTimeout bounds a whole answer, which would cut SSE streams.)
type timedWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	expired func() // called at the first write that timed out
	once    sync.Once
}

// arm sets the deadline of the next write.
func (w *timedWriter) arm() { w.rc.SetWriteDeadline(time.Now().Add(w.timeout)) }

// failed reports a write that timed out.
func (w *timedWriter) failed(err error) {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		w.once.Do(w.expired)
	}
}

func (w *timedWriter) Write(p []byte) (int, error) {
	w.arm()
	n, err := w.ResponseWriter.Write(p)
	if err != nil {
		w.failed(err)
	}
	return n, err
}

// FlushError flushes the answer under the deadline (ReverseProxy flushes
// through http.ResponseController, which looks for it).
func (w *timedWriter) FlushError() error {
	w.arm()
	err := w.rc.Flush()
	if err != nil {
		w.failed(err)
	}
	return err
}

// Unwrap gives http.ResponseController the writer underneath.
func (w *timedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// refuse answers with status and a reason, and closes the connection,
// whose request body is not read to its end.
func refuse(w http.ResponseWriter, status int, reason string) {
	w.Header().Set("Connection", "close")
	http.Error(w, "proxy: "+reason, status)
}

// A boundedBody is a request body read under a deadline, which it lifts
// at the body's end, so that the answer, streaming on, is not cut (a
// read deadline that passes ends the request, as the server reads the
// connection to see the client go).
type boundedBody struct {
	io.ReadCloser
	rc *http.ResponseController

	mu     sync.Mutex
	served bool  // the handler returned: rc may not be used any more
	err    error // the first failure of a read, but the end
}

// bodyKey is the context key of a request's boundedBody.
type bodyKey struct{}

func (b *boundedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.mu.Lock()
		switch {
		case err == io.EOF && !b.served:
			b.rc.SetReadDeadline(time.Time{})
		case err != io.EOF && b.err == nil:
			b.err = err
		}
		b.mu.Unlock()
	}
	return n, err
}

// failure returns why reading the body failed, or nil.
func (b *boundedBody) failure() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

// done marks the handler returned. (The transport may still read the
// body, in full-duplex mode, after a backend answered early.)
func (b *boundedBody) done() {
	b.mu.Lock()
	b.served = true
	b.mu.Unlock()
}
