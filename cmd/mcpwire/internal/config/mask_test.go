package config

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestMask: what mcpwire prints of a server shows no env or header value,
// no URL password and no query value; variables are shown unexpanded.
func TestMask(t *testing.T) {
	f := &File{Path: "F", Host: Cursor}
	servers, err := parseFile(f, []byte(`{"mcpServers": {
	  "db": {"command": "npx", "args": ["-y", "server-postgres", "postgresql://ada:hunter22@db:5432/app", "two words", "it's"], "env": {"PGPASSWORD": "hunter22", "TOKEN": "${env:TOKEN}"}, "envFile": ".env"},
	  "api": {"url": "https://api.example.com/mcp?api_key=sk-live-123&x=1", "headers": {"Authorization": "Bearer sk-live-456", "X-Team": "t"}},
	  "plain": {"url": "http://localhost:3000/mcp"}
	}}`))
	if err != nil {
		t.Fatal(err)
	}
	db, api, plain := servers[0], servers[1], servers[2]
	if want := `npx -y server-postgres 'postgresql://ada:****@db:5432/app' 'two words' 'it'\''s'`; db.Target() != want {
		t.Errorf("target %s\n  want %s", db.Target(), want)
	}
	if want := []string{"envFile .env", "PGPASSWORD=****", "TOKEN=****"}; !reflect.DeepEqual(db.Settings(), want) {
		t.Errorf("settings %q", db.Settings())
	}
	if want := "https://api.example.com/mcp?api_key=****&x=****"; api.Target() != want {
		t.Errorf("target %s", api.Target())
	}
	if want := []string{"Authorization: ****", "X-Team: ****"}; !reflect.DeepEqual(api.Settings(), want) {
		t.Errorf("settings %q", api.Settings())
	}
	if plain.Target() != "http://localhost:3000/mcp" {
		t.Errorf("target %s", plain.Target())
	}
	all := strings.Join(append(append(db.Settings(), api.Settings()...), db.Target(), api.Target()), " ")
	for _, secret := range []string{"hunter22", "sk-live-123", "sk-live-456"} {
		if strings.Contains(all, secret) {
			t.Errorf("%q is printed: %s", secret, all)
		}
	}
	// The testdata files, as mcpwire servers would print them.
	for _, f := range []*File{
		{Path: filepath.Join("testdata", "claude", "claude_desktop_config.json"), Host: ClaudeDesktop},
		{Path: filepath.Join("testdata", "cursor", ".cursor", "mcp.json"), Host: Cursor},
	} {
		for _, s := range readAll(t, f) {
			out := s.Target() + strings.Join(s.Settings(), " ")
			if strings.Contains(out, "BSA-literal-key-123") || strings.Contains(out, "Bearer") {
				t.Errorf("%s: %s", s.Name, out)
			}
		}
	}
}
