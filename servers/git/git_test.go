package git_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/servers/git"
)

func trimNL(s string) string { return strings.TrimSuffix(s, "\n") }

func TestStatusMatchesGit(t *testing.T) {
	dir := newRepo(t)
	s := serve(t, dir, nil)
	check := func(state string) {
		t.Helper()
		got := s.ok("git_status", m{"repo_path": dir})
		if want := "Repository status:\n" + trimNL(gitCmd(t, dir, "status")); got != want {
			t.Errorf("%s: git_status =\n%s\nwant\n%s", state, got, want)
		}
	}
	check("clean")
	write(t, dir, "hello.txt", "hello\nthere\n")
	check("modified")
	write(t, dir, "dir/new file.txt", "new\n")
	write(t, dir, "ünïcødé.txt", "u\n")
	check("untracked")
	gitCmd(t, dir, "add", "dir")
	check("staged")
	gitCmd(t, dir, "checkout", "-q", "-b", "feature")
	check("other branch")
}

func TestDiffsMatchGit(t *testing.T) {
	dir := newRepo(t)
	lines := ""
	for i := range 40 {
		lines += strings.Repeat("x", i) + "\n"
	}
	write(t, dir, "long.txt", lines)
	gitCmd(t, dir, "add", "long.txt")
	commitAt(t, dir, "long", "2024-01-02T10:00:00+00:00")
	gitCmd(t, dir, "branch", "base")
	write(t, dir, "long.txt", strings.Replace(lines, "xxxxx\n", "changed\n", 1))
	gitCmd(t, dir, "add", "long.txt")
	write(t, dir, "long.txt", strings.Replace(lines, "xxxxxxxxxxxxxxxxxxxx\n", "also changed\n", 1))
	write(t, dir, "hello.txt", "hello\nworld\nagain\n")
	s := serve(t, dir, nil)

	for _, n := range []any{nil, 0, 1, 3, 10} {
		args := m{"repo_path": dir}
		unified := "--unified=3"
		if n != nil {
			args["context_lines"] = n
			unified = "--unified=" + jsonNum(n)
		}
		if got, want := s.ok("git_diff_unstaged", args), "Unstaged changes:\n"+trimNL(gitCmd(t, dir, "diff", unified)); got != want {
			t.Errorf("git_diff_unstaged %v =\n%s\nwant\n%s", n, got, want)
		}
		if got, want := s.ok("git_diff_staged", args), "Staged changes:\n"+trimNL(gitCmd(t, dir, "diff", "--cached", unified)); got != want {
			t.Errorf("git_diff_staged %v =\n%s\nwant\n%s", n, got, want)
		}
		args["target"] = "base"
		if got, want := s.ok("git_diff", args), "Diff with base:\n"+trimNL(gitCmd(t, dir, "diff", unified, "base")); got != want {
			t.Errorf("git_diff base %v =\n%s\nwant\n%s", n, got, want)
		}
	}
	for _, target := range []string{"HEAD~1", gitCmd(t, dir, "rev-parse", "HEAD~1")[:12], "main"} {
		if got, want := s.ok("git_diff", m{"target": target}), "Diff with "+target+":\n"+trimNL(gitCmd(t, dir, "diff", target)); got != want {
			t.Errorf("git_diff %s =\n%s\nwant\n%s", target, got, want)
		}
	}
	if got := s.ok("git_diff_staged", m{"repo_path": dir}); !strings.Contains(got, "+changed") {
		t.Errorf("the staged diff misses the staged change:\n%s", got)
	}
	gitCmd(t, dir, "stash", "-q")
	if got := s.ok("git_diff_unstaged", m{}); got != "Unstaged changes:\n" {
		t.Errorf("git_diff_unstaged of a clean tree = %q", got)
	}
}

func jsonNum(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// threeCommits adds three dated commits after the initial one.
func threeCommits(t *testing.T, dir string) {
	for i, date := range []string{"2024-02-01T09:00:00+01:00", "2024-03-01T09:00:00-05:00", "2024-04-01T09:00:00+00:00"} {
		write(t, dir, "f.txt", strings.Repeat("line\n", i+1))
		gitCmd(t, dir, "add", "f.txt")
		commitAt(t, dir, "commit "+string(rune('A'+i))+"\n\nwith a body\n  indented", date)
	}
}

func TestLogMatchesGit(t *testing.T) {
	dir := newRepo(t)
	threeCommits(t, dir)
	s := serve(t, dir, nil)
	for _, tc := range []struct {
		args m
		git  []string
	}{
		{m{}, []string{"-n", "10"}},
		{m{"max_count": 2}, []string{"-n", "2"}},
		{m{"start_timestamp": "2024-02-15"}, []string{"--since=2024-02-15"}},
		{m{"end_timestamp": "2024-02-15"}, []string{"--until=2024-02-15"}},
		{m{"start_timestamp": "2024-01-15T00:00:00", "end_timestamp": "Mar 15 2024", "max_count": 1}, []string{"--since=2024-01-15T00:00:00", "--until=Mar 15 2024", "-n", "1"}},
		{m{"start_timestamp": "2 weeks ago"}, []string{"--since=2 weeks ago"}},
	} {
		res := s.result("git_log", tc.args)
		var got git.LogResult
		if err := json.Unmarshal(res.StructuredContent, &got); err != nil {
			t.Fatal(err)
		}
		out := gitCmd(t, dir, append([]string{"log", "--format=%H%x1f%an%x1f%ae%x1f%aI%x1f%B%x1e"}, tc.git...)...)
		var want []git.Commit
		text := "Commit history:\n"
		var entries []string
		for rec := range strings.SplitSeq(out, "\x1e") {
			rec = strings.TrimPrefix(rec, "\n")
			if rec == "" {
				continue
			}
			f := strings.Split(rec, "\x1f")
			c := git.Commit{Hash: f[0], Author: f[1], Email: f[2], Date: f[3], Message: strings.TrimRight(f[4], "\n")}
			want = append(want, c)
			entries = append(entries, "Commit: "+c.Hash+"\nAuthor: "+c.Author+" <"+c.Email+">\nDate: "+c.Date+"\nMessage: "+c.Message+"\n")
		}
		text += strings.Join(entries, "\n")
		if len(got.Commits) != len(want) {
			t.Errorf("git_log %v: %d commits, git log shows %d", tc.args, len(got.Commits), len(want))
			continue
		}
		for i := range want {
			if got.Commits[i] != want[i] {
				t.Errorf("git_log %v: commit %d = %+v, want %+v", tc.args, i, got.Commits[i], want[i])
			}
		}
		if gotText, _ := s.call("git_log", tc.args); gotText != text {
			t.Errorf("git_log %v text =\n%s\nwant\n%s", tc.args, gotText, text)
		}
	}
}

func TestShowMatchesGit(t *testing.T) {
	dir := newRepo(t)
	threeCommits(t, dir)
	// a merge: git_show shows its diff against the first parent
	gitCmd(t, dir, "checkout", "-q", "-b", "side", "HEAD~1")
	write(t, dir, "side.txt", "side\n")
	gitCmd(t, dir, "add", "side.txt")
	commitAt(t, dir, "side", "2024-05-01T00:00:00+00:00")
	gitCmd(t, dir, "checkout", "-q", "main")
	if out, err := gitRun(dir, []string{"GIT_AUTHOR_DATE=2024-06-01T00:00:00Z", "GIT_COMMITTER_DATE=2024-06-01T00:00:00Z"}, "merge", "-q", "--no-ff", "-m", "merge side", "side"); err != nil {
		t.Fatal(err, out)
	}
	gitCmd(t, dir, "tag", "v1", "HEAD~1")
	gitCmd(t, dir, "tag", "-a", "-m", "annotated", "v2", "HEAD")
	s := serve(t, dir, nil)
	root := strings.TrimSpace(gitCmd(t, dir, "rev-list", "--max-parents=0", "HEAD"))
	for _, rev := range []string{"HEAD", "HEAD~1", "main^2", "v1", "v2", root, root[:10]} {
		got := s.ok("git_show", m{"revision": rev, "repo_path": dir})
		want := trimNL(gitCmd(t, dir, "show", "--diff-merges=first-parent", "--format=Commit: %H%nAuthor: %an <%ae>%nDate: %aI%nMessage: %B", rev+"^{commit}"))
		if got != want {
			t.Errorf("git_show %s =\n%s\nwant\n%s", rev, got, want)
		}
	}
	merge := s.ok("git_show", m{"revision": "HEAD"})
	if first := gitCmd(t, dir, "diff", "HEAD^1", "HEAD"); !strings.Contains(merge, trimNL(first)) || first == "" {
		t.Errorf("git_show of a merge lacks the diff against its first parent:\n%s", merge)
	}
}

func TestBranchMatchesGit(t *testing.T) {
	dir := newRepo(t)
	gitCmd(t, dir, "branch", "old")
	threeCommits(t, dir)
	gitCmd(t, dir, "branch", "new")
	gitCmd(t, dir, "update-ref", "refs/remotes/origin/main", "HEAD~1")
	s := serve(t, dir, nil)
	head := strings.TrimSpace(gitCmd(t, dir, "rev-parse", "HEAD"))
	for _, tc := range []struct {
		args m
		git  []string
	}{
		{m{"branch_type": "local"}, nil},
		{m{}, nil},
		{m{"branch_type": "remote"}, []string{"-r"}},
		{m{"branch_type": "all"}, []string{"-a"}},
		{m{"branch_type": "local", "contains": head}, []string{"--contains", head}},
		{m{"branch_type": "all", "not_contains": "HEAD~1"}, []string{"-a", "--no-contains", "HEAD~1"}},
		{m{"branch_type": "local", "contains": "old", "not_contains": "new", "repo_path": dir}, []string{"--contains", "old", "--no-contains", "new"}},
	} {
		if got, want := s.ok("git_branch", tc.args), trimNL(gitCmd(t, dir, append([]string{"branch"}, tc.git...)...)); got != want {
			t.Errorf("git_branch %v =\n%s\nwant\n%s", tc.args, got, want)
		}
	}
	s.refused("git_branch", m{"branch_type": "every"})
}

func TestAddCommitReset(t *testing.T) {
	dir := newRepo(t)
	s := serve(t, dir, nil)
	write(t, dir, "a.txt", "a\n")
	write(t, dir, "b.txt", "b\n")
	write(t, dir, "sub/c.txt", "c\n")
	if got := s.ok("git_add", m{"repo_path": dir, "files": []string{"a.txt", filepath.Join(dir, "sub", "c.txt")}}); got != "Files staged successfully" {
		t.Errorf("git_add = %q", got)
	}
	if got := gitCmd(t, dir, "diff", "--cached", "--name-only"); got != "a.txt\nsub/c.txt\n" {
		t.Errorf("staged after git_add: %q", got)
	}
	if got := s.ok("git_reset", m{"repo_path": dir}); got != "All staged changes reset" {
		t.Errorf("git_reset = %q", got)
	}
	if got := gitCmd(t, dir, "diff", "--cached", "--name-only"); got != "" {
		t.Errorf("staged after git_reset: %q", got)
	}
	s.ok("git_add", m{"files": []string{"."}})
	if got := gitCmd(t, dir, "diff", "--cached", "--name-only"); got != "a.txt\nb.txt\nsub/c.txt\n" {
		t.Errorf("staged after git_add .: %q", got)
	}
	msg := "Add three files\n\n# not a comment: kept\n"
	got := s.ok("git_commit", m{"message": msg})
	head := strings.TrimSpace(gitCmd(t, dir, "rev-parse", "HEAD"))
	if want := "Changes committed successfully with hash " + head; got != want {
		t.Errorf("git_commit = %q, want %q", got, want)
	}
	if got := gitCmd(t, dir, "log", "-1", "--format=%B"); trimNL(got) != msg {
		t.Errorf("commit message = %q, want %q", got, msg)
	}
	if got := s.refused("git_commit", m{"message": "nothing staged"}); !strings.Contains(got, "nothing") {
		t.Errorf("git_commit with nothing staged: %q", got)
	}
	// a deleted file: git_add stages its removal
	os.Remove(filepath.Join(dir, "a.txt"))
	s.ok("git_add", m{"files": []string{"a.txt"}})
	if got := gitCmd(t, dir, "diff", "--cached", "--name-status"); got != "D\ta.txt\n" {
		t.Errorf("staged after adding a deleted file: %q", got)
	}
}

func TestResetWithoutCommits(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "empty")
	os.Mkdir(dir, 0o755)
	gitCmd(t, dir, "init", "-q", "-b", "main")
	write(t, dir, "x.txt", "x\n")
	gitCmd(t, dir, "add", "x.txt")
	s := serve(t, dir, nil)
	s.ok("git_reset", m{})
	if got := gitCmd(t, dir, "ls-files", "--stage"); got != "" {
		t.Errorf("index after git_reset without commits: %q", got)
	}
	s.refused("git_log", m{})
}

func TestBranches(t *testing.T) {
	dir := newRepo(t)
	threeCommits(t, dir)
	gitCmd(t, dir, "tag", "v1", "HEAD~2")
	gitCmd(t, dir, "update-ref", "refs/remotes/origin/topic", "HEAD~1")
	s := serve(t, dir, nil)
	rev := func(r string) string { return strings.TrimSpace(gitCmd(t, dir, "rev-parse", r)) }

	if got := s.ok("git_create_branch", m{"branch_name": "feature"}); got != "Created branch 'feature' from 'main'" {
		t.Errorf("git_create_branch = %q", got)
	}
	if rev("feature") != rev("main") {
		t.Error("feature does not start at main")
	}
	for _, base := range []string{"v1", "origin/topic", "feature"} {
		name := "from-" + strings.ReplaceAll(base, "/", "-")
		if got, want := s.ok("git_create_branch", m{"branch_name": name, "base_branch": base}), "Created branch '"+name+"' from '"+base+"'"; got != want {
			t.Errorf("git_create_branch from %s = %q", base, got)
		}
		if rev(name) != rev(base+"^{commit}") {
			t.Errorf("%s does not start at %s", name, base)
		}
	}
	if got, _ := gitRun(dir, nil, "config", "--get-regexp", "^branch\\."); got != "" {
		t.Errorf("git_create_branch set up tracking: %q", got)
	}
	s.refused("git_create_branch", m{"branch_name": "feature"})                    // exists
	s.refused("git_create_branch", m{"branch_name": "x", "base_branch": "HEAD~1"}) // not a branch or tag
	s.refused("git_create_branch", m{"branch_name": "bad..name"})
	s.refused("git_create_branch", m{"branch_name": "y", "base_branch": "nope"})

	if got := s.ok("git_checkout", m{"branch_name": "from-v1"}); got != "Switched to branch 'from-v1'" {
		t.Errorf("git_checkout = %q", got)
	}
	if got := trimNL(gitCmd(t, dir, "symbolic-ref", "--short", "HEAD")); got != "from-v1" {
		t.Errorf("HEAD is on %q", got)
	}
	s.refused("git_checkout", m{"branch_name": "nonexistent-branch"})
	s.refused("git_checkout", m{"branch_name": "topic"}) // no guessing a remote branch
	s.ok("git_checkout", m{"branch_name": rev("main")})
	if out, err := gitRun(dir, nil, "symbolic-ref", "-q", "HEAD"); err == nil {
		t.Errorf("HEAD is not detached after checking out a commit: %s", out)
	}
	if got := s.refused("git_create_branch", m{"branch_name": "z"}); !strings.Contains(got, "detached") {
		t.Errorf("git_create_branch on a detached HEAD: %q", got)
	}
}

func TestOutputIsBounded(t *testing.T) {
	dir := newRepo(t)
	write(t, dir, "hello.txt", strings.Repeat("a long line of text é\n", 500))
	s := serve(t, dir, &git.Options{MaxOutput: 300})
	got := s.ok("git_diff_unstaged", m{})
	if !strings.Contains(got, "[output cut at 300 bytes") || len(got) > 300+200 {
		t.Errorf("a cut diff = %q", got)
	}
	for range 3 {
		write(t, dir, "hello.txt", strings.Repeat("x", 50)+gitCmd(t, dir, "rev-parse", "HEAD"))
		gitCmd(t, dir, "commit", "-qam", strings.Repeat("a long message ", 10))
	}
	if got := s.refused("git_log", m{"max_count": 5000}); !strings.Contains(got, "max_count: 5000 is greater than the maximum 1000") {
		t.Errorf("max_count over the limit: %q", got)
	}
	res := s.result("git_log", m{"max_count": 1000})
	var lr git.LogResult
	json.Unmarshal(res.StructuredContent, &lr)
	text, _ := s.call("git_log", m{"max_count": 1000})
	if !strings.Contains(text, "[output cut at 300 bytes") {
		t.Errorf("a cut log = %q", text)
	}
	if len(lr.Commits) == 0 || len(lr.Commits) >= 4 {
		t.Errorf("a cut log has %d complete commits", len(lr.Commits))
	}
	for _, c := range lr.Commits {
		if len(c.Hash) != 40 || c.Message == "" {
			t.Errorf("a cut log holds a broken commit: %+v", c)
		}
	}
}

func TestOpen(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	if _, err := git.Open(ctx, filepath.Join(dir, "sub"), nil); err == nil {
		t.Error("Open accepted a directory inside a repository")
	}
	if _, err := git.Open(ctx, t.TempDir(), nil); err == nil {
		t.Error("Open accepted a directory that is no repository")
	}
	if _, err := git.Open(ctx, dir, &git.Options{Git: "no-such-git-program"}); err == nil {
		t.Error("Open accepted a missing git program")
	}
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(dir, link)
	r, err := git.Open(ctx, link, nil)
	if err != nil {
		t.Fatal(err)
	}
	if real, _ := filepath.EvalSymlinks(dir); r.Root() != real {
		t.Errorf("Root() = %s, want %s", r.Root(), real)
	}
}

func TestToolList(t *testing.T) {
	s := serve(t, newRepo(t), &git.Options{AllowPush: true})
	want := map[string][3]bool{ // readOnly, destructive, idempotent (official hints)
		"git_status": {true, false, true}, "git_diff_unstaged": {true, false, true}, "git_diff_staged": {true, false, true},
		"git_diff": {true, false, true}, "git_commit": {false, false, false}, "git_add": {false, false, true},
		"git_reset": {false, true, true}, "git_log": {true, false, true}, "git_create_branch": {false, false, false},
		"git_checkout": {false, false, false}, "git_show": {true, false, true}, "git_branch": {true, false, true},
		// Ours: the remote ones reach outside (openWorldHint, below).
		"git_fetch": {false, false, true}, "git_pull": {false, false, false}, "git_push": {false, false, false},
		"git_stash": {false, false, false}, "git_tag": {false, false, false}, "git_merge": {false, false, false},
	}
	remote := map[string]bool{"git_fetch": true, "git_pull": true, "git_push": true}
	n := 0
	for tool, err := range s.sess.Tools(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		h, ok := want[tool.Name]
		a := tool.Annotations
		if !ok || a == nil || *a.ReadOnlyHint != h[0] || *a.DestructiveHint != h[1] || *a.IdempotentHint != h[2] || *a.OpenWorldHint != remote[tool.Name] {
			t.Errorf("tool %s: unexpected or wrong hints %+v", tool.Name, a)
		}
	}
	if n != len(want) {
		t.Errorf("%d tools, want %d", n, len(want))
	}
	if !strings.Contains(s.sess.Instructions(), s.repo.Root()) {
		t.Errorf("the instructions do not name the repository: %q", s.sess.Instructions())
	}
}

// TestCommitConcludesAMergeWithNoChange: git_commit refuses a commit with
// nothing staged before git runs, except when a merge is being concluded,
// which may record no change (a merge with -s ours).
func TestCommitConcludesAMergeWithNoChange(t *testing.T) {
	dir := newRepo(t)
	gitCmd(t, dir, "checkout", "-q", "-b", "other")
	write(t, dir, "other.txt", "other\n")
	gitCmd(t, dir, "add", "other.txt")
	commitAt(t, dir, "other", "2024-01-02T10:00:00+00:00")
	gitCmd(t, dir, "checkout", "-q", "main")
	s := serve(t, dir, nil)
	if got := s.refused("git_commit", m{"message": "nothing"}); !strings.Contains(got, "nothing to commit") {
		t.Errorf("git_commit with nothing staged: %q", got)
	}
	gitCmd(t, dir, "merge", "-q", "--no-commit", "-s", "ours", "other")
	s.ok("git_commit", m{"message": "merge other, keeping ours"})
	if parents := strings.Fields(gitCmd(t, dir, "log", "-1", "--format=%P")); len(parents) != 2 {
		t.Errorf("HEAD has parents %v, want a merge", parents)
	}
}
