package fullschema_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// TestFullEngineFetchesNothing: with the full engine linked in (its
// library's default loader reads file:// URLs), a tool's schema with a
// "$ref" or "$schema" naming a URL (a server that counts its hits) or a
// local file is refused by AddTool with an error naming it, and nothing
// is fetched. (internal/jsonschema's TestRemoteRefsAreNeverFetched counts
// the openings of a local file too, with both engines.)
func TestFullEngineFetchesNothing(t *testing.T) {
	var hits atomic.Int32
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte(`{"type":"object"}`))
	}))
	defer web.Close()
	dir := t.TempDir()
	file := filepath.Join(dir, "args.json")
	if err := os.WriteFile(file, []byte(`{"type":"object"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := server.New(mcp.Implementation{Name: "test", Version: "1.0.0"}, nil)
	defer s.Close()
	noop := func(ctx context.Context, r *server.Request, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}
	for _, tc := range []struct{ schema, target string }{
		{`{"type":"object","$ref":"` + web.URL + `/args.json"}`, `reference to "` + web.URL + `/args.json"`},
		{`{"type":"object","properties":{"a":{"$ref":"file://` + file + `"}}}`, `reference to "file://` + file + `"`},
		{`{"type":"object","$id":"file://` + dir + `/","properties":{"a":{"$ref":"args.json"}}}`, `reference to "file://` + file + `"`},
		{`{"type":"object","unevaluatedProperties":{"$ref":"` + web.URL + `/u.json"}}`, `reference to "` + web.URL + `/u.json"`},
		{`{"type":"object","items":{"$dynamicRef":"file://` + file + `#a"}}`, `reference to "file://` + file + `"`},
		{`{"$schema":"` + web.URL + `/meta","type":"object"}`, web.URL + "/meta"},
		{`{"$schema":"file://` + file + `","type":"object"}`, "file://" + file},
	} {
		err := s.AddTool(&mcp.Tool{Name: "t", InputSchema: json.RawMessage(tc.schema)}, noop)
		if err == nil || !strings.Contains(err.Error(), tc.target) {
			t.Errorf("AddTool(%s) error = %v, want one naming %s", tc.schema, err, tc.target)
		}
		if strings.HasPrefix(tc.target, "reference") && !errors.Is(err, server.ErrRemoteSchemaRef) {
			t.Errorf("AddTool(%s) error = %v, want it to wrap ErrRemoteSchemaRef", tc.schema, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("a schema's reference was fetched %d times", n)
	}
}
