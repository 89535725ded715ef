package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcptest"
	"github.com/mcpwire/mcpwire/server"
)

const pdfSkill = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  version: \"2.1.0\"\n---\n\nRead references/FORMS.md, then pick a template from templates/.\n"

// skillsFS is a tree of skills: two valid ones (one under a prefix
// directory), with subdirectories, a binary file and hidden files.
func skillsFS() fstest.MapFS {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s), Mode: 0o644} }
	return fstest.MapFS{
		"pdf-processing/SKILL.md":                 file(pdfSkill),
		"pdf-processing/references/FORMS.md":      file("# Forms\n"),
		"pdf-processing/templates/invoice.md":     file("Invoice {{n}}\n"),
		"pdf-processing/templates/regional/eu.md": file("EU invoice\n"),
		"pdf-processing/logo.bin":                 file("\x00\x01\x02\xff"),
		"pdf-processing/.env":                     file("SECRET=1\n"),
		"pdf-processing/.git/config":              file("[core]\n"),
		"acme/billing/refunds/SKILL.md":           file("---\nname: refunds\ndescription: Process refunds per policy\n---\nSee examples/email.md.\n"),
		"acme/billing/refunds/examples/email.md":  file("Dear customer,\n"),
		"acme/README.md":                          file("not a skill's file\n"),
		"notes.txt":                               file("not a skill's file\n"),
	}
}

func newSkillsServer(t *testing.T, fsys fstest.MapFS, opts *server.SkillsOptions) (*server.Server, *server.SkillSet) {
	t.Helper()
	srv := server.New(mcp.Implementation{Name: "skills", Version: "1.0.0"}, nil)
	t.Cleanup(func() { srv.Close() })
	set, err := srv.AddSkills(fsys, opts)
	if err != nil {
		t.Fatalf("AddSkills: %v", err)
	}
	return srv, set
}

// listAll lists every skill.
func listAll(t *testing.T, sess *client.Session) []mcp.Skill {
	t.Helper()
	var out []mcp.Skill
	for sk, err := range sess.Skills(context.Background()) {
		if err != nil {
			t.Fatalf("skills/list: %v", err)
		}
		out = append(out, *sk)
	}
	return out
}

func codeOf(err error) jsonrpc.Code {
	var e *jsonrpc.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

func TestSkillsServedInBothEras(t *testing.T) {
	srv, _ := newSkillsServer(t, skillsFS(), &server.SkillsOptions{DirectoryRead: true})
	mcptest.Eras(t, func(t *testing.T, v mcp.Version) {
		ctx := context.Background()
		sess := mcptest.Connect(t, srv, &mcptest.Options{Version: v})
		caps := sess.ServerCapabilities()
		if c, ok := caps.Skills(); !ok || !c.DirectoryRead || caps.Resources == nil {
			t.Fatalf("capabilities: %+v", caps)
		}
		skills := listAll(t, sess)
		if len(skills) != 2 || skills[0].URI != "skill://acme/billing/refunds/SKILL.md" || skills[1].URI != "skill://pdf-processing/SKILL.md" {
			t.Fatalf("skills/list: %+v", skills)
		}
		pdf := skills[1]
		if err := pdf.Validate(); err != nil {
			t.Fatalf("the entry does not validate: %v", err)
		}
		var uris []string
		for _, r := range pdf.Resources {
			uris = append(uris, strings.TrimPrefix(r.URI, "skill://pdf-processing/"))
		}
		if got := strings.Join(uris, " "); got != "SKILL.md logo.bin references/FORMS.md templates/invoice.md templates/regional/eu.md" {
			t.Errorf("the manifest lists %s (hidden files must be left out)", got)
		}
		if pdf.Frontmatter.Name() != "pdf-processing" || string(pdf.Frontmatter["metadata"]) != `{"version":"2.1.0"}` {
			t.Errorf("frontmatter %v", pdf.Frontmatter)
		}
		// Every file reads back with the listed digest and size.
		for _, r := range pdf.Resources {
			res, err := sess.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.URI})
			if err != nil {
				t.Fatalf("resources/read %s: %v", r.URI, err)
			}
			data, _ := res.Contents[0].Bytes()
			if mcp.SkillDigest(data) != r.Digest || int64(len(data)) != r.Size {
				t.Errorf("%s reads back as %q", r.URI, data)
			}
		}
		res, _ := sess.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://pdf-processing/logo.bin"})
		if !res.Contents[0].IsBlob() {
			t.Error("a binary file is sent as text")
		}
		res, _ = sess.ReadResource(ctx, &mcp.ReadResourceParams{URI: pdf.URI})
		if res.Contents[0].MimeType != "text/markdown" || res.Contents[0].Text != pdfSkill {
			t.Errorf("SKILL.md: %+v", res.Contents[0])
		}
		// Files the manifest does not list are not served.
		for _, uri := range []string{"skill://pdf-processing/.env", "skill://pdf-processing/.git/config", "skill://acme/README.md",
			"skill://notes.txt", "skill://pdf-processing/../notes.txt", "skill://pdf-processing/references/../SKILL.md"} {
			if _, err := sess.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); !mcp.IsResourceNotFound(err) {
				t.Errorf("resources/read %s: %v, want not found", uri, err)
			}
		}
		// skills/get answers for served skills, -32602 for others.
		got, err := sess.GetSkill(ctx, pdf.URI)
		if err != nil || got.URI != pdf.URI || len(got.Resources) != len(pdf.Resources) {
			t.Fatalf("skills/get: %+v, %v", got, err)
		}
		for _, uri := range []string{"skill://nope/SKILL.md", "skill://pdf-processing", "skill://pdf-processing/references/FORMS.md"} {
			if _, err := sess.GetSkill(ctx, uri); codeOf(err) != jsonrpc.CodeInvalidParams {
				t.Errorf("skills/get %s: %v, want -32602", uri, err)
			}
		}
		// SKILL.md files are listed resources, named by their frontmatter.
		var listed []mcp.Resource
		for r, err := range sess.Resources(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			listed = append(listed, *r)
		}
		if len(listed) != 2 || listed[1].URI != pdf.URI || listed[1].Name != "pdf-processing" || listed[1].Description != "Extract, fill, and assemble PDF documents" || listed[1].MimeType != "text/markdown" {
			t.Errorf("resources/list: %+v", listed)
		}
		// Directories.
		var children []string
		for r, err := range sess.Directory(ctx, "skill://pdf-processing") {
			if err != nil {
				t.Fatal(err)
			}
			children = append(children, r.URI+" "+r.MimeType)
		}
		want := "skill://pdf-processing/SKILL.md text/markdown,skill://pdf-processing/logo.bin application/octet-stream," +
			"skill://pdf-processing/references inode/directory,skill://pdf-processing/templates inode/directory"
		if strings.Join(children, ",") != want {
			t.Errorf("resources/directory/read:\n got %s\nwant %s", strings.Join(children, ","), want)
		}
		dir, err := sess.ReadDirectory(ctx, &mcp.ReadDirectoryParams{URI: "skill://acme"})
		if err != nil || len(dir.Resources) != 1 || dir.Resources[0].URI != "skill://acme/billing" || dir.Resources[0].MimeType != mcp.MimeTypeDirectory {
			t.Errorf("a prefix directory: %+v, %v", dir, err)
		}
		for _, uri := range []string{pdf.URI, "skill://pdf-processing/templates/invoice.md", "skill://nope", "skill://pdf-processing/.git", ""} {
			if _, err := sess.ReadDirectory(ctx, &mcp.ReadDirectoryParams{URI: uri}); codeOf(err) != jsonrpc.CodeInvalidParams {
				t.Errorf("resources/directory/read %q: %v, want -32602", uri, err)
			}
		}
		if _, err := sess.ListSkills(ctx, &mcp.ListSkillsParams{Cursor: "bogus"}); codeOf(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("skills/list with a bad cursor: %v", err)
		}
	})
}

// TestSkillsCacheFields checks the 2026-07-28 cache fields on skills/list
// and skills/get, and their absence in legacy sessions.
func TestSkillsCacheFields(t *testing.T) {
	srv, _ := newSkillsServer(t, skillsFS(), nil)
	mcptest.Eras(t, func(t *testing.T, v mcp.Version) {
		sess := mcptest.Connect(t, srv, &mcptest.Options{Version: v})
		for _, c := range []struct {
			method string
			params any
		}{{mcp.MethodListSkills, nil}, {mcp.MethodGetSkill, map[string]string{"uri": "skill://pdf-processing/SKILL.md"}}} {
			var raw map[string]json.RawMessage
			if err := sess.Call(context.Background(), c.method, c.params, &raw); err != nil {
				t.Fatal(err)
			}
			_, ttl := raw["ttlMs"]
			_, scope := raw["cacheScope"]
			_, rt := raw["resultType"]
			if modern := mcp.IsModern(v); ttl != modern || scope != modern || rt != modern {
				t.Errorf("%s in %s: ttlMs %v, cacheScope %v, resultType %v", c.method, v, ttl, scope, rt)
			}
			_, cursor := raw["nextCursor"]
			if c.method == mcp.MethodGetSkill && cursor {
				t.Error("skills/get has a cursor")
			}
		}
	})
}

func TestSkillsMethodsWithoutSkills(t *testing.T) {
	srv := newTestServer(t)
	mcptest.Eras(t, func(t *testing.T, v mcp.Version) {
		sess := mcptest.Connect(t, srv, &mcptest.Options{Version: v})
		if _, ok := sess.ServerCapabilities().Skills(); ok {
			t.Error("the extension is declared without skills")
		}
		for _, m := range []string{mcp.MethodListSkills, mcp.MethodGetSkill, mcp.MethodReadDirectory} {
			if err := sess.Call(context.Background(), m, map[string]string{"uri": "skill://a/SKILL.md"}, nil); codeOf(err) != jsonrpc.CodeMethodNotFound {
				t.Errorf("%s: %v, want -32601", m, err)
			}
		}
	})
	// Without directoryRead, the method is not served either.
	srv2, _ := newSkillsServer(t, skillsFS(), nil)
	sess := mcptest.Connect(t, srv2, nil)
	if err := sess.Call(context.Background(), mcp.MethodReadDirectory, map[string]string{"uri": "skill://pdf-processing"}, nil); codeOf(err) != jsonrpc.CodeMethodNotFound {
		t.Errorf("resources/directory/read without directoryRead: %v", err)
	}
	if _, err := sess.ReadDirectory(context.Background(), &mcp.ReadDirectoryParams{URI: "skill://pdf-processing"}); err == nil {
		t.Error("the client sends resources/directory/read to a server without directoryRead")
	}
}

func TestSkillsProblems(t *testing.T) {
	fsys := skillsFS()
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	bad := map[string]string{
		"Bad_Name/SKILL.md":   "---\nname: Bad_Name\ndescription: x\n---\n",
		"wrong-name/SKILL.md": "---\nname: other\ndescription: x\n---\n",
		"no-front/SKILL.md":   "# no frontmatter\n",
		"no-desc/SKILL.md":    "---\nname: no-desc\n---\n",
		"bad-yaml/SKILL.md":   "---\nname: bad-yaml\ndescription: use when: asked\n---\n",
		"anchors/SKILL.md":    "---\nname: anchors\ndescription: &d x\nother: *d\n---\n",
		"unicode/SKILL.md":    "---\nname: unicode\ndescription: x\n---\n",
		"unicode/résumé.md":   "x",
		"cased/SKILL.md":      "---\nname: cased\ndescription: x\n---\n",
		"cased/a.md":          "x",
		"cased/A.md":          "y",
		"b@d/ok/SKILL.md":     "---\nname: ok\ndescription: x\n---\n",
	}
	for p, s := range bad {
		fsys[p] = file(s)
	}
	srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
	defer srv.Close()
	_, err := srv.AddSkills(fsys, nil)
	if err == nil {
		t.Fatal("AddSkills served invalid skills without OnProblem")
	}
	var problems []string
	set, err := srv.AddSkills(fsys, &server.SkillsOptions{OnProblem: func(err error) {
		var se *server.SkillError
		if !errors.As(err, &se) {
			t.Errorf("problem %v is not a *SkillError", err)
		}
		problems = append(problems, se.Path)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(problems, " "); got != "Bad_Name anchors b@d/ok bad-yaml cased no-desc no-front unicode wrong-name" {
		t.Errorf("problems for %s", got)
	}
	if n := len(set.Skills()); n != 2 {
		t.Errorf("%d skills served, want the 2 valid ones", n)
	}
}

func TestSkillsLimits(t *testing.T) {
	file := func(n int) *fstest.MapFile { return &fstest.MapFile{Data: make([]byte, n)} }
	skill := func(name string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("---\nname: " + name + "\ndescription: x\n---\n")}
	}
	fsys := fstest.MapFS{"big/SKILL.md": skill("big"), "big/blob": file(mcp.MaxSkillBytes), "many/SKILL.md": skill("many"), "ok/SKILL.md": skill("ok")}
	for i := range mcp.MaxSkillResources {
		fsys[fmt.Sprintf("many/f%03d", i)] = file(1)
	}
	var problems []string
	srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
	defer srv.Close()
	set, err := srv.AddSkills(fsys, &server.SkillsOptions{OnProblem: func(err error) { problems = append(problems, err.Error()) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 2 || !strings.Contains(problems[0], "bytes") || !strings.Contains(problems[1], "513 files") {
		t.Errorf("problems: %q", problems)
	}
	if len(set.Skills()) != 1 {
		t.Errorf("served %d skills", len(set.Skills()))
	}
	for _, tc := range []struct {
		opts server.SkillsOptions
		want string
	}{
		{server.SkillsOptions{MaxSkills: 2}, "more than 2"},
		{server.SkillsOptions{MaxEntries: 100}, "more than 100"},
		{server.SkillsOptions{MaxTotalBytes: 1000}, "more than 1000 bytes"},
	} {
		tc.opts.OnProblem = func(error) {}
		if _, err := srv.AddSkills(fsys, &tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v", tc.opts, err)
		}
	}
}

func TestSkillsPagination(t *testing.T) {
	fsys := fstest.MapFS{}
	const n = 250
	for i := range n {
		name := fmt.Sprintf("skill-%03d", i)
		fsys[name+"/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: " + name + "\ndescription: x\n---\n")}
		for j := range 20 {
			fsys[fmt.Sprintf("%s/f%02d.md", name, j)] = &fstest.MapFile{Data: []byte("x")}
		}
	}
	srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, &server.Options{PageSize: 100})
	defer srv.Close()
	if _, err := srv.AddSkills(fsys, &server.SkillsOptions{MaxPageBytes: 64 << 10}); err != nil {
		t.Fatal(err)
	}
	sess := mcptest.Connect(t, srv, nil)
	seen := map[string]bool{}
	var cursor mcp.Cursor
	pages := 0
	for {
		res, err := sess.ListSkills(context.Background(), &mcp.ListSkillsParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		b, _ := json.Marshal(res)
		if len(res.Skills) == 0 || len(b) > 80<<10 || len(res.Skills) > 100 {
			t.Fatalf("page %d: %d skills, %d bytes", pages, len(res.Skills), len(b))
		}
		for _, s := range res.Skills {
			if seen[s.URI] {
				t.Fatalf("%s on two pages", s.URI)
			}
			seen[s.URI] = true
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	if len(seen) != n || pages < 4 {
		t.Errorf("%d skills on %d pages", len(seen), pages)
	}
}

func TestSkillsCollisions(t *testing.T) {
	srv, _ := newSkillsServer(t, skillsFS(), nil)
	other := fstest.MapFS{"PDF-Processing/x": &fstest.MapFile{}, "pdf-processing/SKILL.md": &fstest.MapFile{Data: []byte(pdfSkill)}}
	if _, err := srv.AddSkills(other, nil); err == nil || !strings.Contains(err.Error(), "serves skill://pdf-processing/SKILL.md already") {
		t.Errorf("a second set with the same skill: %v", err)
	}
	if _, err := srv.AddSkills(other, &server.SkillsOptions{Prefix: "mirror"}); err != nil {
		t.Errorf("a second set under a prefix: %v", err)
	}
	if _, err := srv.AddSkills(other, &server.SkillsOptions{Prefix: "a b"}); err == nil {
		t.Error("a prefix with a space")
	}
}

func TestSkillSetReloadAndClose(t *testing.T) {
	fsys := skillsFS()
	srv, set := newSkillsServer(t, fsys, nil)
	changed := make(chan string, 10)
	sess := mcptest.Connect(t, srv, &mcptest.Options{Version: mcp.LatestLegacy, Client: &client.Options{
		OnListChanged: func(ctx context.Context, method string) { changed <- method },
	}})
	fsys["new-skill/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: new-skill\ndescription: x\n---\n")}
	if err := set.Reload(); err != nil {
		t.Fatal(err)
	}
	if n := len(listAll(t, sess)); n != 3 {
		t.Errorf("%d skills after Reload", n)
	}
	select {
	case m := <-changed:
		if m != mcp.NotificationResourceListChanged {
			t.Errorf("notified %s", m)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no resources/list_changed after a skill was added")
	}
	if err := set.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := sess.ListSkills(context.Background(), nil); codeOf(err) != jsonrpc.CodeMethodNotFound {
		t.Errorf("skills/list after Close: %v", err)
	}
	if _, err := sess.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "skill://pdf-processing/SKILL.md"}); !mcp.IsResourceNotFound(err) {
		t.Errorf("resources/read after Close: %v", err)
	}
}
