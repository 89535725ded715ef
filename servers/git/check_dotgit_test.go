package git

import (
	"errors"
	"os"
	"testing"
)

// TestRepoRelativeRefusesDotGitAfterAMissingDirectory: every component is
// checked for .git, not only those before the first that does not exist
// ("0/.GIT" was accepted: FuzzRepoRelative).
func TestRepoRelativeRefusesDotGitAfterAMissingDirectory(t *testing.T) {
	root := t.TempDir()
	rt, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	r := &Repository{root: root}
	for _, p := range []string{"0/.GIT", "gone/.git/config", "gone/deeper/.Git/HEAD"} {
		if rel, err := r.repoRelative(rt, p); !errors.Is(err, errOutside) {
			t.Errorf("repoRelative(%q) = %q, %v; want the .git refusal", p, rel, err)
		}
	}
}
