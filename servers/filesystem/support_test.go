package filesystem

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/servers/filesystem/internal/peers"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/command"
	"github.com/mcpwire/mcpwire/transport/memory"
	"github.com/mcpwire/mcpwire/transport/streamable"
	"go.uber.org/goleak"
)

// TestMain checks that the tests leave no goroutine behind, and removes
// the mcpwire binary they built.
func TestMain(m *testing.M) {
	code := m.Run()
	if bin.dir != "" {
		os.RemoveAll(bin.dir)
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// bin is the mcpwire command, built once for the tests that run
// mcpwire serve filesystem.
var bin struct {
	once      sync.Once
	dir, path string
	err       error
}

func mcpwireBinary(t testing.TB) string {
	t.Helper()
	bin.once.Do(func() {
		if bin.dir, bin.err = os.MkdirTemp("", "mcpwire-bin"); bin.err != nil {
			return
		}
		bin.path = filepath.Join(bin.dir, "mcpwire")
		out, err := exec.Command("go", "build", "-o", bin.path, "github.com/mcpwire/mcpwire/cmd/mcpwire").CombinedOutput()
		if err != nil {
			bin.err = fmt.Errorf("building mcpwire: %v\n%s", err, out)
		}
	})
	if bin.err != nil {
		t.Fatal(bin.err)
	}
	return bin.path
}

// startServe runs mcpwire serve filesystem DIRS... as a process, over
// stdio, or over Streamable HTTP when http is set, and connects to it in
// the given protocol revision.
func startServe(t testing.TB, dirs []string, http bool, version mcp.Version, copts *client.Options) *client.Session {
	t.Helper()
	path := mcpwireBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	var o client.Options
	if copts != nil {
		o = *copts
	}
	o.Version = version
	var tr transport.Transport
	if !http {
		tr = command.New(exec.Command(path, append([]string{"serve", "filesystem"}, dirs...)...), nil)
	} else {
		cmd := exec.Command(path, append([]string{"serve", "filesystem", "--http", "127.0.0.1:0"}, dirs...)...)
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// One reader for the pipe: the first line is the address, the
		// rest is drained until the process ends.
		br := bufio.NewReader(stderr)
		line, err := br.ReadString('\n')
		exited := make(chan error, 1)
		go func() {
			io.Copy(io.Discard, br) // what follows the first line
			exited <- cmd.Wait()
		}()
		t.Cleanup(func() {
			cmd.Process.Signal(os.Interrupt)
			select {
			case err := <-exited:
				if err != nil {
					t.Errorf("mcpwire serve --http: %v", err)
				}
			case <-time.After(callTimeout):
				cmd.Process.Kill()
				t.Errorf("mcpwire serve --http did not stop on an interrupt")
				<-exited
			}
		})
		m := servingLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("mcpwire serve --http wrote %q (%v), not its address", line, err)
		}
		tr = streamable.NewTransport(m[1], nil)
	}
	cs, err := client.New(clientInfo, &o).Connect(ctx, tr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

var servingLine = regexp.MustCompile(`^mcpwire: serving filesystem on (http://\S+/mcp)\n$`)

// callTimeout bounds every call of a test: only a hung server reaches it.
const callTimeout = 60 * time.Second

var clientInfo = mcp.Implementation{Name: "filesystem-test", Version: "1.0.0"}

// startOurs serves an FS over dirs to a client in this process, in the
// given protocol revision.
func startOurs(t testing.TB, dirs []string, opts *Options, version mcp.Version, copts *client.Options) *client.Session {
	t.Helper()
	fsys, err := New(dirs, opts)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := fsys.Server(nil)
	if err != nil {
		t.Fatal(err)
	}
	ct, st := memory.NewPair(nil)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	ssess, err := srv.Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	var o client.Options
	if copts != nil {
		o = *copts
	}
	o.Version = version
	cs, err := client.New(clientInfo, &o).Connect(ctx, ct)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ssess.Close()
		ssess.Wait()
		srv.Close()
		fsys.Close()
	})
	return cs
}

// startOfficial starts the official server from npm over dirs, in the
// legacy era.
func startOfficial(t testing.TB, dirs []string, copts *client.Options) *client.Session {
	t.Helper()
	return startOfficialArgs(t, dirs, "2025-11-25", copts)
}

// startOfficialArgs starts the official server from npm with the command
// line args (its options and directories), in the given revision.
func startOfficialArgs(t testing.TB, args []string, version mcp.Version, copts *client.Options) *client.Session {
	t.Helper()
	node, server := peers.Filesystem(t)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	var o client.Options
	if copts != nil {
		o = *copts
	}
	o.Version = version
	if o.ProbeTimeout == 0 {
		// Node starts in seconds on a loaded machine; the modern probe
		// (server/discover) is its first request.
		o.ProbeTimeout = callTimeout
	}
	cmd := exec.Command(node, append([]string{server}, args...)...)
	cs, err := client.New(clientInfo, &o).Connect(ctx, command.New(cmd, nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callResult is a tool result made comparable: its JSON, with the root of
// the tree replaced by {root}.
type callResult struct {
	IsError bool
	Text    string // the text of a single text block, or the JSON of the content
	JSON    string // the whole result
}

func callTool(t testing.TB, cs *client.Session, root, tool string, args map[string]any) callResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	raw, _ := json.Marshal(expand(args, root))
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: raw})
	if err != nil {
		t.Fatalf("%s %s: %v", tool, raw, err)
	}
	res.Meta = nil
	res.ResultType = ""
	out := callResult{IsError: res.IsError}
	if len(res.Content) == 1 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			out.Text = tc.Text
		}
	}
	if out.Text == "" {
		b, _ := json.Marshal(res.Content)
		out.Text = string(b)
	}
	b, _ := json.Marshal(res)
	out.JSON = string(b)
	for _, s := range []*string{&out.Text, &out.JSON} {
		if root == "" {
			break
		}
		*s = strings.ReplaceAll(*s, root, "{root}")
		*s = strings.ReplaceAll(*s, strings.TrimPrefix(fileURL(root), "file://"), "{root}")
		*s = strings.ReplaceAll(*s, filepath.Dir(root), "{parent}")
		*s = tempName.ReplaceAllString(*s, ".{random}.tmp")
	}
	return out
}

// tempName matches the temporary files of write_file and edit_file.
var tempName = regexp.MustCompile(`\.[0-9a-f]{32}\.tmp`)

// expand replaces {root} in every string of v.
func expand(v any, root string) any {
	switch v := v.(type) {
	case string:
		return strings.ReplaceAll(v, "{root}", root)
	case []string:
		out := make([]string, len(v))
		for i, s := range v {
			out[i] = strings.ReplaceAll(s, "{root}", root)
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			out[k] = expand(x, root)
		}
		return out
	}
	return v
}

// snapshot describes a tree: each entry's kind, permissions and content
// (or link target), by relative path.
func snapshot(t testing.TB, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		desc := fmt.Sprintf("%v", fi.Mode())
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			desc += " -> " + target
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			desc += fmt.Sprintf(" %d %s", len(b), hex.EncodeToString(sum[:8]))
		}
		out[rel] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffSnapshots(a, b map[string]string) string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out bytes.Buffer
	for _, k := range keys {
		if a[k] != b[k] {
			fmt.Fprintf(&out, "  %s: %q vs %q\n", k, a[k], b[k])
		}
	}
	return out.String()
}
