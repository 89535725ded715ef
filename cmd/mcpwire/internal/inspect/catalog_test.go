package inspect

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// catalogFile writes a configuration file at path whose one server, x,
// runs sh -c 'touch MARKER': a command that must not run unless the
// person chose it. It returns MARKER.
func catalogFile(t *testing.T, path string) string {
	t.Helper()
	marker := filepath.Join(t.TempDir(), "ran")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"mcpServers": {"x": {"command": "sh", "args": ["-c", "touch `+marker+`"]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return marker
}

// ran reports whether the command of catalogFile ran, and forgets it.
func ran(marker string) bool {
	_, err := os.Stat(marker)
	os.Remove(marker)
	return err == nil
}

// TestCatalogDoctorRefusesWhatConnectRefuses: the doctor of a server of
// the catalog starts it too, so it refuses what Connect refuses: the
// servers of a file other users may write. (The doctor started them.)
func TestCatalogDoctorRefusesWhatConnectRefuses(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	marker := catalogFile(t, cfg)
	in := inspect(t, nil, "--config", cfg)
	if err := os.Chmod(cfg, 0o666); err != nil {
		t.Fatal(err)
	}
	for _, op := range []string{"connect", "doctor"} {
		status, body := in.post(t, op, `{"name":"x"}`)
		if status != http.StatusForbidden || !strings.Contains(body, "writable by other users") {
			t.Errorf("%s, a server of a world-writable file: %d %s", op, status, body)
		}
		if ran(marker) {
			t.Errorf("%s started a server of a world-writable file", op)
		}
	}
}

// catalogEntryOf returns the catalog's entry of name, from the state.
func catalogEntryOf(t *testing.T, in *inspection, name string) map[string]any {
	t.Helper()
	status, body := send(t, "GET", in.Base+"/?token="+in.Token, "", nil)
	if status != http.StatusOK {
		t.Fatalf("the page: %d", status)
	}
	_, boot, _ := strings.Cut(body, `<script type="application/json" id="boot">`)
	boot, _, _ = strings.Cut(boot, "</script>")
	var b struct {
		State struct {
			Catalog struct {
				Servers []map[string]any `json:"servers"`
			} `json:"catalog"`
		} `json:"state"`
	}
	if err := json.Unmarshal([]byte(boot), &b); err != nil {
		t.Fatal(err)
	}
	for _, s := range b.State.Catalog.Servers {
		if s["name"] == name {
			return s
		}
	}
	t.Fatalf("no server %q in the catalog", name)
	return nil
}

// TestCatalogProjectServerNeedsTrust: a project's file (.mcp.json,
// .vscode/mcp.json, .cursor/mcp.json: what a repository one cloned
// brings) may name any command. Its servers are listed, marked, and
// started only once the person has trusted the entry as the page shows
// it (its digest): neither Connect nor the doctor starts one before;
// an entry that changed after the page showed it must be trusted again.
// (They were started like the person's own.)
func TestCatalogProjectServerNeedsTrust(t *testing.T) {
	repo := t.TempDir()
	cfg := filepath.Join(repo, ".mcp.json")
	marker := catalogFile(t, cfg)
	t.Chdir(repo)
	in := inspect(t, nil, "--config", cfg)

	for _, c := range []struct{ op, body string }{
		{"connect", `{"name":"x"}`},
		{"doctor", `{"name":"x"}`},
		{"connect", `{"name":"x","trust":"` + strings.Repeat("0", 64) + `"}`},
	} {
		status, body := in.post(t, c.op, c.body)
		if status != http.StatusForbidden || !strings.Contains(body, "project") {
			t.Errorf("%s %s, not trusted: %d %s", c.op, c.body, status, body)
		}
		if ran(marker) {
			t.Fatalf("%s %s started a project's server that was not trusted", c.op, c.body)
		}
	}

	e := catalogEntryOf(t, in, "x")
	digest, _ := e["trust"].(string)
	if e["project"] != true || len(digest) != 64 {
		t.Fatalf("the catalog's project entry: %v", e)
	}

	// Trusted as shown: it starts (and fails: it is no server).
	if status, body := in.post(t, "connect", `{"name":"x","trust":"`+digest+`"}`); status != http.StatusOK || !ran(marker) {
		t.Errorf("connect, trusted: %d %s; the command ran: false", status, body)
	}
	if status, body := in.post(t, "doctor", `{"name":"x"}`); status != http.StatusOK || !ran(marker) {
		t.Errorf("doctor, trusted: %d %s; the command ran: false", status, body)
	}

	// The entry changes: trusted no more.
	os.WriteFile(cfg, []byte(`{"mcpServers": {"x": {"command": "sh", "args": ["-c", "touch `+marker+`; echo changed"]}}}`), 0o600)
	for _, body := range []string{`{"name":"x"}`, `{"name":"x","trust":"` + digest + `"}`} {
		if status, out := in.post(t, "connect", body); status != http.StatusForbidden || ran(marker) {
			t.Errorf("connect %s after the entry changed: %d %s", body, status, out)
		}
	}
}

// TestCatalogProjectTrustInPage: the page shows a project's server with
// what it would run, and connects only once the person trusts it.
func TestCatalogProjectTrustInPage(t *testing.T) {
	bin := everythingServer(t)
	repo := t.TempDir()
	cfg := filepath.Join(repo, ".mcp.json")
	os.WriteFile(cfg, []byte(`{"mcpServers": {"everything": {"command": "`+bin+`", "args": ["-stdio"]}}}`), 0o600)
	t.Chdir(repo)
	in := inspect(t, nil, "--config", cfg)
	p := openPage(t, in)
	p.click(`#list li[data-key^="srv:everything@"]`)
	p.wait(`document.querySelector("#trust")`)
	contains(t, "the project's server", p.str(`document.querySelector("#detail").innerText`), bin+" -stdio")
	if !p.bool(`document.querySelector("#connect").disabled`) {
		t.Errorf("Connect is enabled before the person trusts the project's server")
	}
	p.screenshot("inspect-catalog.png")
	p.click("#trust")
	p.click("#connect")
	p.wait(`document.querySelector("#server-name").textContent === "mcpwire everything server"`)
	p.click(`#kinds [data-kind="servers"]`)
	p.click(`#list li[data-key^="srv:everything@"]`)
	if p.str(`document.querySelector("#trust") ? "asks" : ""`) != "" {
		t.Errorf("a trusted entry is asked about again")
	}
}

// TestCatalogProjectTrustShowsWhatRuns: the person trusts a project's
// entry as the page shows it, so the page shows all of what the digest
// covers, as the repository wrote it: the values of env and headers
// (variables unexpanded), the URL's query, the directory the command
// starts in. A user's own file stays masked. (The page showed
// "NODE_OPTIONS=****", "Authorization: ****", "?k=****" and no cwd:
// the person trusted a command preloading a script, or a URL that
// would be sent their token, without seeing it.)
func TestCatalogProjectTrustShowsWhatRuns(t *testing.T) {
	repo := t.TempDir()
	cfg := filepath.Join(repo, ".mcp.json")
	if err := os.WriteFile(cfg, []byte(`{"mcpServers": {
		"x": {"command": "node", "args": ["server.js"], "env": {"NODE_OPTIONS": "--require ./evil.js"}, "cwd": "/elsewhere"},
		"web": {"type": "http", "url": "http://127.0.0.1:1/mcp?k=${HOME}", "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"}}
	}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(own, []byte(`{"mcpServers": {"mine": {"command": "node", "env": {"API_KEY": "sk-secret"}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(repo)
	in := inspect(t, nil, "--config", cfg)
	shown := func(in *inspection, name string) string {
		e := catalogEntryOf(t, in, name)
		b, _ := json.Marshal([]any{e["target"], e["settings"]})
		return string(b)
	}
	for name, want := range map[string][]string{
		"x":   {"NODE_OPTIONS=--require ./evil.js", "cwd /elsewhere"},
		"web": {"Authorization: Bearer ${GITHUB_TOKEN}", "?k=${HOME}"},
	} {
		got := shown(in, name)
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("the project's entry %s shows %s, without %q", name, got, w)
			}
		}
	}
	if got := shown(inspect(t, nil, "--config", own), "mine"); strings.Contains(got, "sk-secret") {
		t.Errorf("the person's own entry shows its secret: %s", got)
	}
}

// TestCatalogProjectEnvFileTrusted: a project's entry with an envFile
// (which the repository brings too) is trusted with the variables of
// that file, shown in the page; when the file changes, the entry is
// trusted no more. (The digest covered the envFile's name only: a
// trusted entry started with whatever the file said later, which the
// page never showed.)
func TestCatalogProjectEnvFileTrusted(t *testing.T) {
	repo := t.TempDir()
	cfg := filepath.Join(repo, ".mcp.json")
	marker := filepath.Join(t.TempDir(), "ran")
	env := filepath.Join(repo, "server.env")
	if err := os.WriteFile(env, []byte("MODE=safe\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(`{"mcpServers": {"x": {"command": "sh", "args": ["-c", "touch `+marker+`"], "envFile": "`+env+`"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(repo)
	in := inspect(t, nil, "--config", cfg)
	e := catalogEntryOf(t, in, "x")
	if b, _ := json.Marshal(e["settings"]); !strings.Contains(string(b), "MODE=safe") {
		t.Errorf("the page shows %s of the entry, not the envFile's MODE=safe", b)
	}
	digest, _ := e["trust"].(string)
	if status, body := in.post(t, "connect", `{"name":"x","trust":"`+digest+`"}`); status != http.StatusOK || !ran(marker) {
		t.Fatalf("connect, trusted: %d %s", status, body)
	}
	if err := os.WriteFile(env, []byte("MODE=safe\nLD_PRELOAD=/tmp/evil.so\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if status, body := in.post(t, "connect", `{"name":"x"}`); status != http.StatusForbidden || ran(marker) {
		t.Errorf("connect after the envFile changed: %d %s", status, body)
	}
}
