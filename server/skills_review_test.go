package server_test

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcptest"
	"github.com/mcpwire/mcpwire/server"
)

// TestSkillEntriesAreCopies: what SkillSet.Skills and skills/list hand
// out must not be the snapshot the server serves and verifies against: a
// caller (or a middleware) that changes an entry changes nothing served.
func TestSkillEntriesAreCopies(t *testing.T) {
	srv, set := newSkillsServer(t, skillsFS(), nil)
	want := set.Skills()[1].Resources[0].Digest
	got := set.Skills()
	got[1].Resources[0].Digest = "sha256:tampered"
	got[1].Frontmatter["description"] = []byte(`"tampered"`)
	sess := mcptest.Connect(t, srv, nil)
	entry, err := sess.GetSkill(context.Background(), "skill://pdf-processing/SKILL.md")
	if err != nil {
		t.Fatal(err)
	}
	if entry.Resources[0].Digest != want || entry.Frontmatter.Description() != "Extract, fill, and assemble PDF documents" {
		t.Fatalf("changing what Skills returned changed the entry served: digest %s, description %q", entry.Resources[0].Digest, entry.Frontmatter.Description())
	}
	if _, err := sess.LoadSkill(context.Background(), entry, nil); err != nil {
		t.Fatal(err)
	}
}

// TestSkillWithUnlistableFilesIsLeftOut: a skill whose tree holds what
// the scan cannot list (a symbolic link, a special file, a directory too
// deep) cannot have a complete manifest: it is left out, not served with
// part of its files; and skills/get of the skills served does not rescan
// the set each time because of it.
func TestSkillWithUnlistableFilesIsLeftOut(t *testing.T) {
	skill := func(name string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("---\nname: " + name + "\ndescription: x\n---\n")}
	}
	deep := "deep/" + strings.Repeat("d/", 40) + "file.md"
	fsys := fstest.MapFS{
		"linked/SKILL.md": skill("linked"), "linked/notes.md": {Data: []byte("x")},
		"linked/outside.md": {Data: []byte("/etc/passwd"), Mode: fs.ModeSymlink},
		"piped/SKILL.md":    skill("piped"), "piped/fifo": {Mode: fs.ModeNamedPipe},
		"deep/SKILL.md": skill("deep"), deep: {Data: []byte("x")},
		"fine/SKILL.md": skill("fine"),
	}
	var problems []string
	srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
	defer srv.Close()
	set, err := srv.AddSkills(fsys, &server.SkillsOptions{OnProblem: func(err error) { problems = append(problems, err.Error()) }})
	if err != nil {
		t.Fatal(err)
	}
	var served []string
	for _, sk := range set.Skills() {
		served = append(served, sk.Frontmatter.Name())
	}
	if strings.Join(served, " ") != "fine" {
		t.Errorf("served %v, want only the skill whose every file is listed; problems: %q", served, problems)
	}
	n := len(problems)
	sess := mcptest.Connect(t, srv, nil)
	for range 3 {
		for _, sk := range set.Skills() {
			if _, err := sess.GetSkill(context.Background(), sk.URI); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(problems) != n {
		t.Errorf("skills/get rescanned the set: %d problems reported again", len(problems)-n)
	}
}

// countingFS counts the directory entries its directories hand out; it
// offers no ReadDir of its own, so that readers open directories.
type countingFS struct {
	fs.FS
	n *atomic.Int64
}

func (c countingFS) Open(name string) (fs.File, error) {
	f, err := c.FS.Open(name)
	if d, ok := f.(fs.ReadDirFile); ok && err == nil {
		return countingDir{d, c.n}, nil
	}
	return f, err
}

type countingDir struct {
	fs.ReadDirFile
	n *atomic.Int64
}

func (d countingDir) ReadDir(n int) ([]fs.DirEntry, error) {
	ents, err := d.ReadDirFile.ReadDir(n)
	d.n.Add(int64(len(ents)))
	return ents, err
}

// TestSkillDirectoriesAreReadWithinBounds: a directory of more entries
// than the scan may visit is not read whole before the bound is checked,
// nor a skill's directory, grown since, by skills/get's look for changes.
func TestSkillDirectoriesAreReadWithinBounds(t *testing.T) {
	const many = 20_000
	fsys := fstest.MapFS{"ok/SKILL.md": {Data: []byte("---\nname: ok\ndescription: x\n---\n")}}
	for i := range many {
		fsys[fmt.Sprintf("big/f%05d", i)] = &fstest.MapFile{}
	}
	var n atomic.Int64
	srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
	defer srv.Close()
	if _, err := srv.AddSkills(countingFS{fsys, &n}, &server.SkillsOptions{MaxEntries: 1000}); err == nil {
		t.Fatal("AddSkills visited more entries than MaxEntries")
	}
	if got := n.Load(); got > 2000 {
		t.Errorf("the scan read %d entries to find there were more than 1000", got)
	}

	delete(fsys, "big")
	for i := range many {
		delete(fsys, fmt.Sprintf("big/f%05d", i))
	}
	if _, err := srv.AddSkills(countingFS{fsys, &n}, &server.SkillsOptions{MaxEntries: 5000}); err != nil {
		t.Fatal(err)
	}
	for i := range many {
		fsys[fmt.Sprintf("ok/f%05d", i)] = &fstest.MapFile{}
	}
	n.Store(0)
	sess := mcptest.Connect(t, srv, nil)
	sess.GetSkill(context.Background(), "skill://ok/SKILL.md")
	// The look for changes, then the rescan it starts: each within its
	// bound (twice the files of a skill; MaxEntries).
	if got := n.Load(); got > 2*mcp.MaxSkillResources+5000+2000 {
		t.Errorf("skills/get read %d directory entries", got)
	}
}

// TestSkillSetsDoNotOverlap: a set whose skill lies inside another set's
// skill would serve a file URI twice (reads go to one set, and the other
// set's entry never verifies), and break the enclosing skill's complete
// manifest: it is refused, both ways.
func TestSkillSetsDoNotOverlap(t *testing.T) {
	srv, _ := newSkillsServer(t, skillsFS(), nil)
	inner := fstest.MapFS{
		"regional/SKILL.md": {Data: []byte("---\nname: regional\ndescription: x\n---\n")},
		"regional/eu.md":    {Data: []byte("another EU invoice\n")},
	}
	if _, err := srv.AddSkills(inner, &server.SkillsOptions{Prefix: "pdf-processing/templates"}); err == nil {
		sess := mcptest.Connect(t, srv, nil)
		entry, _ := sess.GetSkill(context.Background(), "skill://pdf-processing/templates/regional/SKILL.md")
		l, err := sess.LoadSkill(context.Background(), entry, nil)
		if err == nil {
			_, err = l.ReadFile(context.Background(), "eu.md")
		}
		t.Fatalf("a set inside another's skill was added; reading its file: %v", err)
	}
	outer := fstest.MapFS{"pdf/SKILL.md": {Data: []byte("---\nname: pdf\ndescription: x\n---\n")}}
	srv2, _ := newSkillsServer(t, fstest.MapFS{"templates/SKILL.md": {Data: []byte("---\nname: templates\ndescription: x\n---\n")}}, &server.SkillsOptions{Prefix: "pdf"})
	if _, err := srv2.AddSkills(outer, nil); err == nil {
		t.Fatal("a set whose skill encloses another set's skill was added")
	}
}

// TestSkillSetsDoNotOverlapAfterReload: the same holds for a skill that a
// rescan finds.
func TestSkillSetsDoNotOverlapAfterReload(t *testing.T) {
	srv, _ := newSkillsServer(t, skillsFS(), nil)
	other := fstest.MapFS{"other/SKILL.md": {Data: []byte("---\nname: other\ndescription: x\n---\n")}}
	set, err := srv.AddSkills(other, nil)
	if err != nil {
		t.Fatal(err)
	}
	other["pdf-processing/templates/regional/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: regional\ndescription: x\n---\n")}
	if err := set.Reload(); err == nil {
		t.Error("Reload found a skill inside another set's skill, and served it")
	}
	if n := len(set.Skills()); n != 1 {
		t.Errorf("the set serves %d skills", n)
	}
}

// TestSkillFileNamesDoNotCollideOnceNormalised: a host that keeps a
// skill's files on disk may fold case (macOS, Windows) and drop trailing
// dots and spaces (Windows): two names equal after that would overwrite
// each other there. Such a skill is left out.
func TestSkillFileNamesDoNotCollideOnceNormalised(t *testing.T) {
	skill := &fstest.MapFile{Data: []byte("---\nname: a\ndescription: x\n---\n")}
	for _, names := range [][2]string{{"notes.md", "NOTES.md"}, {"notes.md", "notes.md."}, {"notes.md", "notes.md "}, {"dir/x", "dir./x"}} {
		fsys := fstest.MapFS{"a/SKILL.md": skill, "a/" + names[0]: {Data: []byte("1")}, "a/" + names[1]: {Data: []byte("2")}}
		srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
		if set, err := srv.AddSkills(fsys, &server.SkillsOptions{OnProblem: func(error) {}}); err != nil || len(set.Skills()) != 0 {
			t.Errorf("%q and %q: the skill is served (%v)", names[0], names[1], err)
		}
		srv.Close()
	}
}

// TestSkillSetCloseKeepsOthersResources: a skill set lists each skill's
// SKILL.md among the server's resources, unless a resource is registered
// at that URI already; when the skill went away (Close, Reload), the set
// removed whatever resource was at the URI, the application's own (added
// before the set, or after it, replacing the set's) included.
func TestSkillSetCloseKeepsOthersResources(t *testing.T) {
	const uri = "skill://pdf-processing/SKILL.md"
	own := func(context.Context, *server.Request, *mcp.ReadResourceParams, map[string]string) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: uri, Text: "the application's own"}}}, nil
	}
	for _, before := range []bool{true, false} {
		srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
		t.Cleanup(func() { srv.Close() })
		if before {
			srv.AddResource(&mcp.Resource{URI: uri, Name: "own"}, own)
		}
		set, err := srv.AddSkills(skillsFS(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if !before {
			srv.AddResource(&mcp.Resource{URI: uri, Name: "own"}, own)
		}
		set.Close()
		sess := mcptest.Connect(t, srv, nil)
		res, err := sess.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != "the application's own" {
			t.Errorf("added before the set %v: after the set's Close, reading the application's resource: %v", before, err)
		}
	}
}
