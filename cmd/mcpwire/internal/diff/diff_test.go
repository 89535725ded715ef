package diff

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/frames"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// recording makes a recording of exchanges: request, response pairs
// with their method.
func recording(t *testing.T, pairs ...string) string {
	t.Helper()
	var b []byte
	for i := 0; i < len(pairs); i += 3 {
		method, params, result := pairs[i], pairs[i+1], pairs[i+2]
		id := string(rune('1' + i/3))
		req := frames.Record{From: frames.FromClient, Method: method, Message: json.RawMessage(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + `}`)}
		res := frames.Record{From: frames.FromServer, Method: method, Message: json.RawMessage(`{"jsonrpc":"2.0","id":` + id + `,"result":` + result + `}`)}
		b = append(req.AppendJSON(b), '\n')
		b = append(res.AppendJSON(b), '\n')
	}
	file := filepath.Join(t.TempDir(), "rec.jsonl")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

const initA = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"s","version":"1"},"instructions":"Use it."}`

// TestDiffRecordings: tools added, removed, changed (description, schema;
// _meta and member order ignored), capabilities and instructions, every
// page of a list; exit 1 and --json; the same recording: exit 0.
func TestDiffRecordings(t *testing.T) {
	a := recording(t,
		"initialize", `{}`, initA,
		"tools/list", `{}`, `{"tools":[{"name":"echo","description":"Echoes","inputSchema":{"type":"object"}},{"name":"gone","inputSchema":{"type":"object"}}],"nextCursor":"2"}`,
		"tools/list", `{"cursor":"2"}`, `{"tools":[{"name":"same","inputSchema":{"type":"object","properties":{"a":{"type":"string"}}},"_meta":{"x":1}}]}`)
	b := recording(t,
		"initialize", `{}`, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"logging":{}},"serverInfo":{"name":"s","version":"2"},"instructions":"Use it well."}`,
		"tools/list", `{}`, `{"tools":[{"inputSchema":{"properties":{"a":{"type":"string"}},"type":"object"},"name":"same","_meta":{"x":2}},{"name":"echo","description":"Echoes back","inputSchema":{"type":"object","required":["text"]}},{"name":"new","inputSchema":{"type":"object"}}]}`)
	c := clitest.NewCLIEnv(t, Family())
	code, stdout, stderr := c.Run("diff", a, b)
	want := `server changed: s 1 → s 2
capabilities changed: logging
instructions changed: Use it. → Use it well.
tool "echo" changed: description, inputSchema
tool "gone" removed
tool "new" added
`
	if code != app.ExitFailure || stdout != want || stderr != "" {
		t.Errorf("exit %d, stdout:\n%s\nwant:\n%s\nstderr %q", code, stdout, want, stderr)
	}
	code, stdout, _ = c.Run("diff", "--json", a, b)
	var js struct{ Changes []Change }
	if err := json.Unmarshal([]byte(stdout), &js); err != nil || code != app.ExitFailure || len(js.Changes) != 6 || js.Changes[3].Name != "echo" {
		t.Errorf("--json: exit %d, %v, %s", code, err, stdout)
	}
	if out := c.OK("diff", a, a); out != "no changes\n" {
		t.Errorf("a recording against itself: %q", out)
	}
	if out := c.OK("diff", "--json", a, a); strings.Join(strings.Fields(out), "") != `{"changes":[]}` {
		t.Errorf("--json, no changes: %q", out)
	}
	empty := recording(t, "ping", `{}`, `{}`)
	c.Fails(app.ExitFailure, "mcpwire: "+empty+": the recording has no handshake and no list of the server (initialize, server/discover, tools/list...)", "diff", a, empty)
	c.Fails(app.ExitUsage, "mcpwire: mcpwire diff takes two recordings (usage: mcpwire diff A.jsonl B.jsonl [flags])", "diff", a)
}

// TestDiffModernRecording: a 2026-07-28 recording's server/discover and
// the server info of its _meta.
func TestDiffModernRecording(t *testing.T) {
	a := recording(t, "server/discover", `{}`, `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"m","version":"1"}}}`)
	s, err := readSnapshot(a)
	if err != nil || s.Server != "m 1" || s.Protocol != "2026-07-28" {
		t.Errorf("%v %+v", err, s)
	}
}
