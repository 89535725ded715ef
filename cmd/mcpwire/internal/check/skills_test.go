package check

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// skillsServer serves two skills over HTTP; lie, if set, rewrites every
// skills/list result.
func skillsServer(t *testing.T, lie func(*mcp.ListSkillsResult)) string {
	t.Helper()
	var mw []jsonrpc.Middleware
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
	fsys := fstest.MapFS{
		"pdf/SKILL.md":             {Data: []byte("---\nname: pdf\ndescription: PDFs\n---\nBody.\n")},
		"pdf/templates/invoice.md": {Data: []byte("Invoice\n")},
		"acme/refunds/SKILL.md":    {Data: []byte("---\nname: refunds\ndescription: Refunds\n---\n")},
	}
	if _, err := srv.AddSkills(fsys, &server.SkillsOptions{DirectoryRead: true}); err != nil {
		t.Fatal(err)
	}
	h := streamable.NewHandler(srv, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		h.Shutdown(context.Background())
		ts.Close()
	})
	return ts.URL
}

var skillChecksIDs = []string{"skills.capability", "skills.list", "skills.get", "skills.files", "skills.directory-read"}

func TestSkillsChecksPass(t *testing.T) {
	r := runCheckJSON(t, 0, "--url", skillsServer(t, nil))
	for _, id := range skillChecksIDs {
		if st := r.statuses(id); len(st) != 2 || st[0] != Pass || st[1] != Pass {
			t.Errorf("%s: %v, want a pass in each era", id, st)
		}
	}
}

func TestSkillsChecksFail(t *testing.T) {
	for _, tc := range []struct {
		name string
		lie  func(*mcp.ListSkillsResult)
		id   string
		want string
	}{
		{"digest", func(l *mcp.ListSkillsResult) { l.Skills[1].Resources[0].Digest = mcp.SkillDigest([]byte("other")) }, "skills.files", "its digest is"},
		{"size", func(l *mcp.ListSkillsResult) { l.Skills[1].Resources[0].Size++ }, "skills.files", "bytes, the entry says"},
		{"frontmatter", func(l *mcp.ListSkillsResult) {
			l.Skills[1].Frontmatter = mcp.NewSkillFrontmatter("pdf", "Something else")
		}, "skills.files", "the frontmatter differs from the entry's in description"},
		{"name", func(l *mcp.ListSkillsResult) { l.Skills[1].Frontmatter = mcp.NewSkillFrontmatter("other", "PDFs") }, "skills.list", "is not \"pdf\""},
		{"incomplete", func(l *mcp.ListSkillsResult) { l.Skills[1].Resources = l.Skills[1].Resources[1:] }, "skills.list", "does not list its own SKILL.md"},
		{"outside", func(l *mcp.ListSkillsResult) { l.Skills[1].Resources[1].URI = "skill://pdf/../etc/passwd" }, "skills.list", `".."`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCheckJSON(t, 1, "--url", skillsServer(t, tc.lie))
			res := r.result(tc.id, Fail)
			if res == nil || !strings.Contains(res.Detail, tc.want) {
				t.Fatalf("%s: %v, want a failure saying %q (%+v)", tc.id, r.statuses(tc.id), tc.want, res)
			}
		})
	}
}
