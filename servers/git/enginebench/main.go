// Command enginebench measures the two engines servers/git could stand
// on, the git program and github.com/go-git/go-git/v5, on what the tools
// do: status, diffs, show and log of a repository with a few thousand
// commits. It is its own module so that go-git never enters mcpwire's.
//
//	cd servers/git/enginebench && go run . [-commits 3000] [-files 1000] [-runs 15]
//
// It prints the median time of each operation with each engine, and
// whether the two engines' results agree.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

func main() {
	commits := flag.Int("commits", 3000, "commits in the repository")
	files := flag.Int("files", 1000, "files in the repository")
	runs := flag.Int("runs", 15, "runs of each operation (the median is shown)")
	flag.Parse()
	dir, err := os.MkdirTemp("", "enginebench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	start := time.Now()
	makeRepo(dir, *commits, *files)
	fmt.Printf("repository: %d commits, %d files (made in %v); git %s", *commits+1, *files, time.Since(start).Round(time.Millisecond), run(dir, "version"))
	compare(dir, *runs)
}

func run(dir string, args ...string) string {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		log.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}

// makeRepo writes the repository with git fast-import: each commit after
// the first changes three files; then it dirties the working tree (five
// changed files, two new ones).
func makeRepo(dir string, commits, files int) {
	run(dir, "init", "-q", "-b", "main")
	var in bytes.Buffer
	blob := func(s string) { fmt.Fprintf(&in, "data %d\n%s\n", len(s), s) }
	path := func(f int) string { return fmt.Sprintf("d%d/f%d.txt", f%20, f) }
	body := func(f, c, k int) string {
		return fmt.Sprintf("line 1 of file %d\nline 2 changed at %d/%d\nline 3\nline 4\nline 5\n", f, c, k)
	}
	for c := 0; c <= commits; c++ {
		fmt.Fprintf(&in, "commit refs/heads/main\ncommitter Bench <b@example.com> %d +0000\n", 1600000000+c*600)
		blob(fmt.Sprintf("change %d", c))
		if c == 0 {
			for f := 1; f <= files; f++ {
				fmt.Fprintf(&in, "M 100644 inline %s\n", path(f))
				blob(body(f, 0, 0))
			}
			continue
		}
		for k := 1; k <= 3; k++ {
			f := (c*7+k*131)%files + 1
			fmt.Fprintf(&in, "M 100644 inline %s\n", path(f))
			blob(body(f, c, k))
		}
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir, cmd.Stdin = dir, &in
	if out, err := cmd.CombinedOutput(); err != nil {
		log.Fatalf("fast-import: %v\n%s", err, out)
	}
	run(dir, "reset", "-q", "--hard", "main")
	for _, f := range []int{3, 77, 400, 801, 999} {
		p := filepath.Join(dir, path(f%files+1))
		b, _ := os.ReadFile(p)
		os.WriteFile(p, append(b, "edit\n"...), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "untracked1.txt"), []byte("new\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "d3", "untracked2.txt"), []byte("new\n"), 0o644)
}

func median(n int, f func() string) (time.Duration, string) {
	var ds []time.Duration
	var out string
	for range n {
		t := time.Now()
		out = f()
		ds = append(ds, time.Since(t))
	}
	slices.Sort(ds)
	return ds[len(ds)/2], out
}

func must[T any](v T, err error) T {
	if err != nil {
		log.Fatal(err)
	}
	return v
}

func compare(dir string, n int) {
	row := func(name string, a, b time.Duration, note string) {
		fmt.Printf("%-32s git %8.2f ms  go-git %8.2f ms  go-git/git %6.2fx  %s\n", name,
			float64(a.Microseconds())/1000, float64(b.Microseconds())/1000, float64(b)/float64(a), note)
	}
	repo := must(gogit.PlainOpen(dir))

	a, gs := median(n, func() string { return run(dir, "status", "--porcelain=v1") })
	b, ggs := median(n, func() string { return must(must(repo.Worktree()).Status()).String() })
	row("status (dirty tree)", a, b, fmt.Sprintf("entries: git %d, go-git %d", strings.Count(gs, "\n"), strings.Count(ggs, "\n")))

	a, _ = median(n, func() string { return run(dir, "diff", "--unified=3") })
	fmt.Printf("%-32s git %8.2f ms  go-git: no API (worktree-to-index patches must be assembled by hand)\n", "diff of the working tree", float64(a.Microseconds())/1000)

	head := must(repo.CommitObject(must(repo.Head()).Hash()))
	old := must(repo.CommitObject(*must(repo.ResolveRevision(plumbing.Revision("HEAD~50")))))
	a, gd := median(n, func() string { return run(dir, "diff", "--unified=3", "HEAD~50", "HEAD") })
	b, ggd := median(n, func() string { return must(old.Patch(head)).String() })
	row("diff HEAD~50 HEAD", a, b, fmt.Sprintf("same text as git: %v (%d vs %d bytes)", gd == ggd, len(gd), len(ggd)))

	a, _ = median(n, func() string { return run(dir, "show", "--format=%H", "HEAD") })
	b, _ = median(n, func() string { return must(must(head.Parent(0)).Patch(head)).String() })
	row("show HEAD", a, b, "")

	a, _ = median(n, func() string { return run(dir, "log", "-n", "10", "--format=%H%n%an%n%aI%n%B") })
	b, _ = median(n, func() string {
		it := must(repo.Log(&gogit.LogOptions{}))
		defer it.Close()
		var sb strings.Builder
		for range 10 {
			c, err := it.Next()
			if err != nil {
				break
			}
			fmt.Fprintf(&sb, "%s\n%s\n%s\n%s\n", c.Hash, c.Author.Name, c.Author.When, c.Message)
		}
		return sb.String()
	})
	row("log -n 10", a, b, "")

	since, until := time.Unix(1600000000+1500*600, 0), time.Unix(1600000000+1510*600, 0)
	a, gl := median(n, func() string {
		return run(dir, "log", "--since="+since.Format(time.RFC3339), "--until="+until.Format(time.RFC3339), "--format=%H")
	})
	b, ggl := median(n, func() string {
		it := must(repo.Log(&gogit.LogOptions{Since: &since, Until: &until}))
		var sb strings.Builder
		it.ForEach(func(c *object.Commit) error { fmt.Fprintf(&sb, "%s\n", c.Hash); return nil })
		return sb.String()
	})
	row("log --since --until", a, b, fmt.Sprintf("same commits: %v (%d)", gl == ggl, strings.Count(gl, "\n")))

	a, _ = median(5, func() string { return run(dir, "rev-list", "--count", "HEAD") })
	b, _ = median(5, func() string {
		k := 0
		must(repo.Log(&gogit.LogOptions{})).ForEach(func(*object.Commit) error { k++; return nil })
		return fmt.Sprint(k)
	})
	row("walk every commit", a, b, "")
}
