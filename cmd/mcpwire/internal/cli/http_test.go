package cli

import (
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
)

// TestURL runs every command over HTTP, in both protocol eras and over
// the legacy HTTP+SSE transport: the output is the same as over stdio.
func TestURL(t *testing.T) {
	s := clitest.ServeHTTP(t, clitest.HTTPServerOptions{})
	sseURL := strings.TrimSuffix(s.URL, "/mcp") + "/sse"
	commands := [][]string{
		{"tools"},
		{"call", "echo", "--args", `{"text":"hi","times":2}`},
		{"call", "add", "--args", `{"a":2,"b":40}`},
		{"resources"},
		{"read", "test://readme"},
		{"prompts"},
		{"get", "greet", "--args", `{"who":"Ada"}`},
	}
	for _, cmd := range commands {
		local := newTestEnv(t, clitest.ServerOptions{})
		if code := local.Execute(append(cmd, "--", "testserver")...); code != app.ExitOK {
			t.Fatalf("%q in process: exit %d: %s", cmd, code, local.Stderr.String())
		}
		want := local.Stdout.String()
		for _, variant := range [][]string{
			{"--url", s.URL},
			{"--url", s.URL, "--protocol", "2025-11-25"},
			{"--url", s.URL, "--protocol", "2025-03-26"},
			{"--url", sseURL}, // falls back to HTTP+SSE (2024-11-05)
		} {
			c := newCLIEnv(t)
			c.NoBrowser = true
			args := append(append([]string{}, cmd...), variant...)
			clitest.CheckOutput(t, strings.Join(args, " "), c.OK(args...), want)
		}
	}
	// --verbose names the era, and the fallback to HTTP+SSE.
	c := newCLIEnv(t)
	if _, _, stderr := c.Run("tools", "-v", "--url", s.URL); !strings.Contains(stderr, "[client] connected to testserver 1.0.0, protocol 2026-07-28 (stateless era)") {
		t.Errorf("--verbose, modern: %s", stderr)
	}
	if _, _, stderr := c.Run("tools", "-v", "--url", sseURL); !strings.Contains(stderr, "using the HTTP+SSE transport (2024-11-05)") || !strings.Contains(stderr, "(stateful era)") {
		t.Errorf("--verbose, HTTP+SSE: %s", stderr)
	}
	if _, err := os.Stat(c.Store); !os.IsNotExist(err) {
		t.Errorf("a server without OAuth created the token store: %v", err)
	}
}

// TestURLHeaders: --header goes with every request, repeated headers
// included, in both eras.
func TestURLHeaders(t *testing.T) {
	var bad atomic.Int32
	s := clitest.ServeHTTP(t, clitest.HTTPServerOptions{Wrap: func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("X-Api-Key") != "k=1" || strings.Join(r.Header.Values("X-Tag"), ",") != "a,b" {
				bad.Add(1)
				http.Error(w, "missing headers", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}})
	c := newCLIEnv(t)
	for _, protocol := range []string{"2026-07-28", "2025-11-25"} {
		out := c.OK("call", "echo", "--args", `{"text":"through"}`, "--protocol", protocol,
			"--url", s.URL, "--header", "X-Api-Key=k=1", "--header", "X-Tag=a", "--header", "X-Tag=b")
		clitest.CheckOutput(t, "output", out, "through\n")
	}
	if n := bad.Load(); n != 0 {
		t.Errorf("%d requests without the headers", n)
	}
	c.Fails(app.ExitConnect, "mcpwire: the server at "+s.URL+" needs authorization (HTTP 401, no Bearer challenge): pass credentials with --header, or run mcpwire login --url "+s.URL, "tools", "--url", s.URL)
}

// TestURLErrors: an HTTP server that cannot be reached or does not speak
// MCP gets one clear line and exit status 4.
func TestURLErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/mcp"
	ln.Close()
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "database on fire", http.StatusInternalServerError)
	}))
	defer broken.Close()
	notMCP := httptest.NewServer(http.NotFoundHandler())
	defer notMCP.Close()
	tlsSrv := httptest.NewTLSServer(http.NotFoundHandler())
	tlsSrv.Config.ErrorLog = discardLog()
	defer tlsSrv.Close()
	hijack := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	defer hijack.Close()
	plainAsTLS := strings.Replace(broken.URL, "http://", "https://", 1) + "/mcp"

	c := newCLIEnv(t)
	c.NoBrowser = true
	c.Fails(app.ExitConnect, "mcpwire: cannot connect to "+closed+": connection refused (is the server running?)", "tools", "--url", closed)
	c.Fails(app.ExitConnect, "mcpwire: POST "+broken.URL+"/mcp: HTTP 500 Internal Server Error: \"database on fire\"",
		"tools", "--url", broken.URL+"/mcp")
	c.Fails(app.ExitConnect, "mcpwire: POST "+notMCP.URL+"/mcp: HTTP 404 Not Found: \"404 page not found\"; the HTTP+SSE transport (2024-11-05) is not offered either: sse: GET "+notMCP.URL+"/mcp: HTTP 404 Not Found: \"404 page not found\"",
		"tools", "--url", notMCP.URL+"/mcp")
	c.Fails(app.ExitConnect, "mcpwire: TLS error with "+tlsSrv.URL+"/mcp: the server's certificate is not trusted: x509: certificate signed by unknown authority",
		"tools", "--url", tlsSrv.URL+"/mcp")
	c.Fails(app.ExitConnect, "mcpwire: TLS error with "+plainAsTLS+": the server does not speak TLS (try http://)", "tools", "--url", plainAsTLS)
	c.Fails(app.ExitConnect, "mcpwire: the connection to "+hijack.URL+"/mcp failed: the server closed it without answering", "tools", "--url", hijack.URL+"/mcp")
	c.Fails(app.ExitUsage, `mcpwire: --url "ftp://example.com/mcp": want an http or https URL, such as http://localhost:3000/mcp`, "tools", "--url", "ftp://example.com/mcp")
	c.Fails(app.ExitUsage, "mcpwire: --url: put credentials in a header, as in --header 'Authorization=Bearer TOKEN', not in the URL", "tools", "--url", "http://u:p@example.com/mcp")
}

// TestURLTimeout: --timeout bounds an operation over HTTP too.
func TestURLTimeout(t *testing.T) {
	s := clitest.ServeHTTP(t, clitest.HTTPServerOptions{})
	c := newCLIEnv(t)
	c.Fails(app.ExitFailure, "mcpwire: timed out after 1s (see --timeout)", "call", "slow", "--timeout", "1s", "--url", s.URL)
}

// TestURLWithAuthorizationHeader: a token given with --header is sent as
// it is, and a refusal says so; no login is attempted.
func TestURLWithAuthorizationHeader(t *testing.T) {
	s := clitest.ServeHTTP(t, clitest.HTTPServerOptions{OAuth: true})
	c := newCLIEnv(t)
	c.NoBrowser = true
	c.Fails(app.ExitConnect, "mcpwire: the server refused the Authorization header given with --header (HTTP 401: invalid_token: The access token is invalid or expired.)",
		"tools", "--url", s.URL, "--header", "Authorization=Bearer forged")
	if a, _, _, _ := s.AS.Stats(); a != 0 {
		t.Errorf("%d authorizations", a)
	}
}

func discardLog() *log.Logger { return log.New(io.Discard, "", 0) }

// TestConfigHeaders: a configured server's headers (here from the
// environment) go with every request, with those of --header, in both
// eras; a server that repeats one in its error has it masked.
func TestConfigHeaders(t *testing.T) {
	const key = "k-0123456789"
	var bad atomic.Int32
	s := clitest.ServeHTTP(t, clitest.HTTPServerOptions{Wrap: func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("X-Api-Key") != key || r.Header.Get("X-Extra") != "1" {
				bad.Add(1)
				http.Error(w, "missing headers", http.StatusBadRequest)
				return
			}
			next.ServeHTTP(w, r)
		})
	}})
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "bad key "+r.Header.Get("X-Api-Key"), http.StatusForbidden)
	}))
	defer echo.Close()
	c := newCLIEnv(t)
	c.Env["HOME"] = c.Dir
	c.Env["API_KEY"] = key
	write(t, filepath.Join(c.Dir, ".cursor", "mcp.json"), `{"mcpServers": {
		"api": {"url": "`+s.URL+`", "headers": {"X-Api-Key": "${env:API_KEY}"}},
		"echo": {"url": "`+echo.URL+`/mcp", "headers": {"X-Api-Key": "${env:API_KEY}"}}
	}}`)
	for _, protocol := range []string{"2026-07-28", "2025-11-25"} {
		out := c.OK("call", "echo", "@api", "--args", `{"text":"with headers"}`, "--protocol", protocol, "--header", "X-Extra=1")
		clitest.CheckOutput(t, "output", out, "with headers\n")
	}
	if n := bad.Load(); n != 0 {
		t.Errorf("%d requests without the headers", n)
	}
	code, _, stderr := c.Run("tools", "@echo")
	if code != app.ExitConnect || strings.Contains(stderr, key) || !strings.Contains(stderr, `HTTP 403 Forbidden: "bad key ****"`) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// write writes text to path, creating its directory.
func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
