package doctor

import (
	"context"
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
)

// envProcess makes the test binary one of clitest's broken processes,
// or ("good") the test server.
const envProcess = "MCPWIRE_DOCTOR_PROCESS"

func TestMain(m *testing.M) {
	switch mode := os.Getenv(envProcess); {
	case mode == "good":
		clitest.ServerMain()
		os.Exit(0)
	case mode == "loud":
		loudServer()
	case mode != "":
		clitest.BrokenProcesses[mode]()
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// process returns the target of the test binary as the process mode.
func process(mode string) *Target {
	return &Target{Name: "-- testserver " + mode, NewCmd: func() *exec.Cmd {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), envProcess+"="+mode)
		return cmd
	}}
}

// step returns the step id of r, or fails.
func step(t *testing.T, r *Report, id string) *Step {
	t.Helper()
	for _, s := range r.Steps {
		if s.ID == id {
			return s
		}
	}
	t.Fatalf("no step %s in %s", id, dump(r))
	return nil
}

func dump(r *Report) string {
	b, _ := json.MarshalIndent(r, "", "  ")
	return string(b)
}

// check runs the doctor and checks the report: whether it connects, the
// status and detail of one step, and the next step.
func check(t *testing.T, tg *Target, o *Options, ok bool, id string, status Status, detail, next string) *Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := Run(ctx, tg, o)
	s := step(t, r, id)
	if r.OK != ok || s.Status != status || !strings.Contains(s.Detail, detail) || !strings.Contains(r.Next, next) {
		t.Errorf("ok %v, step %s %s %q, next %q; want ok %v, %s containing %q, next containing %q\n%s", r.OK, id, s.Status, s.Detail, r.Next, ok, status, detail, next, dump(r))
	}
	return r
}

// TestDoctorProcesses runs the doctor on a process of each kind.
func TestDoctorProcesses(t *testing.T) {
	quick := &Options{ProbeTimeout: 2 * time.Second}
	for _, c := range []struct {
		mode         string
		ok           bool
		id           string
		status       Status
		detail, next string
	}{
		{"good", true, "discover", OK, "protocol 2026-07-28", ""},
		{"exit-now", false, "discover", Fail, "exited with status 3 before answering; its last stderr line: fatal: no configuration file", `read its stderr (it said "fatal: no configuration file")`},
		{"banner", true, "discover", Warn, `not JSON-RPC: "Server listening on stdio... (v1.0)"`, "make the server write its logs and banners to stderr"},
		{"silent", false, "discover", Fail, "no answer on stdout", "is it an MCP server over stdio?"},
		{"only-2025", true, "discover", Warn, "does not speak 2026-07-28", ""},
		{"only-2026", true, "initialize", Warn, "speaks only 2026-07-28", "clients of the 2025 revisions"},
	} {
		t.Run(c.mode, func(t *testing.T) {
			r := check(t, process(c.mode), quick, c.ok, c.id, c.status, c.detail, c.next)
			if c.mode == "exit-now" && len(step(t, r, "discover").Stderr) == 0 {
				t.Errorf("no stderr in the step")
			}
		})
	}
	t.Run("not-found", func(t *testing.T) {
		tg := &Target{Name: "-- no-such-server", NewCmd: func() *exec.Cmd { return exec.Command("mcpwire-no-such-server") }}
		r := check(t, tg, quick, false, "process", Fail, `cannot start "mcpwire-no-such-server"`, "is it installed, and on PATH?")
		if s := step(t, r, "discover"); s.Status != Skip {
			t.Errorf("the probe after a failed start: %s", s.Status)
		}
	})
}

// serve serves h on a new loopback server until the end of the test.
func serve(t *testing.T, h http.Handler, stop func()) string {
	s := httptest.NewServer(h)
	t.Cleanup(func() {
		stop()
		s.CloseClientConnections()
		s.Close()
	})
	return s.URL
}

// TestDoctorHTTP runs the doctor on an HTTP server of each kind.
func TestDoctorHTTP(t *testing.T) {
	quick := &Options{ProbeTimeout: 3 * time.Second}
	for _, c := range []struct {
		kind         string
		ok           bool
		id           string
		status       Status
		detail, next string
	}{
		{"404", false, "discover", Fail, "HTTP 404", "check the URL's path"},
		{"500", false, "discover", Fail, "HTTP 500", "read its log"},
		{"html", false, "discover", Fail, "a web page (HTTP 200, text/html)", "serves a web page"},
		{"text-plain", false, "discover", Fail, `Content-Type "text/plain"`, "wrong Content-Type"},
		{"oauth-no-metadata", false, "oauth-resource", Fail, "HTTP 401", "publishes no protected resource metadata"},
		{"oauth-broken-metadata", false, "oauth-server", Fail, "lacks token_endpoint, S256", "MCP clients cannot log in"},
		{"legacy-sse", true, "http+sse", Warn, "answers over HTTP+SSE", "only the legacy HTTP+SSE transport"},
		{"only-2025", true, "discover", Warn, "does not speak 2026-07-28", ""},
		{"only-2026", true, "initialize", Warn, "speaks only 2026-07-28", "clients of the 2025 revisions"},
	} {
		t.Run(c.kind, func(t *testing.T) {
			h, stop := clitest.BrokenHTTP(c.kind)
			u := serve(t, h, stop) + "/mcp"
			check(t, &Target{Name: u, URL: u}, quick, c.ok, c.id, c.status, c.detail, c.next)
		})
	}
	t.Run("oauth-good", func(t *testing.T) {
		s := clitest.ServeHTTP(t, clitest.HTTPServerOptions{OAuth: true})
		check(t, &Target{Name: s.URL, URL: s.URL, Login: "@remote"}, quick, false, "authorization", Fail, "its OAuth metadata is in order", "run mcpwire login @remote")
	})
	t.Run("refused", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		r := check(t, &Target{URL: "http://" + addr + "/mcp"}, quick, false, "tcp", Fail, "connection refused", "is the server running")
		if s := step(t, r, "mcp"); s.Status != Skip {
			t.Errorf("the MCP probes after a refused connection: %s", s.Status)
		}
	})
	t.Run("dns", func(t *testing.T) {
		o := *quick
		o.LookupHost = func(ctx context.Context, host string) ([]string, error) {
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
		check(t, &Target{URL: "http://mcp.example.invalid/mcp"}, &o, false, "dns", Fail, `no such host "mcp.example.invalid"`, "check the host name")
	})
	t.Run("tls", func(t *testing.T) {
		s := httptest.NewUnstartedServer(http.NotFoundHandler())
		s.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake the doctor fails
		s.StartTLS()
		defer s.Close()
		check(t, &Target{URL: s.URL + "/mcp"}, quick, false, "tls", Fail, "certificate", "fix the server's certificate")
	})
	t.Run("not-tls", func(t *testing.T) {
		h, stop := clitest.BrokenHTTP("only-2025")
		u := strings.Replace(serve(t, h, stop), "http://", "https://", 1) + "/mcp"
		check(t, &Target{URL: u}, quick, false, "tls", Fail, "does not speak TLS", "use http://")
	})
}

// TestDoctorMasksSecrets: the headers given are sent, and shown masked.
func TestDoctorMasksSecrets(t *testing.T) {
	h, stop := clitest.BrokenHTTP("500")
	u := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Set-Cookie", "session=SECRET-COOKIE")
		h.ServeHTTP(w, r)
	}), stop) + "/mcp?key=SECRET-QUERY"
	r := Run(context.Background(), &Target{URL: u, Header: http.Header{"Authorization": {"Bearer SECRET-TOKEN"}}}, &Options{ProbeTimeout: 2 * time.Second})
	if out := dump(r); strings.Contains(out, "SECRET") || !strings.Contains(out, "Set-Cookie: ****") {
		t.Errorf("the report shows a secret, or no masked cookie:\n%s", out)
	}
}
