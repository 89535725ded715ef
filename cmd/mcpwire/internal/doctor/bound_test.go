package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/stdio"
)

// loudServer is a server whose name is 64 KiB long.
func loudServer() {
	srv := server.New(mcp.Implementation{Name: strings.Repeat("N", 64<<10), Version: "1"}, nil)
	srv.Run(context.Background(), stdio.New(nil))
	os.Exit(0)
}

// maxReport is what a report may weigh, whatever the server says.
const maxReport = 128 << 10

// TestDoctorReportBounded: what a server says goes into the report
// clipped (its name, its OAuth metadata, its headers), so that the
// report mcpwire doctor prints, and the page shows, is bounded. (A
// server's 64 KiB name went in whole, twice; 5,000 authorization
// servers and 300 headers too.)
func TestDoctorReportBounded(t *testing.T) {
	r := Run(context.Background(), process("loud"), &Options{ProbeTimeout: 20 * time.Second})
	if !r.OK {
		t.Fatalf("the loud server: %s", dump(r))
	}
	checkBounded(t, "a stdio server with a long name", r)

	var s *httptest.Server
	s = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if strings.HasPrefix(req.URL.Path, "/.well-known/oauth-protected-resource") {
			var as []string
			for i := range 5000 {
				as = append(as, fmt.Sprintf("%s/as/%s%d", s.URL, strings.Repeat("a", 100), i))
			}
			json.NewEncoder(w).Encode(map[string]any{"resource": s.URL + "/mcp", "authorization_servers": as})
			return
		}
		for i := range 300 {
			w.Header().Add(fmt.Sprintf("X-Junk-%d", i), strings.Repeat("j", 500))
		}
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer s.Close()
	r = Run(context.Background(), &Target{Name: s.URL + "/mcp", URL: s.URL + "/mcp"}, &Options{ProbeTimeout: 20 * time.Second})
	checkBounded(t, "an HTTP server with long metadata and many headers", r)
}

func checkBounded(t *testing.T, what string, r *Report) {
	t.Helper()
	data, _ := json.Marshal(r)
	if len(data) > maxReport {
		t.Errorf("%s: the report is %d bytes, want at most %d", what, len(data), maxReport)
	}
	var text strings.Builder
	r.Write(&text)
	if text.Len() > maxReport {
		t.Errorf("%s: the printed report is %d bytes, want at most %d", what, text.Len(), maxReport)
	}
}
