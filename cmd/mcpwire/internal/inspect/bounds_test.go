package inspect

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/wire"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// postLong is post for an operation that moves megabytes: bounded by
// the test's deadline, not by the 10 s of quick, which a loaded machine
// running -race goes past.
func (in *inspection) postLong(t *testing.T, op, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "POST", in.Base+"/api/"+op+"?token="+in.Token, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Origin", in.Base)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	return res.StatusCode, string(b)
}

// TestSavedChecksStayReadable: the checks the page saves stay a file
// that mcpwire verify (and the next mcpwire inspect --checks) can read:
// a save that would make it larger than wire.MaxChecksFile is refused.
// (The inspector wrote a file of any size, which both then refused.)
func TestSavedChecksStayReadable(t *testing.T) {
	srv, _ := probeServer(t)
	file := filepath.Join(t.TempDir(), "checks.json")
	in := inspectServer(t, srv, "--checks", file)
	// Two saves of 9 MiB: the first makes a file of 9 MiB, the second
	// would make it 18 MiB, more than wire.MaxChecksFile (16 MiB). Two,
	// not more: each is megabytes of JSON read and written, slow under
	// -race on a loaded machine (postLong).
	big := strings.Repeat("x", 9<<20)
	var codes []int
	for i := range 2 {
		status, body := in.postLong(t, "checks/save", fmt.Sprintf(`{"name":"c%d","method":"tools/call","params":{"name":"probe"},"expect":{"result":{"content":[{"type":"text","text":%q}]}}}`, i, big))
		if status == http.StatusOK && strings.Contains(body, `"error"`) {
			t.Fatalf("save %d: %d %.200s", i, status, body)
		}
		codes = append(codes, status)
	}
	if codes[0] != http.StatusOK || codes[1] != http.StatusRequestEntityTooLarge {
		t.Errorf("the saves answered %v, want [200 413]", codes)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if cf, err := wire.ReadChecks(f); err != nil || len(cf.Checks) != 1 {
		t.Errorf("the checks file the page wrote: %v", err)
	}
}

// TestReconnectChangesBounded: what changed at a reconnection is a list
// the server's lists make as long as they like: the state keeps at most
// maxChanges of them and says how many more there are, and clips the
// values it quotes (instructions before and after). (All were kept, and
// sent with every change of the state.)
func TestReconnectChangesBounded(t *testing.T) {
	const tools = 3000
	mk := func(v string) *server.Server {
		srv := server.New(mcp.Implementation{Name: "changing", Version: "1"}, &server.Options{Instructions: strings.Repeat(v, 256<<10)})
		for i := range tools {
			if err := server.AddTool(srv, &mcp.Tool{Name: fmt.Sprintf("t%04d", i), Description: v}, func(context.Context, *server.Request, struct{}) (string, error) { return "", nil }); err != nil {
				t.Fatal(err)
			}
		}
		return srv
	}
	a, b := clitest.MemoryTarget(t, mk("a")), clitest.MemoryTarget(t, mk("b"))
	var n atomic.Int32
	in := inspect(t, func(ap *app.App) {
		ap.Connect = func(ctx context.Context, tg *app.Target, l *slog.Logger) (*app.Link, error) {
			if n.Add(1) == 1 {
				return a(ctx, tg, l)
			}
			return b(ctx, tg, l)
		}
	}, "--", "testserver")
	status, body := in.postLong(t, "reconnect", `{}`) // thousands of tools, megabytes of instructions, under -race
	if status != http.StatusOK {
		t.Fatalf("reconnect: %d %.300s", status, body)
	}
	var out struct {
		Result struct {
			Changes []struct {
				What, Before, After string
			} `json:"changes"`
			More int `json:"more"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatal(err)
	}
	c := out.Result
	if len(c.Changes) > maxChanges || len(c.Changes)+c.More != tools+1 {
		t.Errorf("%d changes kept and %d more, want at most %d kept of %d", len(c.Changes), c.More, maxChanges, tools+1)
	}
	for _, x := range c.Changes {
		if len(x.Before) > maxChangeValue+4 || len(x.After) > maxChangeValue+4 {
			t.Errorf("a change of %s quotes %d and %d bytes", x.What, len(x.Before), len(x.After))
		}
	}
	if len(body) > 256<<10 {
		t.Errorf("the reconnection's answer is %d bytes", len(body))
	}
}
