// Command release builds the release archives of mcpwire, or the module
// proxy a release would publish:
//
//	scripts/release v0.99.0                  # dist/v0.99.0: six archives and SHA256SUMS
//	scripts/release -proxy DIR v0.99.0       # the modules of HEAD as a file module proxy
//	scripts/release -set-version v1.0.0      # make the go.mod files require v1.0.0 of each other
//	scripts/tidy                             # go mod tidy in every module (uses -proxy -worktree)
//
// A release is built the way a user's `go install
// github.com/mcpwire/mcpwire/cmd/mcpwire@VERSION` builds it, so that the
// archives hold the same program: the committed tree (git archive, never
// the work tree) is published at VERSION into a module proxy in a
// temporary directory, and `go install -trimpath` builds the command from
// there for each platform, with CGO_ENABLED=0, outside any workspace,
// with a module cache of its own. The binary's version is then the
// module's (mcpwire --version prints VERSION), set by no -ldflags, and
// nothing of the machine or the directory gets into it. The one linker
// flag is -s -w, as release builds commonly have it: the archives' binaries
// leave out the symbol table and the DWARF debugging information that
// go install keeps (21.5 MB instead of 31.0 for linux/amd64); the build
// information, and so the version, stays. The archives
// (tar.gz, zip for windows) hold the binary, README.md, LICENSE and
// CHANGELOG.md, every file with the commit's date and no owner; the same
// commit built twice gives the same bytes (.ci/run checks it).
//
// The modules of the repository require each other at the version of
// the next release (go.work points that version at the tree for
// development); -set-version moves them all to a new one, the first step
// of a release: set, commit, tag VERSION and DIR/VERSION for the module
// in each DIR (cmd/mcpwire/VERSION, otel/VERSION, ...), push, then build
// the archives.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"golang.org/x/mod/semver"
)

// targets are the platforms of a release, GOOS/GOARCH.
var targets = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"}

// command is the package a release builds.
const command = "github.com/mcpwire/mcpwire/cmd/mcpwire"

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "release: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fl := flag.NewFlagSet("release", flag.ContinueOnError)
	out := fl.String("o", "", "the directory of the archives (default dist/VERSION)")
	rev := fl.String("rev", "HEAD", "the commit to release")
	only := fl.String("targets", strings.Join(targets, ","), "the platforms, GOOS/GOARCH, comma-separated")
	proxyDir := fl.String("proxy", "", "write the modules of the commit as a module proxy into `DIR`, and build nothing")
	worktree := fl.Bool("worktree", false, "with -proxy: publish the work tree as it is (tracked and untracked files, not ignored ones) instead of a commit, for scripts/tidy")
	setVersion := fl.Bool("set-version", false, "make the go.mod files of the work tree require VERSION of each other, and go.work point VERSION at the tree")
	fl.Usage = func() {
		fmt.Fprintf(fl.Output(), "usage: release [-o DIR] [-rev REV] [-targets LIST] VERSION\n       release -proxy DIR VERSION\n       release -set-version VERSION\n")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return err
	}
	if fl.NArg() != 1 {
		fl.Usage()
		return errors.New("name one version, as in v0.99.0")
	}
	version := fl.Arg(0)
	if !semver.IsValid(version) || semver.Build(version) != "" {
		return fmt.Errorf("%q is not a module version (v0.99.0, v1.2.3-rc.1)", version)
	}
	repo, err := repoRoot()
	if err != nil {
		return err
	}
	if *setVersion {
		return setVersions(repo, version)
	}
	tmp, err := os.MkdirTemp("", "mcpwire-release-")
	if err != nil {
		return err
	}
	defer removeAll(tmp)
	var t *tree
	if *worktree {
		if *proxyDir == "" {
			return errors.New("-worktree goes with -proxy: a release is built from a commit")
		}
		t, err = exportWorktree(repo, filepath.Join(tmp, "tree"))
	} else {
		t, err = exportTree(repo, *rev, filepath.Join(tmp, "tree"))
	}
	if err != nil {
		return err
	}
	if *proxyDir != "" {
		mods, err := writeProxy(t, *proxyDir, version)
		if err != nil {
			return err
		}
		for _, m := range mods {
			fmt.Printf("%s@%s\n", m.Path, version)
		}
		return nil
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join(repo, "dist", version)
	}
	proxy := filepath.Join(tmp, "proxy")
	if _, err := writeProxy(t, proxy, version); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var names []string
	for _, target := range strings.Split(*only, ",") {
		goos, goarch, ok := strings.Cut(strings.TrimSpace(target), "/")
		if !ok {
			return fmt.Errorf("target %q: want GOOS/GOARCH", target)
		}
		bin, err := install(tmp, proxy, version, goos, goarch)
		if err != nil {
			return err
		}
		name, err := archive(dir, t, version, goos, goarch, bin)
		if err != nil {
			return err
		}
		fmt.Println(filepath.Join(dir, name))
		names = append(names, name)
	}
	return writeSums(dir, names)
}

// install builds the command at version from proxy, for goos/goarch, as
// go install would for a user there, and returns the binary's path.
func install(tmp, proxy, version, goos, goarch string) (string, error) {
	gopath := filepath.Join(tmp, "gopath")
	cmd := exec.Command("go", "install", "-trimpath", "-ldflags=-s -w", command+"@"+version)
	cmd.Dir = tmp
	cmd.Env = append(proxyEnv(proxy, gopath), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go install %s@%s for %s/%s: %w\n%s", command, version, goos, goarch, err, out)
	}
	bin := filepath.Join(gopath, "bin")
	if goos != runtime.GOOS || goarch != runtime.GOARCH {
		bin = filepath.Join(bin, goos+"_"+goarch)
	}
	name := "mcpwire"
	if goos == "windows" {
		name += ".exe"
	}
	return filepath.Join(bin, name), nil
}

// proxyEnv is the environment of a go command that sees the modules of
// proxy as a user sees them once published: outside any workspace, with
// a GOPATH and module cache of its own. Other modules come from the
// machine's module cache when it has them, else from its GOPROXY; their
// checksums are checked against the go.sum files of the modules, the
// checksum database is not asked about mcpwire's (it has never seen
// these zips).
func proxyEnv(proxy, gopath string) []string {
	goproxy := "file://" + filepath.ToSlash(proxy)
	if out, err := exec.Command("go", "env", "GOMODCACHE", "GOPROXY").Output(); err == nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) == 2 {
			if cache := filepath.Join(lines[0], "cache", "download"); isDir(cache) {
				goproxy += ",file://" + filepath.ToSlash(cache)
			}
			if p := lines[1]; p != "" && p != "off" {
				goproxy += "," + p
			}
		}
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GOPATH", "GOMODCACHE", "GOFLAGS", "GOWORK", "GOPROXY", "GONOSUMDB", "GOPRIVATE", "GONOPROXY", "GOBIN", "GOOS", "GOARCH", "CGO_ENABLED", "GOTOOLCHAIN":
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"GOPATH="+gopath,
		"GOMODCACHE="+filepath.Join(gopath, "pkg", "mod"),
		"GOFLAGS=-modcacherw",
		"GOWORK=off",
		"GOPROXY="+goproxy,
		"GONOSUMDB=github.com/mcpwire/mcpwire",
		"GOTOOLCHAIN=local",
	)
}

// archive writes the archive of one platform into dir and returns its
// name.
func archive(dir string, t *tree, version, goos, goarch, bin string) (string, error) {
	top := fmt.Sprintf("mcpwire_%s_%s_%s", version, goos, goarch)
	name := top + ".tar.gz"
	exe := "mcpwire"
	if goos == "windows" {
		name, exe = top+".zip", "mcpwire.exe"
	}
	entries := []entry{{Name: exe, Src: bin, Exec: true}}
	for _, doc := range []string{"README.md", "LICENSE", "CHANGELOG.md"} {
		src := filepath.Join(t.Dir, doc)
		if !isFile(src) {
			return "", fmt.Errorf("the commit has no %s, which every archive holds", doc)
		}
		entries = append(entries, entry{Name: doc, Src: src})
	}
	return name, writeArchive(filepath.Join(dir, name), top, t.Time, entries)
}

// repoRoot is the top of the git work tree of the current directory.
func repoRoot() (string, error) {
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", fmt.Errorf("not in a git work tree of mcpwire: %w%s", err, stderrOf(err))
	}
	return strings.TrimSpace(string(out)), nil
}

func isDir(p string) bool  { st, err := os.Stat(p); return err == nil && st.IsDir() }
func isFile(p string) bool { st, err := os.Stat(p); return err == nil && st.Mode().IsRegular() }

// removeAll removes a temporary directory, module cache included (whose
// files are read-only without -modcacherw).
func removeAll(dir string) {
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
	os.RemoveAll(dir)
}
