package serve

import (
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
)

// TestServeFilesystemWithoutDirectoriesSaysSo: started without a
// directory, the filesystem server still starts (as the official one
// does: a legacy client's roots can give it directories), but says on
// stderr at once that no directory was given and that every path is
// refused until the client sends roots.
func TestServeFilesystemWithoutDirectoriesSaysSo(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	r := start(t, inR, io.Discard, "serve", "filesystem")
	r.stderr.await(t, regexp.MustCompile(`no directory given.*every path is refused until the client sends its roots`))
	inW.Close()
	if code := r.wait(t); code != app.ExitOK {
		t.Errorf("exit %d; stderr: %s", code, r.stderr.String())
	}
}

// TestServeFilesystemWithoutDirectoriesOrRootsFailsAtOnce: with roots
// ignored there is no way to get a directory: a usage error at once,
// not a server that refuses every path.
func TestServeFilesystemWithoutDirectoriesOrRootsFailsAtOnce(t *testing.T) {
	r := start(t, strings.NewReader(""), io.Discard, "serve", "filesystem", "--roots", "ignore")
	if code := r.wait(t); code != app.ExitUsage || !strings.Contains(r.stderr.String(), "needs at least one DIR") {
		t.Errorf("exit %d, stderr %q; want exit 2 and a usage error asking for a DIR", code, r.stderr.String())
	}
}

// TestServeGitPositionalDirectorySaysUseRepository: the repository is
// --repository DIR (as mcp-server-git's --repository/-r); a positional
// directory is refused with a usage error that says so.
func TestServeGitPositionalDirectorySaysUseRepository(t *testing.T) {
	r := start(t, strings.NewReader(""), io.Discard, "serve", "git", ".")
	if code := r.wait(t); code != app.ExitUsage || !strings.Contains(r.stderr.String(), "use --repository DIR") {
		t.Errorf("exit %d, stderr %q; want exit 2 and \"use --repository DIR\"", code, r.stderr.String())
	}
}
