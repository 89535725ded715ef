package server_test

import (
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

// TestAddToolRefusesRemoteSchemaRefs: a tool's schemas, as a user gives
// them, may not refer to another document: AddTool refuses an input or
// output schema with a "$ref" to a URL (a server that counts its hits) or
// to a local file, with an error wrapping ErrRemoteSchemaRef that names
// the reference, and fetches nothing. (server/fullschema has the same
// test with the full engine linked in.)
func TestAddToolRefusesRemoteSchemaRefs(t *testing.T) {
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
	for _, tc := range []struct{ schema, target string }{
		{`{"type":"object","$ref":"` + web.URL + `/args.json"}`, web.URL + "/args.json"},
		{`{"type":"object","properties":{"a":{"$ref":"file://` + file + `"}}}`, "file://" + file},
		{`{"type":"object","$id":"file://` + dir + `/","properties":{"a":{"$ref":"args.json"}}}`, "file://" + file},
		{`{"type":"object","$id":"` + web.URL + `/s/","properties":{"a":{"$ref":"args.json#/x"}}}`, web.URL + "/s/args.json"},
	} {
		for _, which := range []string{"input", "output"} {
			tool := &mcp.Tool{Name: "t"}
			if which == "input" {
				tool.InputSchema = json.RawMessage(tc.schema)
			} else {
				tool.OutputSchema = json.RawMessage(tc.schema)
			}
			err := s.AddTool(tool, noop)
			if !errors.Is(err, server.ErrRemoteSchemaRef) || !strings.Contains(err.Error(), which+` schema: jsonschema: reference to "`+tc.target+`"`) {
				t.Errorf("%s schema %s: AddTool error = %v, want one naming %q wrapping ErrRemoteSchemaRef", which, tc.schema, err, tc.target)
			}
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("a schema's $ref was fetched %d times", n)
	}
}
