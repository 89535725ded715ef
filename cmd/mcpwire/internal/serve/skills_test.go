package serve

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/mcp"
)

// skillsDir writes a folder of skills: pdf-processing (with a
// subdirectory and a hidden file), and what must not be served: a skill
// holding a symbolic link to a file outside, and a symbolic link to a
// skill outside.
func skillsDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.txt")
	write := func(p, s string) {
		t.Helper()
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("pdf-processing/SKILL.md", "---\nname: pdf-processing\ndescription: Extract text from PDFs\n---\nSee references/FORMS.md.\n")
	write("pdf-processing/references/FORMS.md", "Forms.\n")
	write("pdf-processing/.env", "TOKEN=x\n")
	if err := os.WriteFile(outside, []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	write("leaky/SKILL.md", "---\nname: leaky\ndescription: Holds a link out\n---\n")
	if err := os.Symlink(outside, filepath.Join(dir, "leaky", "secret.txt")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	elsewhere := filepath.Join(t.TempDir(), "linked")
	if err := os.MkdirAll(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(elsewhere, "SKILL.md"), []byte("---\nname: linked\ndescription: x\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(dir, "linked")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestServeSkills(t *testing.T) {
	dir := skillsDir(t)
	// The symbolic links are problems: refused, unless --skip-invalid.
	r := start(t, strings.NewReader(""), io.Discard, "serve", "skills", dir)
	if code := r.wait(t); code != app.ExitUsage || !strings.Contains(r.stderr.String(), "leaky/secret.txt is a symbolic link") ||
		!strings.Contains(r.stderr.String(), "linked: is a symbolic link") || !strings.Contains(r.stderr.String(), "--skip-invalid") {
		t.Fatalf("exit %d, stderr %q", code, r.stderr.String())
	}
	for _, version := range []mcp.Version{"2026-07-28", "2025-11-25"} {
		t.Run(string(version), func(t *testing.T) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			r := start(t, inR, outW, "serve", "skills", "--skip-invalid", dir)
			cs := connect(t, &pipeTransport{r: outR, w: inW}, version, nil)
			if c, ok := cs.ServerCapabilities().Skills(); !ok || !c.DirectoryRead {
				t.Errorf("capabilities: %+v", cs.ServerCapabilities())
			}
			var skills []mcp.Skill
			for sk, err := range cs.Skills(t.Context()) {
				if err != nil {
					t.Fatal(err)
				}
				skills = append(skills, *sk)
			}
			if len(skills) != 1 || len(skills[0].Resources) != 2 {
				t.Fatalf("skills: %+v", skills)
			}
			l, err := cs.LoadSkill(t.Context(), &skills[0], nil)
			if err != nil {
				t.Fatal(err)
			}
			if data, err := l.ReadFile(t.Context(), "references/FORMS.md"); err != nil || string(data) != "Forms.\n" {
				t.Errorf("FORMS.md: %q, %v", data, err)
			}
			for _, uri := range []string{"skill://leaky/secret.txt", "skill://leaky/SKILL.md", "skill://linked/SKILL.md", "skill://pdf-processing/.env"} {
				if _, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri}); !mcp.IsResourceNotFound(err) {
					t.Errorf("%s: %v", uri, err)
				}
			}
			cs.Close()
			if code := r.wait(t); code != app.ExitOK {
				t.Errorf("exit %d; stderr: %s", code, r.stderr.String())
			}
			inR.Close()
			outR.Close()
		})
	}
}

// TestServeSkillsOneSkill serves a directory that is itself a skill,
// under its own name.
func TestServeSkillsOneSkill(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "notes")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: notes\ndescription: Take notes\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r := start(t, inR, outW, "serve", "skills", dir)
	cs := connect(t, &pipeTransport{r: outR, w: inW}, "2026-07-28", nil)
	sk, err := cs.GetSkill(t.Context(), "skill://notes/SKILL.md")
	if err != nil || sk.Frontmatter.Name() != "notes" {
		t.Errorf("skills/get: %+v, %v", sk, err)
	}
	cs.Close()
	r.wait(t)
	inR.Close()
	outR.Close()
}

func TestServeSkillsUsage(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "skills"}, "name at least one directory of skills"},
		{[]string{"serve", "skills", filepath.Join(dir, "missing")}, "no such file or directory"},
		{[]string{"serve", "skills", "--prefix", "a b", dir}, `the prefix "a b"`},
		{[]string{"serve", "skills", "--reload", "-1s", dir}, "--reload -1s"},
	} {
		r := start(t, strings.NewReader(""), io.Discard, c.args...)
		if code := r.wait(t); code != app.ExitUsage || !strings.Contains(r.stderr.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, r.stderr.String(), c.want)
		}
	}
}

// TestServeSkillsEmptyDirectory: a directory without any skill is
// probably the wrong one: serve skills says so rather than serve nothing
// (unless --reload, which will see skills added later).
func TestServeSkillsEmptyDirectory(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("not a skill\n"), 0o644)
	r := start(t, strings.NewReader(""), io.Discard, "serve", "skills", dir)
	if code := r.wait(t); code != app.ExitUsage || !strings.Contains(r.stderr.String(), "no skill") {
		t.Errorf("exit %d, stderr %q", code, r.stderr.String())
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r = start(t, inR, outW, "serve", "skills", "--reload", "1h", dir)
	cs := connect(t, &pipeTransport{r: outR, w: inW}, "2026-07-28", nil)
	if _, ok := cs.ServerCapabilities().Skills(); !ok {
		t.Error("with --reload, an empty directory is served")
	}
	cs.Close()
	r.wait(t)
	inR.Close()
	outR.Close()
}
