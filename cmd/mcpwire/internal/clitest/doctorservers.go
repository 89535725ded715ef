package clitest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/sse"
	"github.com/mcpwire/mcpwire/transport/stdio"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// Servers that are broken, or odd, in the ways mcpwire doctor names: a
// test binary runs one of BrokenProcesses as its main, or serves one of
// BrokenHTTP.

// BrokenProcesses are stdio servers by name, each a main function:
//
//	exit-now     writes "fatal: no configuration file" on stderr, exits 3
//	banner       prints a banner on stdout before it serves (not JSON-RPC)
//	silent       reads its input and never answers
//	only-2025    serves the 2025 revisions only
//	only-2026    serves 2026-07-28 only
var BrokenProcesses = map[string]func(){
	"exit-now": func() {
		fmt.Fprintln(os.Stderr, "fatal: no configuration file")
		os.Exit(3)
	},
	"banner": func() {
		fmt.Println("Server listening on stdio... (v1.0)")
		serveStdio(nil)
	},
	"silent": func() {
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	},
	"only-2025": func() { serveStdio(legacyVersions()) },
	"only-2026": func() { serveStdio([]mcp.Version{"2026-07-28"}) },
}

// serveStdio serves a small server of the given revisions (nil: all) on
// stdio, then exits.
func serveStdio(versions []mcp.Version) {
	srv := EraServer(versions)
	srv.Run(context.Background(), stdio.New(nil))
	os.Exit(0)
}

// legacyVersions returns the supported revisions of the 2025 era.
func legacyVersions() []mcp.Version {
	var out []mcp.Version
	for _, v := range mcp.SupportedVersions() {
		if mcp.IsLegacy(v) {
			out = append(out, v)
		}
	}
	return out
}

// EraServer returns a server with one tool, echo, that serves the given
// revisions (nil: all).
func EraServer(versions []mcp.Version) *server.Server {
	srv := server.New(mcp.Implementation{Name: "era-server", Version: "1.0.0"}, &server.Options{Versions: versions})
	server.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echoes its text"}, func(ctx context.Context, r *server.Request, a struct {
		Text string `json:"text"`
	}) (string, error) {
		return a.Text, nil
	})
	return srv
}

// BrokenHTTP returns the handler of an HTTP server broken (or odd) in
// the way kind names, and the function that stops it:
//
//	404           nothing at the path
//	500           fails every request
//	html          a web page, 200 text/html
//	text-plain    200 text/plain to a POST
//	oauth-no-metadata      401 with a challenge, and no metadata anywhere
//	oauth-broken-metadata  401; the resource metadata names an
//	                       authorization server whose metadata lacks the
//	                       token endpoint and PKCE
//	legacy-sse    only the HTTP+SSE transport (2024-11-05), at the URL
//	only-2025     Streamable HTTP, the 2025 revisions only
//	only-2026     Streamable HTTP, 2026-07-28 only
func BrokenHTTP(kind string) (http.Handler, func()) {
	none := func() {}
	switch kind {
	case "404":
		return http.NotFoundHandler(), none
	case "500":
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "database is down", http.StatusInternalServerError)
		}), none
	case "html":
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, "<!doctype html><title>Welcome</title><h1>Welcome to our site</h1>")
		}), none
	case "text-plain":
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "ok")
		}), none
	case "oauth-no-metadata":
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
		}), none
	case "oauth-broken-metadata":
		mux := http.NewServeMux()
		mux.HandleFunc("/.well-known/oauth-protected-resource/", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"resource":"http://%s/mcp","authorization_servers":["http://%s"]}`, r.Host, r.Host)
		})
		mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"issuer":"http://%s","authorization_endpoint":"http://%s/authorize"}`, r.Host, r.Host)
		})
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata="http://%s/.well-known/oauth-protected-resource/mcp"`, r.Host))
			http.Error(w, "unauthorized", http.StatusUnauthorized)
		})
		return mux, none
	case "legacy-sse":
		h := sse.NewHandler(EraServer(legacyVersions()), nil)
		return h, func() { h.Close() }
	case "only-2025", "only-2026":
		v := legacyVersions()
		if kind == "only-2026" {
			v = []mcp.Version{"2026-07-28"}
		}
		h := streamable.NewHandler(EraServer(v), nil)
		return h, func() { h.Close() }
	}
	panic("clitest: no broken HTTP server " + kind)
}

// BrokenHTTPKinds lists the kinds of BrokenHTTP, sorted.
func BrokenHTTPKinds() []string {
	k := strings.Fields("404 500 html text-plain oauth-no-metadata oauth-broken-metadata legacy-sse only-2025 only-2026")
	slices.Sort(k)
	return k
}
