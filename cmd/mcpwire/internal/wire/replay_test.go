package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/frames"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/memory"
)

// askServer is echoServer plus a tool that asks the user a question
// (a request to the client in a legacy session, an input_required round
// in the modern era).
func askServer(prefix string) *server.Server {
	s := echoServer(prefix)
	server.AddTool(s, &mcp.Tool{Name: "ask"}, func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
		res, err := r.Elicit(ctx, &mcp.ElicitParams{Message: "name?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
		if err != nil {
			return "", err
		}
		return prefix + "hello " + res.Content["name"].(string), nil
	})
	return s
}

// record runs a conversation with srv in era v and returns its recording.
func record(t *testing.T, srv *server.Server, v mcp.Version) []frames.Record {
	var rec records
	ct, st := memory.NewPair(&memory.Options{Observer: frames.Observe(frames.AtClient, rec.add)})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ss, err := srv.Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { ss.Close(); ss.Wait() }()
	c := client.New(mcp.Implementation{Name: "rec", Version: "1"}, &client.Options{Version: v,
		Elicit: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		}})
	sess, err := c.Connect(ctx, ct)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []*mcp.CallToolParams{
		{Name: "echo", Arguments: json.RawMessage(`{"text":"one"}`)},
		{Name: "ask", Arguments: json.RawMessage(`{}`)},
		{Name: "echo", Arguments: json.RawMessage(`{"text":"two"}`)},
		{Name: "missing", Arguments: json.RawMessage(`{}`)},
	} {
		sess.CallTool(ctx, p)
	}
	sess.Close()
	return rec.get()
}

// replay replays recs against srv and returns the report.
func replay(t *testing.T, recs []frames.Record, srv *server.Server) (string, bool) {
	ct, st := memory.NewPair(nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ss, err := srv.Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { ss.Close(); ss.Wait() }()
	conn, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rp := &Replay{Records: recs, Conn: conn, Timeout: 5 * time.Second}
	diffs, err := rp.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	differ := Report(&buf, recs, diffs)
	return buf.String(), differ
}

func TestReplay(t *testing.T) {
	for _, v := range []mcp.Version{mcp.LatestLegacy, mcp.Latest} {
		t.Run(string(v), func(t *testing.T) {
			recs := record(t, askServer(""), v)
			var buf bytes.Buffer
			w := frames.NewWriter(&buf)
			for i := range recs {
				w.Write(&recs[i])
			}
			recs, err := frames.Read(&buf) // through the file format
			if err != nil {
				t.Fatal(err)
			}
			if out, differ := replay(t, recs, askServer("")); differ {
				t.Errorf("the same server differs:\n%s", out)
			}
			out, differ := replay(t, recs, askServer("X"))
			if !differ {
				t.Fatal("a server that answers differently does not differ")
			}
			t.Logf("report:\n%s", out)
			for _, want := range []string{
				`(echo): the response differs`,
				`result.content[0].text`,
				`- recorded: "one"`,
				`+ now:      "Xone"`,
				`(ask): the response differs`,
				`+ now:      "Xhello Ada"`,
			} {
				if !strings.Contains(out, want) {
					t.Errorf("the report lacks %q:\n%s", want, out)
				}
			}
		})
	}
}
