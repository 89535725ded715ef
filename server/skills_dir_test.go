//go:build unix

package server_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcptest"
	"github.com/mcpwire/mcpwire/server"
)

// skillDir writes the skill pdf-processing into a new directory, and
// serves it with AddSkillsDir.
func skillDir(t *testing.T) (string, *server.Server, *client.Session) {
	t.Helper()
	dir := t.TempDir()
	for p, s := range map[string]string{
		"pdf-processing/SKILL.md":            pdfSkill,
		"pdf-processing/references/FORMS.md": "# Forms\n",
		"pdf-processing/notes.md":            "notes\n",
	} {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
	t.Cleanup(func() { srv.Close() })
	set, err := srv.AddSkillsDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	return dir, srv, mcptest.Connect(t, srv, nil)
}

// TestSkillFileChangedOnDisk: a file changed between the listing and the
// load fails verification against the old entry; skills/get returns the
// new entry, which verifies; and so when the change kept the file's size
// and time, once a read has seen it.
func TestSkillFileChangedOnDisk(t *testing.T) {
	ctx := context.Background()
	dir, _, sess := skillDir(t)
	const uri = "skill://pdf-processing/SKILL.md"
	old, err := sess.GetSkill(ctx, uri)
	if err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(dir, "pdf-processing", "notes.md")
	if err := os.WriteFile(notes, []byte("longer notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := sess.LoadSkill(ctx, old, nil)
	if err != nil {
		t.Fatal(err) // SKILL.md did not change
	}
	if _, err := l.ReadFile(ctx, "notes.md"); !errors.Is(err, client.ErrSkillVerification) {
		t.Fatalf("reading a changed file under the old entry: %v", err)
	}
	fresh, err := sess.GetSkill(ctx, uri)
	if err != nil {
		t.Fatal(err)
	}
	l, err = sess.LoadSkill(ctx, fresh, nil)
	if err != nil {
		t.Fatal(err)
	}
	if data, err := l.ReadFile(ctx, "notes.md"); err != nil || string(data) != "longer notes\n" {
		t.Fatalf("under the new entry: %q, %v", data, err)
	}

	// Same size, same time: skills/get cannot tell; a read can.
	fi, _ := os.Stat(notes)
	if err := os.WriteFile(notes, []byte("LONGER NOTES\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(notes, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if _, err := l.ReadFile(ctx, "notes.md"); !errors.Is(err, client.ErrSkillVerification) {
		t.Fatalf("a change of the same size and time: %v", err)
	}
	fresh, _ = sess.GetSkill(ctx, uri)
	l, _ = sess.LoadSkill(ctx, fresh, nil)
	if data, err := l.ReadFile(ctx, "notes.md"); err != nil || string(data) != "LONGER NOTES\n" {
		t.Fatalf("after the read saw the change: %q, %v", data, err)
	}

	// A file removed is gone from the entry, and not found.
	if err := os.Remove(notes); err != nil {
		t.Fatal(err)
	}
	if _, err := sess.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://pdf-processing/notes.md"}); !mcp.IsResourceNotFound(err) {
		t.Errorf("reading a removed file: %v", err)
	}
	fresh, _ = sess.GetSkill(ctx, uri)
	if _, ok := fresh.Resource("skill://pdf-processing/notes.md"); ok || len(fresh.Resources) != 2 {
		t.Errorf("the entry still lists the removed file: %+v", fresh.Resources)
	}
}

// TestSkillFileSwappedForALinkOrAPipe: a served file replaced by a
// symbolic link out of the directory, or by a FIFO, is not read through
// it, and the read does not block.
func TestSkillFileSwappedForALinkOrAPipe(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dir, _, sess := skillDir(t)
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("secret\n"), 0o644)
	notes := filepath.Join(dir, "pdf-processing", "notes.md")
	os.Remove(notes)
	if err := os.Symlink(secret, notes); err != nil {
		t.Skip(err)
	}
	res, err := sess.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://pdf-processing/notes.md"})
	if err == nil {
		t.Fatalf("a link out was read: %+v", res.Contents)
	}
	forms := filepath.Join(dir, "pdf-processing", "references", "FORMS.md")
	os.Remove(forms)
	if err := syscall.Mkfifo(forms, 0o644); err != nil {
		t.Skip(err)
	}
	if res, err := sess.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://pdf-processing/references/FORMS.md"}); err == nil || ctx.Err() != nil {
		t.Fatalf("a FIFO was read: %+v, %v", res, err)
	}
	if _, err := sess.GetSkill(ctx, "skill://pdf-processing/SKILL.md"); err == nil || ctx.Err() != nil {
		t.Errorf("skills/get of the skill that now holds a link and a FIFO: %v", err)
	}
}

// TestSkillSetCloseTwice: closing a set again does nothing.
func TestSkillSetCloseTwice(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
	defer srv.Close()
	set, err := srv.AddSkillsDir(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := set.Close(); err != nil {
		t.Fatal(err)
	}
	if err := set.Close(); err != nil {
		t.Errorf("the second Close: %v", err)
	}
	if err := set.Reload(); err != nil {
		t.Errorf("Reload after Close: %v", err)
	}
}
