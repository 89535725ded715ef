package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcptest"
	"github.com/mcpwire/mcpwire/server"
)

const formsSkill = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSkill body.\n"

func skillsFS() fstest.MapFS {
	return fstest.MapFS{
		"pdf-processing/SKILL.md":            {Data: []byte(formsSkill)},
		"pdf-processing/references/FORMS.md": {Data: []byte("Supporting content.\n")},
		"pdf-processing/references/a b.md":   {Data: []byte("spaced\n")},
	}
}

// readCounter counts the resources/read requests a server answers, by
// URI.
type readCounter struct {
	mu    sync.Mutex
	reads []string
}

func (c *readCounter) middleware(next jsonrpc.Handler) jsonrpc.Handler {
	return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.Method == mcp.MethodReadResource {
			var p mcp.ReadResourceParams
			json.Unmarshal(req.Params, &p)
			c.mu.Lock()
			c.reads = append(c.reads, p.URI)
			c.mu.Unlock()
		}
		return next.Handle(ctx, req)
	})
}

func (c *readCounter) list() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.reads...)
}

// skillsServer serves fsys, counting reads; lie, if set, rewrites each
// skills/list result before it is sent.
func skillsServer(t *testing.T, fsys fstest.MapFS, lie func(*mcp.ListSkillsResult)) (*server.Server, *readCounter) {
	t.Helper()
	rc := &readCounter{}
	mw := []jsonrpc.Middleware{rc.middleware}
	if lie != nil {
		mw = append(mw, func(next jsonrpc.Handler) jsonrpc.Handler {
			return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
				res, err := next.Handle(ctx, req)
				if l, ok := res.(*mcp.ListSkillsResult); ok {
					lie(l)
				}
				return res, err
			})
		})
	}
	srv := server.New(mcp.Implementation{Name: "skills", Version: "1"}, &server.Options{Middleware: mw})
	t.Cleanup(func() { srv.Close() })
	if _, err := srv.AddSkills(fsys, &server.SkillsOptions{DirectoryRead: true}); err != nil {
		t.Fatal(err)
	}
	return srv, rc
}

func firstSkill(t *testing.T, sess *client.Session) *mcp.Skill {
	t.Helper()
	for sk, err := range sess.Skills(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		return sk
	}
	t.Fatal("no skill listed")
	return nil
}

func TestLoadSkillReadsOnlyWhenAsked(t *testing.T) {
	srv, rc := skillsServer(t, skillsFS(), nil)
	mcptest.Eras(t, func(t *testing.T, v mcp.Version) {
		ctx := context.Background()
		rc.mu.Lock()
		rc.reads = nil
		rc.mu.Unlock()
		sess := mcptest.Connect(t, srv, &mcptest.Options{Version: v})
		entry := firstSkill(t, sess)
		if _, err := sess.GetSkill(ctx, entry.URI); err != nil {
			t.Fatal(err)
		}
		if r := rc.list(); len(r) != 0 {
			t.Fatalf("listing and getting read %v", r)
		}
		l, err := sess.LoadSkill(ctx, entry, nil)
		if err != nil {
			t.Fatal(err)
		}
		if string(l.Content) != formsSkill {
			t.Errorf("SKILL.md: %q", l.Content)
		}
		if r := rc.list(); len(r) != 1 || r[0] != entry.URI {
			t.Fatalf("loading read %v, want SKILL.md alone", r)
		}
		data, err := l.ReadFile(ctx, "references/FORMS.md")
		if err != nil || string(data) != "Supporting content.\n" {
			t.Fatalf("ReadFile: %q, %v", data, err)
		}
		if data, err := l.ReadFile(ctx, "./references/a b.md"); err != nil || string(data) != "spaced\n" {
			t.Fatalf("ReadFile of an escaped name: %q, %v", data, err)
		}
		if _, err := l.ReadFile(ctx, "skill://pdf-processing/references/FORMS.md"); err != nil {
			t.Fatalf("ReadFile by URI: %v", err)
		}
		// Files the held entry does not list are not even asked for.
		before := len(rc.list())
		for _, name := range []string{"secret.md", "skill://pdf-processing/secret.md", "skill://other/SKILL.md"} {
			_, err := l.ReadFile(ctx, name)
			var ve *client.SkillVerificationError
			if !errors.As(err, &ve) || ve.What != "unlisted" || !errors.Is(err, client.ErrSkillVerification) {
				t.Errorf("ReadFile(%q): %v, want an unlisted verification error", name, err)
			}
		}
		for _, name := range []string{"../other/SKILL.md", "references/../../x", "/../x"} {
			if _, err := l.ReadFile(ctx, name); err == nil {
				t.Errorf("ReadFile(%q) escaped the skill", name)
			}
		}
		if n := len(rc.list()); n != before {
			t.Errorf("%d reads of unlisted files were sent", n-before)
		}
	})
}

func TestLoadSkillVerifies(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		change func(fstest.MapFS)
		lie    func(*mcp.ListSkillsResult)
		what   string
		detail string
	}{
		{"digest", func(f fstest.MapFS) {
			f["pdf-processing/SKILL.md"] = &fstest.MapFile{Data: []byte(strings.Replace(formsSkill, "Skill body.", "Evil body!!", 1))}
		}, nil, "digest", "the entry says sha256:"},
		{"size", func(f fstest.MapFS) {
			f["pdf-processing/SKILL.md"] = &fstest.MapFile{Data: []byte(formsSkill + "extra bytes\n")}
		}, nil, "size", "109 bytes, the entry says 97"},
		{"frontmatter", nil, func(r *mcp.ListSkillsResult) {
			r.Skills[0].Frontmatter = mcp.NewSkillFrontmatter("pdf-processing", "Something else")
		}, "frontmatter", `the field "description" is "Extract, fill, and assemble PDF documents" in the file and "Something else" in the entry`},
		{"extra field", nil, func(r *mcp.ListSkillsResult) {
			r.Skills[0].Frontmatter["license"] = json.RawMessage(`"MIT"`)
		}, "frontmatter", `the field "license" is absent in the file and "MIT" in the entry`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := skillsFS()
			srv, rc := skillsServer(t, fsys, tc.lie)
			sess := mcptest.Connect(t, srv, nil)
			entry := firstSkill(t, sess)
			if tc.change != nil {
				tc.change(fsys)
			}
			_, err := sess.LoadSkill(ctx, entry, nil)
			var ve *client.SkillVerificationError
			if !errors.As(err, &ve) || ve.What != tc.what || ve.File != entry.URI || !strings.Contains(err.Error(), tc.detail) {
				t.Fatalf("LoadSkill: %v, want a %s mismatch of %s saying %q", err, tc.what, entry.URI, tc.detail)
			}
			if r := rc.list(); len(r) != 1 {
				t.Errorf("reads %v: loading a skill that fails must read nothing else", r)
			}
			// A fresh entry loads.
			if tc.lie == nil {
				fresh, err := sess.GetSkill(ctx, entry.URI)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := sess.LoadSkill(ctx, fresh, nil); err != nil {
					t.Errorf("LoadSkill of the refreshed entry: %v", err)
				}
			}
		})
	}
}

func TestLoadSkillRefusesInvalidEntries(t *testing.T) {
	srv, rc := skillsServer(t, skillsFS(), nil)
	sess := mcptest.Connect(t, srv, nil)
	entry := firstSkill(t, sess)
	bad := *entry
	bad.Resources = append([]mcp.SkillResource{}, entry.Resources...)
	bad.Resources[1].URI = "skill://pdf-processing/../../etc/passwd"
	if _, err := sess.LoadSkill(context.Background(), &bad, nil); err == nil || !strings.Contains(err.Error(), `".."`) {
		t.Errorf("LoadSkill of an entry listing ..: %v", err)
	}
	dyn := *entry
	dyn.Resources, dyn.Dynamic = nil, true
	if _, err := sess.LoadSkill(context.Background(), &dyn, nil); !errors.Is(err, client.ErrDynamicSkill) {
		t.Errorf("LoadSkill of a dynamic skill: %v", err)
	}
	l, err := sess.LoadSkill(context.Background(), &dyn, &client.LoadSkillOptions{AllowDynamic: true})
	if err != nil {
		t.Fatal(err)
	}
	if data, err := l.ReadFile(context.Background(), "references/FORMS.md"); err != nil || len(data) == 0 {
		t.Errorf("ReadFile of a dynamic skill: %v", err)
	}
	if n := len(rc.list()); n != 2 {
		t.Errorf("%d reads", n)
	}
}

func TestSkillsNeedTheExtension(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "plain", Version: "1"}, nil)
	defer srv.Close()
	sess := mcptest.Connect(t, srv, nil)
	ctx := context.Background()
	if _, err := sess.ListSkills(ctx, nil); !errors.Is(err, client.ErrNoSkills) {
		t.Errorf("ListSkills: %v", err)
	}
	if _, err := sess.GetSkill(ctx, "skill://a/SKILL.md"); !errors.Is(err, client.ErrNoSkills) {
		t.Errorf("GetSkill: %v", err)
	}
	if _, err := sess.ReadDirectory(ctx, &mcp.ReadDirectoryParams{URI: "skill://a"}); !errors.Is(err, client.ErrNoSkills) {
		t.Errorf("ReadDirectory: %v", err)
	}
}
