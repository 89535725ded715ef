package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/frames"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// records collects what a tap records.
type records struct {
	mu   sync.Mutex
	list []frames.Record
}

func (r *records) add(rec *frames.Record) {
	r.mu.Lock()
	r.list = append(r.list, *rec)
	r.mu.Unlock()
}

func (r *records) get() []frames.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]frames.Record(nil), r.list...)
}

// TestStdioTapIsTransparent taps cat: every byte the client writes comes
// back unchanged, JSON-RPC or not, with or without a last line ending,
// and each line is recorded once in each direction.
func TestStdioTapIsTransparent(t *testing.T) {
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("no cat")
	}
	input := "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\nnot json at all\n\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n\xff\xfe tail without newline"
	var out, errOut bytes.Buffer
	var rec records
	tap := &StdioTap{Cmd: exec.Command(cat), Stdin: strings.NewReader(input), Stdout: &out, Stderr: &errOut, Record: rec.add}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := tap.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if out.String() != input {
		t.Fatalf("the bytes changed:\n got %q\nwant %q", out.String(), input)
	}
	got := rec.get()
	var client, server []string
	for _, r := range got {
		s := string(r.Body())
		if r.From == frames.FromClient {
			client = append(client, s)
		} else {
			server = append(server, s)
		}
	}
	want := []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, "not json at all", `{"jsonrpc":"2.0","method":"x"}`, "\xff\xfe tail without newline"}
	if strings.Join(client, "|") != strings.Join(want, "|") || strings.Join(server, "|") != strings.Join(want, "|") {
		t.Errorf("recorded\nclient %q\nserver %q\nwant   %q", client, server, want)
	}
	for _, r := range got {
		if string(r.Body()) == "not json at all" && (r.Raw == nil || r.Error == "") {
			t.Errorf("a line that is not JSON is recorded as %+v, want raw with an error", r)
		}
	}
}

// echoServer is the server of the HTTP and replay tests: echo answers
// with prefix and its text.
func echoServer(prefix string) *server.Server {
	s := server.New(mcp.Implementation{Name: "echo", Version: "1"}, nil)
	server.AddTool(s, &mcp.Tool{Name: "echo"}, func(ctx context.Context, r *server.Request, in struct {
		Text string `json:"text"`
	}) (string, error) {
		r.Log(ctx, mcp.LevelInfo, "echo", "echoing")
		return prefix + in.Text, nil
	})
	return s
}

// TestHTTPTapIsTransparent puts a tap in front of a Streamable HTTP
// server: a client gets the same answers in both eras, every frame is
// recorded, and other paths and headers pass unchanged.
func TestHTTPTapIsTransparent(t *testing.T) {
	srv := echoServer("")
	h := streamable.NewHandler(srv, nil)
	var sawAuth []string
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.HandleFunc("/.well-known/oauth-protected-resource", func(w http.ResponseWriter, r *http.Request) {
		sawAuth = append(sawAuth, r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"resource":"x"}`)
	})
	up := httptest.NewServer(mux)
	defer func() { up.Close(); h.Close(); srv.Close() }()
	u, _ := url.Parse(up.URL)
	var rec records
	tap := httptest.NewServer(&HTTPTap{Upstream: u, Record: rec.add})
	defer tap.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, v := range []mcp.Version{mcp.LatestLegacy, mcp.Latest} {
		c := client.New(mcp.Implementation{Name: "t", Version: "1"}, &client.Options{Version: v})
		sess, err := c.Connect(ctx, streamable.NewTransport(tap.URL+"/mcp", nil))
		if err != nil {
			t.Fatal(v, err)
		}
		res, err := sess.CallTool(client.WithLogLevel(ctx, mcp.LevelDebug), &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)})
		if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "hi" {
			t.Fatal(v, res, err)
		}
		sess.Close()
	}
	req, _ := http.NewRequest("GET", tap.URL+"/.well-known/oauth-protected-resource", nil)
	req.Header.Set("Authorization", "Bearer secret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != `{"resource":"x"}` || len(sawAuth) != 1 || sawAuth[0] != "Bearer secret" {
		t.Errorf("other path: %s, upstream saw Authorization %q", body, sawAuth)
	}
	var methods []string
	for _, r := range rec.get() {
		if r.Method != "" {
			methods = append(methods, r.From+":"+r.Method)
		}
	}
	got := strings.Join(methods, " ")
	for _, want := range []string{
		"client:initialize server:initialize client:notifications/initialized client:tools/call server:notifications/message server:tools/call",
		"client:server/discover server:server/discover client:tools/call server:notifications/message server:tools/call",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("recorded %s\nlacks %s", got, want)
		}
	}
}
