// Command proxy is a round-robin HTTP reverse proxy: each request goes to
// the next of its backends, whatever it carries. It stands for the load
// balancer in front of several instances of one MCP server, so that the
// conformance suites can run against three everything-server instances
// sharing Redis (.ci/conformance):
//
//	proxy -listen localhost:3000 -to http://localhost:3001,http://localhost:3002,http://localhost:3003
//
// Response bodies are flushed as they come (SSE streams), and the Host
// header is kept, so the backends see the address the client used.
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
	var next atomic.Uint64
	p := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			b := backends[(next.Add(1)-1)%uint64(len(backends))]
			r.SetURL(b)
			r.Out.Host = r.In.Host
		},
		FlushInterval: -1,
		ErrorLog:      log.New(stderr, "proxy: ", 0),
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
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
