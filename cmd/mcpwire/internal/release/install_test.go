package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/modfile"
)

// testVersion is the version the tests publish the committed tree at:
// the one its go.mod files require of each other (checkRequirements),
// that of the next release.
var testVersion = func() string {
	data, err := os.ReadFile("../../go.mod") // cmd/mcpwire/go.mod
	if err != nil {
		panic(err)
	}
	f, err := modfile.ParseLax("go.mod", data, nil)
	if err != nil {
		panic(err)
	}
	for _, r := range f.Require {
		if r.Mod.Path == "github.com/mcpwire/mcpwire" {
			return r.Mod.Version
		}
	}
	panic("cmd/mcpwire/go.mod does not require github.com/mcpwire/mcpwire")
}()

// forbidden are the modules a program that uses only the library must
// never download: the command line's, the servers' drivers and the
// Redis store's dependencies.
var forbidden = regexp.MustCompile(`(?m)^(github\.com/chromedp/|github\.com/spf13/cobra |go\.opentelemetry\.io/|google\.golang\.org/grpc |google\.golang\.org/protobuf |github\.com/redis/go-redis/|modernc\.org/)`)

// published publishes the committed tree (HEAD) into a module proxy once
// for the tests of this file, as a release tag would publish it.
func published(t *testing.T) (proxy string, tr *tree) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the command from a module proxy: not in -short")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	repo, err := repoRoot()
	if err != nil {
		t.Skip(err)
	}
	tmp := t.TempDir()
	tr, err = exportTree(repo, "HEAD", filepath.Join(tmp, "tree"))
	if err != nil {
		t.Fatal(err)
	}
	proxy = filepath.Join(tmp, "proxy")
	if _, err := writeProxy(tr, proxy, testVersion); err != nil {
		t.Fatal(err)
	}
	return proxy, tr
}

// goCmd runs the go command in dir as a user would with proxy as the
// module proxy, in a GOPATH of its own.
func goCmd(t *testing.T, proxy, gopath, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	// The flags of a release's linux/amd64 build, so that what one
	// compiles the other finds in the build cache.
	cmd.Env = append(proxyEnv(proxy, gopath), "GOBIN="+filepath.Join(gopath, "bin"), "GOFLAGS=-modcacherw -trimpath", "CGO_ENABLED=0")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("go %s (%.1fs)", strings.Join(args, " "), time.Since(start).Seconds())
	if err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}

// TestInstallFromProxy: with the committed tree published at v0.99.0,
// go install …/cmd/mcpwire@v0.99.0 works in a fresh GOPATH, the binary
// says v0.99.0 and serves the filesystem; a user's module that imports
// the server, the client and a transport downloads none of the command
// line's dependencies, and one that imports the otel module builds.
func TestInstallFromProxy(t *testing.T) {
	proxy, _ := published(t)
	gopath := filepath.Join(t.TempDir(), "gopath")
	t.Cleanup(func() { removeAll(gopath) })
	home := t.TempDir()

	goCmd(t, proxy, gopath, home, "install", command+"@"+testVersion)
	bin := filepath.Join(gopath, "bin", "mcpwire")
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil || string(out) != "mcpwire "+testVersion+"\n" {
		t.Errorf("mcpwire --version: %q, %v; want %q", out, err, "mcpwire "+testVersion+"\n")
	}
	out, err = exec.Command(bin, "version", "--json").CombinedOutput()
	var v struct{ Version, Module string }
	if err != nil || json.Unmarshal(out, &v) != nil || v.Version != testVersion || v.Module != command {
		t.Errorf("mcpwire version --json: %s, %v", out, err)
	}
	served := t.TempDir()
	if err := os.WriteFile(filepath.Join(served, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = exec.Command(bin, "tools", "--", bin, "serve", "filesystem", served).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "read_text_file") {
		t.Errorf("mcpwire tools -- mcpwire serve filesystem DIR: %v\n%s", err, out)
	}
	out, err = exec.Command(bin, "call", "read_text_file", "--args", `{"path":"`+filepath.Join(served, "notes.txt")+`"}`, "--", bin, "serve", "filesystem", served).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "hello") {
		t.Errorf("mcpwire call read_text_file: %v\n%s", err, out)
	}

	t.Run("library user", func(t *testing.T) {
		dir := userModule(t, "example.com/weather", `package main

import (
	"context"
	"os/exec"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/command"
	"github.com/mcpwire/mcpwire/transport/stdio"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

func main() {
	srv := server.New(mcp.Implementation{Name: "weather", Version: "1.0.0"}, nil)
	_ = streamable.NewHandler(srv, nil)
	c := client.New(mcp.Implementation{Name: "c", Version: "1"}, nil)
	_, _ = c.Connect(context.Background(), command.New(exec.Command("true"), nil))
	_ = srv.Run(context.Background(), stdio.New(nil))
}
`)
		goCmd(t, proxy, gopath, dir, "get", "github.com/mcpwire/mcpwire@"+testVersion)
		goCmd(t, proxy, gopath, dir, "mod", "tidy")
		goCmd(t, proxy, gopath, dir, "build", "-o", os.DevNull, ".")
		sum, err := os.ReadFile(filepath.Join(dir, "go.sum"))
		if err != nil {
			t.Fatal(err)
		}
		if bad := forbidden.FindAllString(string(sum), -1); len(bad) > 0 {
			t.Errorf("the go.sum of a library user names %q:\n%s", bad, sum)
		}
		if !strings.Contains(string(sum), "github.com/mcpwire/mcpwire "+testVersion+" h1:") {
			t.Errorf("go.sum does not name the library:\n%s", sum)
		}
	})
	t.Run("otel user", func(t *testing.T) {
		dir := userModule(t, "example.com/traced", `package main

import (
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/otel"
	"github.com/mcpwire/mcpwire/server"
)

func main() {
	inst := otel.New(nil)
	_ = server.New(mcp.Implementation{Name: "traced", Version: "1.0.0"}, inst.Server(nil))
}
`)
		goCmd(t, proxy, gopath, dir, "get", "github.com/mcpwire/mcpwire/otel@"+testVersion)
		goCmd(t, proxy, gopath, dir, "mod", "tidy")
		goCmd(t, proxy, gopath, dir, "build", "-o", os.DevNull, ".")
	})
}

// userModule writes a module of a user: go.mod and main.go.
func userModule(t *testing.T, path, main string) string {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module "+path+"\n\ngo 1.26.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestModulesAlone: each module of the tree, seen alone as a user's build
// sees it once published (outside the workspace, its siblings from the
// proxy), has a tidy go.mod, builds and passes vet. Its go.sum may lack
// only the lines of mcpwire's own modules, which name zips that do not
// exist before the release.
func TestModulesAlone(t *testing.T) {
	proxy, tr := published(t)
	mods, err := modules(tr)
	if err != nil {
		t.Fatal(err)
	}
	gopath := filepath.Join(t.TempDir(), "gopath")
	t.Cleanup(func() { removeAll(gopath) })
	for _, m := range mods {
		t.Run(m.Path, func(t *testing.T) {
			dir := filepath.Join(tr.Dir, filepath.FromSlash(m.Dir))
			before := readFiles(t, dir)
			goCmd(t, proxy, gopath, dir, "mod", "tidy")
			after := readFiles(t, dir)
			if before["go.mod"] != after["go.mod"] {
				t.Errorf("%s/go.mod is not tidy: go mod tidy makes it\n%s", m.Dir, after["go.mod"])
			}
			if own := regexp.MustCompile(`(?m)^github\.com/mcpwire/mcpwire[^ ]* .*\n`); own.ReplaceAllString(before["go.sum"], "") != own.ReplaceAllString(after["go.sum"], "") {
				t.Errorf("%s/go.sum is not tidy: go mod tidy makes it\n%s", m.Dir, after["go.sum"])
			}
			goCmd(t, proxy, gopath, dir, "build", "./...")
		})
	}
}

func readFiles(t *testing.T, dir string) map[string]string {
	m := map[string]string{}
	for _, n := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		m[n] = string(b)
	}
	return m
}
