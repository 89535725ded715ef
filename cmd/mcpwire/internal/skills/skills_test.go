package skills

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// TestMain checks that the tests of this package leave no goroutine
// behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const pdfMD = "---\nname: pdf-processing\ndescription: Extract text\n  from PDFs\n---\nRead references/FORMS.md.\n"

func skillsFS() fstest.MapFS {
	return fstest.MapFS{
		"pdf-processing/SKILL.md":            {Data: []byte(pdfMD)},
		"pdf-processing/references/FORMS.md": {Data: []byte("Forms.\n")},
		"pdf-processing/logo.bin":            {Data: []byte{0xff, 0, 1}},
		"a/refunds/SKILL.md":                 {Data: []byte("---\nname: refunds\ndescription: Refunds of team a\n---\n")},
		"b/refunds/SKILL.md":                 {Data: []byte("---\nname: refunds\ndescription: Refunds of team b\n---\n")},
	}
}

// env runs mcpwire skills against a server of fsys's skills, in process.
type env struct {
	t              *testing.T
	stdout, stderr bytes.Buffer
	a              *app.App
}

func newEnv(t *testing.T, fsys fstest.MapFS) *env {
	t.Helper()
	srv := server.New(mcp.Implementation{Name: "skills", Version: "1"}, nil)
	t.Cleanup(func() { srv.Close() })
	if fsys != nil {
		if _, err := srv.AddSkills(fsys, &server.SkillsOptions{DirectoryRead: true}); err != nil {
			t.Fatal(err)
		}
	}
	e := &env{t: t}
	e.a = app.New(strings.NewReader(""), &e.stdout, &e.stderr)
	e.a.Connect = clitest.MemoryTarget(t, srv)
	e.a.IsTerminal = func(io.Writer) bool { return false }
	return e
}

// run runs mcpwire ARGS -- testserver and returns the exit code.
func (e *env) run(args ...string) int {
	e.stdout.Reset()
	e.stderr.Reset()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return e.a.Execute(ctx, e.a.NewRoot(Family()), append(args, "--", "testserver"))
}

func TestSkillsList(t *testing.T) {
	e := newEnv(t, skillsFS())
	if code := e.run("skills"); code != app.ExitOK {
		t.Fatalf("exit %d: %s", code, e.stderr.String())
	}
	clitest.CheckOutput(t, "stdout", e.stdout.String(), `NAME            FILES  SIZE       URI                              DESCRIPTION
refunds         1      53 bytes   skill://a/refunds/SKILL.md       Refunds of team a
refunds         1      53 bytes   skill://b/refunds/SKILL.md       Refunds of team b
pdf-processing  3      103 bytes  skill://pdf-processing/SKILL.md  Extract text from PDFs
`)
	if code := e.run("skills", "--json"); code != app.ExitOK {
		t.Fatalf("exit %d: %s", code, e.stderr.String())
	}
	var l listing
	if err := json.Unmarshal(e.stdout.Bytes(), &l); err != nil || len(l.Skills) != 3 {
		t.Errorf("--json: %s (%v)", e.stdout.String(), err)
	}
}

func TestSkillsLoad(t *testing.T) {
	e := newEnv(t, skillsFS())
	if code := e.run("skills", "pdf-processing"); code != app.ExitOK {
		t.Fatalf("exit %d: %s", code, e.stderr.String())
	}
	clitest.CheckOutput(t, "stdout", e.stdout.String(), `pdf-processing: Extract text from PDFs
skill://pdf-processing/SKILL.md (SKILL.md verified)
FILE                 SIZE      DIGEST
SKILL.md             93 bytes  sha256:`+mcp.SkillDigest([]byte(pdfMD))[7:]+`
logo.bin             3 bytes   sha256:`+mcp.SkillDigest([]byte{0xff, 0, 1})[7:]+`
references/FORMS.md  7 bytes   sha256:`+mcp.SkillDigest([]byte("Forms.\n"))[7:]+`

`+pdfMD)
	if code := e.run("skills", "skill://pdf-processing/SKILL.md", "--file", "references/FORMS.md"); code != app.ExitOK || e.stdout.String() != "Forms.\n" {
		t.Errorf("--file: exit %d, stdout %q, stderr %q", code, e.stdout.String(), e.stderr.String())
	}
	if code := e.run("skills", "pdf-processing", "--file", "logo.bin"); code != app.ExitOK || e.stdout.String() != "\xff\x00\x01" {
		t.Errorf("--file of binary content to a pipe: exit %d, stdout %q", code, e.stdout.String())
	}
	if code := e.run("skills", "pdf-processing", "--file", "references/FORMS.md", "--json"); code != app.ExitOK {
		t.Fatalf("--json: exit %d: %s", code, e.stderr.String())
	}
	var out loaded
	if err := json.Unmarshal(e.stdout.Bytes(), &out); err != nil || out.Content != pdfMD || out.FileContent == nil || *out.FileContent != "Forms.\n" {
		t.Errorf("--json: %s", e.stdout.String())
	}
}

func TestSkillsFailures(t *testing.T) {
	fsys := skillsFS()
	e := newEnv(t, fsys)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"skills", "refunds"}, app.ExitUsage, `2 skills are named "refunds"; give one's URI: skill://a/refunds/SKILL.md, skill://b/refunds/SKILL.md`},
		{[]string{"skills", "nope"}, app.ExitUsage, `the server lists no skill named "nope" (3 listed)`},
		{[]string{"skills", "skill://nope/SKILL.md"}, app.ExitFailure, "No skill is served at skill://nope/SKILL.md"},
		{[]string{"skills", "pdf-processing", "--file", "secret.md"}, app.ExitFailure, "skill file skill://pdf-processing/secret.md: unlisted mismatch"},
		{[]string{"skills", "pdf-processing", "--file", "../b/refunds/SKILL.md"}, app.ExitFailure, "is not a path within the skill"},
		{[]string{"skills", "--file", "x"}, app.ExitUsage, "--file needs a SKILL"},
	} {
		if code := e.run(c.args...); code != c.code || !strings.Contains(e.stderr.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, e.stderr.String(), c.code, c.want)
		}
	}
	if code := e.a.Execute(context.Background(), e.a.NewRoot(Family()), []string{"skills", "a", "b"}); code != app.ExitUsage {
		t.Errorf("two skills: exit %d", code)
	}
	// A server without the extension.
	plain := newEnv(t, nil)
	if code := plain.run("skills"); code != app.ExitFailure || !strings.Contains(plain.stderr.String(), "does not declare the Skills extension") {
		t.Errorf("a server without skills: exit %d, stderr %q", code, plain.stderr.String())
	}
}
