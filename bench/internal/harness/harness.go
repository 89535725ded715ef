// Package harness is the command line every benchmark server shares, so
// that any load generator can drive any of them the same way:
//
//	SERVER -stdio                  newline-delimited JSON-RPC on stdin/stdout, exit on EOF
//	SERVER -http 127.0.0.1:PORT    Streamable HTTP at /mcp
//	       -cpuprofile FILE        write a CPU profile, stopped at exit
//	       -trace FILE             write an execution trace, stopped at exit
//	       -memprofile FILE        write a heap profile at exit (as of the
//	                               last collection, with every allocation
//	                               since the start: -sample_index=alloc_space)
//	       -stateless              serve the stateless era where the library
//	                               needs a separate mode for it
//
// In HTTP mode the server also answers GET /debug/mem with its memory
// after two garbage collections (see MemStats), which the load generator
// uses to measure the memory an idle session holds, and GET
// /debug/pprof/heap and /debug/pprof/goroutine with its profiles (for a
// look at it under load); it exits on SIGTERM or SIGINT after stopping
// the profiles.
//
// The harness is measurement plumbing, identical for every
// implementation; the servers themselves stay as small as each library
// allows.
package harness

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"syscall"
	"time"
)

// Config is the parsed command line.
type Config struct {
	Stdio      bool   // -stdio
	HTTP       string // -http ADDR
	CPUProfile string // -cpuprofile FILE
	Trace      string // -trace FILE
	MemProfile string // -memprofile FILE
	Stateless  bool   // -stateless
}

// Server is what one implementation provides: a stdio loop that returns
// at the end of its input, and an HTTP handler for /mcp.
type Server struct {
	// Stdio serves one session on stdin and stdout and returns when stdin
	// ends or ctx is done.
	Stdio func(ctx context.Context) error
	// HTTP returns the handler mounted at /mcp.
	HTTP func(cfg Config) http.Handler
}

// MemStats is the answer of GET /debug/mem: the Go heap and the goroutine
// stacks after two forced collections, so that only live memory counts.
type MemStats struct {
	HeapAlloc  uint64 `json:"heapAlloc"`  // live heap objects, bytes
	HeapInuse  uint64 `json:"heapInuse"`  // heap spans in use, bytes
	StackInuse uint64 `json:"stackInuse"` // goroutine stacks, bytes
	Sys        uint64 `json:"sys"`        // everything the runtime took from the OS
	Goroutines int    `json:"goroutines"`
}

// Main parses the command line and runs s; it does not return.
func Main(name string, s Server) {
	cfg := Config{}
	fs := flag.NewFlagSet(name, flag.ExitOnError)
	fs.BoolVar(&cfg.Stdio, "stdio", false, "serve newline-delimited JSON-RPC on stdin/stdout")
	fs.StringVar(&cfg.HTTP, "http", "", "serve Streamable HTTP on `ADDR` at /mcp")
	fs.StringVar(&cfg.CPUProfile, "cpuprofile", "", "write a CPU profile to `FILE`")
	fs.StringVar(&cfg.Trace, "trace", "", "write an execution trace to `FILE`")
	fs.StringVar(&cfg.MemProfile, "memprofile", "", "write a heap profile to `FILE` at exit")
	fs.BoolVar(&cfg.Stateless, "stateless", false, "serve the stateless era where the library needs a separate mode")
	fs.Parse(os.Args[1:])
	if cfg.Stdio == (cfg.HTTP != "") {
		fmt.Fprintf(os.Stderr, "%s: choose one of -stdio and -http ADDR\n", name)
		os.Exit(2)
	}
	if cfg.CPUProfile != "" {
		f, err := os.Create(cfg.CPUProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			os.Exit(1)
		}
	}
	if cfg.Trace != "" {
		f, err := os.Create(cfg.Trace)
		if err == nil {
			err = trace.Start(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			os.Exit(1)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	var err error
	if cfg.Stdio {
		err = s.Stdio(ctx)
	} else {
		err = serveHTTP(ctx, cfg, s.HTTP(cfg))
	}
	stop()
	pprof.StopCPUProfile()
	trace.Stop()
	if cfg.MemProfile != "" {
		if err := writeHeapProfile(cfg.MemProfile); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		}
	}
	if err != nil && ctx.Err() == nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// serveHTTP serves h at /mcp and the memory report at /debug/mem until
// ctx ends.
func serveHTTP(ctx context.Context, cfg Config, h http.Handler) error {
	ln, err := net.Listen("tcp", cfg.HTTP)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.HandleFunc("GET /debug/mem", func(w http.ResponseWriter, r *http.Request) {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(MemStats{
			HeapAlloc: ms.HeapAlloc, HeapInuse: ms.HeapInuse, StackInuse: ms.StackInuse,
			Sys: ms.Sys, Goroutines: runtime.NumGoroutine(),
		})
	})
	// The heap profile (as of the last collection: no collection is
	// forced, so that reading it under load does not change the load) and
	// the goroutine profile, for a look at a server under load.
	for _, name := range []string{"heap", "goroutine"} {
		mux.HandleFunc("GET /debug/pprof/"+name, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/octet-stream")
			pprof.Lookup(name).WriteTo(w, 0)
		})
	}
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// writeHeapProfile writes the heap profile to file: the live heap as of
// the last collection, and every allocation since the start.
func writeHeapProfile(file string) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
