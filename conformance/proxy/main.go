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
	hs := &http.Server{Handler: newProxy(backends, log.New(stderr, "proxy: ", 0)), ReadHeaderTimeout: 10 * time.Second}
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

// newProxy returns the round-robin handler over backends, logging the
// copy errors of ReverseProxy to errorLog.
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
func newProxy(backends []*url.URL, errorLog *log.Logger) http.Handler {
	var next atomic.Uint64
	p := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			b := backends[(next.Add(1)-1)%uint64(len(backends))]
			r.SetURL(b)
			r.Out.Host = r.In.Host
		},
		FlushInterval: -1,
		ErrorLog:      errorLog,
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := http.NewResponseController(w).EnableFullDuplex(); err != nil {
			errorLog.Printf("full duplex: %v", err)
		}
		p.ServeHTTP(w, r)
	})
}
