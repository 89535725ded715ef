package filesystem

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
)

// rootsClient answers roots/list with the directories it is given, which
// the test can change.
type rootsClient struct {
	mu    sync.Mutex
	dirs  []string
	asked int
}

func (r *rootsClient) set(dirs ...string) {
	r.mu.Lock()
	r.dirs = dirs
	r.mu.Unlock()
}

func (r *rootsClient) options() *client.Options {
	return &client.Options{Roots: func(ctx context.Context) (*mcp.ListRootsResult, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.asked++
		var res mcp.ListRootsResult
		for _, d := range r.dirs {
			res.Roots = append(res.Roots, mcp.Root{URI: (&url.URL{Scheme: "file", Path: d}).String(), Name: filepath.Base(d)})
		}
		return &res, nil
	}}
}

func threeDirs(t *testing.T) (da, db, dc string) {
	base := t.TempDir()
	da, db, dc = filepath.Join(base, "a"), filepath.Join(base, "b"), filepath.Join(base, "c dir")
	for _, d := range []string{da, db, dc} {
		os.Mkdir(d, 0o755)
		os.WriteFile(filepath.Join(d, "which.txt"), []byte(filepath.Base(d)), 0o644)
	}
	return da, db, dc
}

func allowedText(dirs ...string) string { return "Allowed directories:\n" + strings.Join(dirs, "\n") }

// TestRootsReplace: a client's roots replace the configured directories
// from its first call on, and again after it says they changed; the
// official server does the same (asynchronously: the test waits for it).
func TestRootsReplace(t *testing.T) {
	da, db, dc := threeDirs(t)
	for _, official := range []bool{false, true} {
		name := "ours"
		if official {
			name = "official"
		}
		t.Run(name, func(t *testing.T) {
			rc := &rootsClient{}
			rc.set(db)
			var cs *client.Session
			if official {
				cs = startOfficial(t, []string{da}, rc.options())
			} else {
				cs = startOurs(t, []string{da}, nil, "2025-11-25", rc.options())
			}
			// Ours answers with the roots at once; the official server may
			// still be asking, so wait for it (da deadline only da failure
			// reaches).
			await := func(want string) callResult {
				t.Helper()
				deadline := time.Now().Add(30 * time.Second)
				for {
					r := callTool(t, cs, "", "list_allowed_directories", a())
					if r.Text == want || !official || time.Now().After(deadline) {
						if r.Text != want {
							t.Fatalf("list_allowed_directories = %q, want %q", r.Text, want)
						}
						return r
					}
					time.Sleep(10 * time.Millisecond)
				}
			}
			await(allowedText(db))
			if r := callTool(t, cs, "", "read_text_file", a("path", "which.txt")); r.Text != "b" {
				t.Errorf("read which.txt = %q, want b's", r.Text)
			}
			if r := callTool(t, cs, "", "read_text_file", a("path", filepath.Join(da, "which.txt"))); !r.IsError {
				t.Errorf("the configured directory is still allowed: %q", r.Text)
			}
			rc.set(dc, filepath.Join(da, "missing"), filepath.Join(da, "which.txt"))
			if err := cs.NotifyRootsChanged(t.Context()); err != nil {
				t.Fatal(err)
			}
			await(allowedText(dc))
			// Roots that name no usable directory, once roots are in force,
			// withdraw access (2.3.0): nothing is allowed until they do.
			rc.set(filepath.Join(da, "missing"))
			cs.NotifyRootsChanged(t.Context())
			await("Allowed directories:\n")
			if r := callTool(t, cs, "", "read_text_file", a("path", filepath.Join(dc, "which.txt"))); !r.IsError || !strings.HasPrefix(r.Text, "Access denied - no allowed directories") {
				t.Errorf("read after the roots were withdrawn: %+v", r)
			}
			if official {
				return
			}
			rc.mu.Lock()
			defer rc.mu.Unlock()
			if rc.asked != 3 {
				t.Errorf("roots asked %d times, want 3 (first call, two changes)", rc.asked)
			}
		})
	}
}

func TestRootsPolicies(t *testing.T) {
	da, db, _ := threeDirs(t)
	inner := filepath.Join(da, "inner")
	os.Mkdir(inner, 0o755)
	rc := &rootsClient{}
	rc.set(db, inner)
	cs := startOurs(t, []string{da}, &Options{Roots: RootsWithin}, "2025-11-25", rc.options())
	if r := callTool(t, cs, "", "list_allowed_directories", a()); r.Text != allowedText(inner) {
		t.Errorf("RootsWithin: %q, want only the root inside %s", r.Text, da)
	}
	cs = startOurs(t, []string{da}, &Options{Roots: RootsIgnore}, "2025-11-25", rc.options())
	if r := callTool(t, cs, "", "list_allowed_directories", a()); r.Text != allowedText(da) {
		t.Errorf("RootsIgnore: %q", r.Text)
	}
}

// TestModernRoots: in the stateless era roots are asked per call only
// with ModernRoots.
func TestModernRoots(t *testing.T) {
	da, db, _ := threeDirs(t)
	rc := &rootsClient{}
	rc.set(db)
	cs := startOurs(t, []string{da}, nil, "2026-07-28", rc.options())
	if r := callTool(t, cs, "", "list_allowed_directories", a()); r.Text != allowedText(da) {
		t.Errorf("without ModernRoots: %q", r.Text)
	}
	cs = startOurs(t, []string{da}, &Options{ModernRoots: true}, "2026-07-28", rc.options())
	for range 2 {
		if r := callTool(t, cs, "", "list_allowed_directories", a()); r.Text != allowedText(db) {
			t.Errorf("with ModernRoots: %q", r.Text)
		}
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.asked != 2 {
		t.Errorf("roots asked %d times, want once per call", rc.asked)
	}
}

func TestRootPath(t *testing.T) {
	for uri, want := range map[string]string{
		"file:///home/me/a%20b": "/home/me/a b",
		"file://localhost/x":    "/x",
		"/plain/path":           "/plain/path",
	} {
		if got, err := rootPath(uri); err != nil || got != want {
			t.Errorf("rootPath(%q) = %q, %v; want %q", uri, got, err, want)
		}
	}
	for _, uri := range []string{"file://host/x", "file:///a%2Fb"} {
		if _, err := rootPath(uri); err == nil {
			t.Errorf("rootPath(%q) accepted", uri)
		}
	}
}
