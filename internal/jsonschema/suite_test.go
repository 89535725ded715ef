package jsonschema

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestOfficialSuite runs the JSON-Schema-Test-Suite
// (github.com/json-schema-org/JSON-Schema-Test-Suite) when
// JSON_SCHEMA_TEST_SUITE names its "tests" directory (the one holding
// draft2020-12 and draft7). The suite is not vendored here. Remote
// references are refused by design, so refRemote.json is skipped and
// tests that need remotes fail to compile, which is reported, not failed.
// It runs twice: with the full engine, and without it, where schemas that
// need it fail to compile with ErrNeedsFullEngine (also reported).
func TestOfficialSuite(t *testing.T) {
	dir := os.Getenv("JSON_SCHEMA_TEST_SUITE")
	if dir == "" {
		t.Skip("JSON_SCHEMA_TEST_SUITE not set")
	}
	bothWays(t, func(t *testing.T) { runOfficialSuite(t, dir) })
}

func runOfficialSuite(t *testing.T, dir string) {
	for _, draft := range []string{"draft2020-12", "draft7"} {
		files, _ := filepath.Glob(filepath.Join(dir, draft, "*.json"))
		var total, pass, uncompiled, fast, full int
		for _, f := range files {
			if filepath.Base(f) == "refRemote.json" {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var groups []struct {
				Description string          `json:"description"`
				Schema      json.RawMessage `json:"schema"`
				Tests       []struct {
					Description string          `json:"description"`
					Data        json.RawMessage `json:"data"`
					Valid       bool            `json:"valid"`
				} `json:"tests"`
			}
			if err := json.Unmarshal(data, &groups); err != nil {
				t.Fatal(f, err)
			}
			for _, g := range groups {
				schema := g.Schema
				if draft == "draft7" {
					schema = withDialect(schema, draft7URI)
				}
				s, err := Compile(schema, nil)
				if err != nil {
					uncompiled += len(g.Tests)
					total += len(g.Tests)
					if !errors.Is(err, ErrRemoteRef) && !errors.Is(err, ErrNeedsFullEngine) {
						t.Errorf("%s/%s: %s: compile: %v", draft, filepath.Base(f), g.Description, err)
						continue
					}
					t.Logf("%s/%s: %s: compile: %v", draft, filepath.Base(f), g.Description, err)
					continue
				}
				if s.fast != nil {
					fast += len(g.Tests)
				} else {
					full += len(g.Tests)
				}
				for _, tc := range g.Tests {
					total++
					err := s.Validate(tc.Data)
					if (err == nil) == tc.Valid {
						pass++
						continue
					}
					t.Errorf("%s/%s: %s / %s: want valid=%v, got %v", draft, filepath.Base(f), g.Description, tc.Description, tc.Valid, err)
				}
			}
		}
		t.Logf("%s: %d/%d pass, %d not compiled; by the fast engine %d, by the full engine %d", draft, pass, total, uncompiled, fast, full)
	}
}

// withDialect sets $schema on an object schema that has none.
func withDialect(schema json.RawMessage, uri string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(schema, &m) != nil || m == nil {
		return schema
	}
	if _, ok := m["$schema"]; !ok {
		m["$schema"], _ = json.Marshal(uri)
	}
	out, _ := json.Marshal(m)
	return out
}
