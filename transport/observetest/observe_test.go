// Package observetest holds the test that every transport shows the same
// frames to its observers: one table over stdio, subprocesses, in-memory
// pairs, Streamable HTTP and the legacy HTTP+SSE transport, in both
// protocol eras, from both sides of the wire.
package observetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/command"
	"github.com/mcpwire/mcpwire/transport/memory"
	"github.com/mcpwire/mcpwire/transport/sse"
	"github.com/mcpwire/mcpwire/transport/stdio"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// A seen is one observed frame, as the tests compare them.
type seen struct {
	Dir     transport.Direction
	Method  string
	ID      string // "" for a notification or an unknown id
	Resp    bool   // a response
	Latency bool   // a response tied to its request
	Err     bool   // not a valid message
	Raw     string
	Session string
}

func (s seen) String() string {
	kind := "req"
	switch {
	case s.Err:
		kind = "invalid"
	case s.Resp:
		kind = "resp"
	case s.ID == "":
		kind = "note"
	}
	return fmt.Sprintf("%s %s %s id=%s latency=%v", s.Dir, kind, s.Method, s.ID, s.Latency)
}

// recorder is an Observer that keeps what it sees.
type recorder struct {
	mu     sync.Mutex
	frames []seen
}

func (r *recorder) ObserveFrame(f *transport.Frame) {
	s := seen{Dir: f.Direction, Method: f.Method, Latency: f.Latency > 0, Err: f.Err != nil, Raw: string(f.Raw), Session: f.Session}
	if id, ok := f.ID(); ok {
		s.ID = id.String()
	}
	_, s.Resp = f.Message.(*jsonrpc.Response)
	r.mu.Lock()
	r.frames = append(r.frames, s)
	r.mu.Unlock()
}

func (r *recorder) get() []seen {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]seen(nil), r.frames...)
}

// newServer returns the server of every case: one tool, echo, that logs
// a message before it answers.
func newServer() *server.Server {
	s := server.New(mcp.Implementation{Name: "observe", Version: "1"}, nil)
	type args struct {
		Text string `json:"text"`
	}
	server.AddTool(s, &mcp.Tool{Name: "echo"}, func(ctx context.Context, r *server.Request, in args) (string, error) {
		if err := r.Log(ctx, mcp.LevelInfo, "echo", "echoing "+in.Text); err != nil {
			return "", err
		}
		return in.Text, nil
	})
	return s
}

// A setup starts a server of one transport with obs observing its side
// (nil where the server side has no observer of its own) and returns the
// client transport, whose side cobs observes, and a function that sends
// garbage to the server as its peer would.
type setup func(t *testing.T, obs, cobs transport.Observer) (ct transport.Transport, garbage func(string))

var setups = []struct {
	name   string
	setup  setup
	shared bool // one observer sees both sides (memory): no server-side recorder
	side   bool // the server-side frames come from a subprocess (command)
}{
	{"memory", setupMemory, true, false},
	{"stdio", setupStdio, false, false},
	{"command", setupCommand, false, true},
	{"streamable", setupStreamable, false, false},
	{"sse", setupSSE, false, false},
}

// TestObserverSeesEveryFrame runs one conversation (handshake, a tool
// call whose handler logs, in each era) over every transport, and checks
// that the client's observer and the server's observer see the same
// frames, byte for byte, in the same order, mirrored, and the responses
// tied to their requests.
func TestObserverSeesEveryFrame(t *testing.T) {
	for _, tc := range setups {
		for _, v := range []mcp.Version{mcp.LatestLegacy, mcp.Latest} {
			if tc.name == "sse" && v == mcp.Latest {
				continue // the HTTP+SSE transport predates the stateless era
			}
			t.Run(tc.name+"/"+string(v), func(t *testing.T) {
				srvObs, cliObs := &recorder{}, &recorder{}
				var so transport.Observer = srvObs
				if tc.shared {
					so = nil
				}
				ct, _ := tc.setup(t, so, cliObs)
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				c := client.New(mcp.Implementation{Name: "observer", Version: "1"}, &client.Options{Version: v})
				sess, err := c.Connect(ctx, ct)
				if err != nil {
					t.Fatal(err)
				}
				res, err := sess.CallTool(client.WithLogLevel(ctx, mcp.LevelDebug), &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)})
				if err != nil || res.IsError {
					t.Fatal(res, err)
				}
				sess.Close()
				got := cliObs.get()
				want := []string{}
				if mcp.IsModern(v) {
					want = append(want,
						"sent req server/discover id=1 latency=false",
						"received resp server/discover id=1 latency=true",
						"sent req tools/call id=2 latency=false",
						"received note notifications/message id= latency=false",
						"received resp tools/call id=2 latency=true")
				} else {
					want = append(want,
						"sent req initialize id=1 latency=false",
						"received resp initialize id=1 latency=true",
						"sent note notifications/initialized id= latency=false",
						"sent req tools/call id=2 latency=false",
						"received note notifications/message id= latency=false",
						"received resp tools/call id=2 latency=true")
				}
				checkSeq(t, "client", got, want)
				var server []seen
				switch {
				case tc.shared:
					return // one observer for both ends
				case tc.side:
					server = readChildFrames(t)
				default:
					server = srvObs.get()
				}
				mirrored := make([]seen, len(server))
				for i, f := range server {
					f.Dir = 3 - f.Dir
					mirrored[i] = f
				}
				if len(mirrored) != len(got) {
					t.Fatalf("the server saw %d frames, the client %d:\nserver %v\nclient %v", len(mirrored), len(got), mirrored, got)
				}
				for i := range got {
					if got[i].String() != mirrored[i].String() || got[i].Raw != mirrored[i].Raw {
						t.Errorf("frame %d:\nclient saw %v %s\nserver saw %v %s", i, got[i], got[i].Raw, mirrored[i], mirrored[i].Raw)
					}
				}
			})
		}
	}
}

func checkSeq(t *testing.T, side string, got []seen, want []string) {
	t.Helper()
	var g []string
	for _, f := range got {
		g = append(g, f.String())
	}
	if strings.Join(g, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s observer saw:\n%s\nwant:\n%s", side, strings.Join(g, "\n"), strings.Join(want, "\n"))
	}
}

// TestObserverSeesInvalidFrames sends a frame that is not JSON-RPC on
// every transport that can carry one, and checks that the receiving side's
// observer sees it, bytes and error.
func TestObserverSeesInvalidFrames(t *testing.T) {
	const garbage = `{"jsonrpc":"2.0","id":9,"method":`
	for _, tc := range setups {
		if tc.shared || tc.side {
			continue // no raw access to the wire (memory), or the server is a subprocess
		}
		t.Run(tc.name, func(t *testing.T) {
			srvObs := &recorder{}
			ct, send := tc.setup(t, srvObs, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			// A legacy session first, so that the HTTP transports have one
			// for the garbage to go to.
			sess, err := client.New(mcp.Implementation{Name: "observer", Version: "1"}, &client.Options{Version: mcp.LatestLegacy}).Connect(ctx, ct)
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			send(garbage)
			for _, f := range srvObs.get() {
				if f.Dir == transport.Received && f.Err && f.Raw == garbage {
					return
				}
			}
			t.Errorf("the server's observer did not see the invalid frame: %v", srvObs.get())
		})
	}
}

func setupMemory(t *testing.T, _, cobs transport.Observer) (transport.Transport, func(string)) {
	ct, st := memory.NewPair(&memory.Options{Observer: cobs})
	serve(t, st)
	return ct, nil
}

// serve runs the test server over st until the test ends.
func serve(t *testing.T, st transport.Transport) {
	ss, err := newServer().Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close(); ss.Wait() })
}

func setupStdio(t *testing.T, obs, cobs transport.Observer) (transport.Transport, func(string)) {
	cr, sw := io.Pipe() // server → client
	sr, cw := io.Pipe() // client → server
	t.Cleanup(func() { cr.Close(); sr.Close() })
	serve(t, stdio.New(&stdio.Options{Stdin: sr, Stdout: sw, Observer: obs}))
	var mu sync.Mutex // the client's writes and the garbage share the pipe
	w := writerFunc(func(b []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return cw.Write(b) })
	ct := connTransport{transport.NewLineConn(cr, w, closers{cr, cw}, &transport.LineOptions{Observer: cobs, Methods: mcp.KnownMethods()})}
	return ct, func(s string) { w.Write([]byte(s + "\n")); waitFor(t, obs) }
}

func setupCommand(t *testing.T, _, cobs transport.Observer) (transport.Transport, func(string)) {
	file := t.TempDir() + "/frames.jsonl"
	os.Setenv(childFramesEnv, file) // read by readChildFrames
	t.Cleanup(func() { os.Unsetenv(childFramesEnv) })
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1", childFramesEnv+"="+file)
	return command.New(cmd, &command.Options{Observer: cobs}), nil
}

func setupStreamable(t *testing.T, obs, cobs transport.Observer) (transport.Transport, func(string)) {
	srv := newServer()
	h := streamable.NewHandler(srv, &streamable.HandlerOptions{Observer: obs})
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); h.Close(); srv.Close() })
	ct := streamable.NewTransport(ts.URL, &streamable.ClientOptions{Observer: cobs, DisableStandaloneStream: true})
	return ct, func(s string) {
		sid := firstSession(obs)
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(s))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set(mcp.HeaderSessionID, sid)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
}

func setupSSE(t *testing.T, obs, cobs transport.Observer) (transport.Transport, func(string)) {
	srv := newServer()
	h := sse.NewHandler(srv, &sse.HandlerOptions{Observer: obs})
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); h.Close(); srv.Close() })
	ct := sse.NewTransport(ts.URL, &sse.ClientOptions{Observer: cobs})
	return ct, func(s string) {
		sid := firstSession(obs)
		resp, err := http.Post(ts.URL+"?"+sse.SessionParam+"="+sid, "application/json", strings.NewReader(s))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
}

// firstSession returns the session id of the first frame the observer
// saw.
func firstSession(obs transport.Observer) string {
	for _, f := range obs.(*recorder).get() {
		if f.Session != "" {
			return f.Session
		}
	}
	return ""
}

// waitFor waits until the observer has seen an invalid frame: the server
// reads stdio in its own goroutine.
func waitFor(t *testing.T, obs transport.Observer) {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, f := range obs.(*recorder).get() {
			if f.Err {
				return
			}
		}
		time.Sleep(time.Millisecond)
	}
	t.Error("no invalid frame was observed within 10s")
}

// connTransport is a Transport that returns a connection made already.
type connTransport struct{ c transport.Conn }

func (c connTransport) Connect(context.Context) (transport.Conn, error) { return c.c, nil }

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

type closers []io.Closer

func (cs closers) Close() error {
	for _, c := range cs {
		c.Close()
	}
	return nil
}

// The subprocess of the command case: a stdio server whose observer writes
// each frame to a file as one JSON line.
const (
	childEnv       = "MCPWIRE_OBSERVETEST_CHILD"
	childFramesEnv = "MCPWIRE_OBSERVETEST_FRAMES"
)

func runChild() {
	f, err := os.Create(os.Getenv(childFramesEnv))
	if err != nil {
		os.Exit(2)
	}
	defer f.Close()
	var mu sync.Mutex
	enc := json.NewEncoder(f)
	rec := &recorder{}
	obs := transport.ObserverFunc(func(fr *transport.Frame) {
		rec.ObserveFrame(fr)
		mu.Lock()
		defer mu.Unlock()
		enc.Encode(rec.get()[len(rec.get())-1])
	})
	newServer().Run(context.Background(), stdio.New(&stdio.Options{Observer: obs}))
}

// readChildFrames reads the frames the subprocess server observed; the
// subprocess has ended (the session was closed).
func readChildFrames(t *testing.T) []seen {
	b, err := os.ReadFile(os.Getenv(childFramesEnv))
	if err != nil {
		t.Fatal(err)
	}
	var out []seen
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s seen
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}
