package cli

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestBridgeTypeScriptSDK puts mcpwire bridge between the official
// TypeScript SDK client and both servers, mcpwire's everything-server and
// the reference server, in both directions: a Streamable HTTP client to a
// stdio server (bridge --listen ADDR -- COMMAND), and a stdio client to a
// Streamable HTTP server (bridge --url URL). The client gets what it gets
// over a direct connection: tools, results, progress, log messages, and
// the server's questions (sampling, elicitation) answered. Interrupted,
// the bridge exits 0 and leaves no server process behind.
func TestBridgeTypeScriptSDK(t *testing.T) {
	node, everything := interopPeers(t)
	if testing.Short() {
		t.Skip("builds the everything-server")
	}
	bin := mcpwireProgram(t)
	ev := filepath.Join(t.TempDir(), "everything-server")
	if out, err := exec.Command("go", "build", "-o", ev, "../../../../conformance/everything-server").CombinedOutput(); err != nil {
		t.Fatalf("building the everything-server: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	for _, srv := range []struct {
		suite string
		stdio []string
		http  func(port string) *exec.Cmd
	}{
		{"everything", []string{ev, "-stdio"}, func(port string) *exec.Cmd {
			return exec.CommandContext(ctx, ev, "-http", "127.0.0.1:"+port)
		}},
		{"reference", []string{node, everything, "stdio"}, func(port string) *exec.Cmd {
			cmd := exec.CommandContext(ctx, node, everything, "streamableHttp")
			cmd.Env = append(os.Environ(), "PORT="+port)
			return cmd
		}},
	} {
		t.Run(srv.suite+"/stdio-server-over-http", func(t *testing.T) {
			direct := runNode(t, ctx, node, "", append([]string{"bridge-client.mjs", srv.suite, "stdio"}, srv.stdio...)...)
			b := startBridgeProcess(t, ctx, bin, append([]string{"bridge", "--listen", "127.0.0.1:0", "--"}, srv.stdio...)...)
			bridged := runNode(t, ctx, node, "", "bridge-client.mjs", srv.suite, "http", b.url)
			if bridged != direct {
				t.Errorf("through the bridge the client got\n%s\ndirectly\n%s", bridged, direct)
			}
			b.interrupt(t)
		})
		t.Run(srv.suite+"/http-server-over-stdio", func(t *testing.T) {
			port := freePort(t)
			cmd := srv.http(port)
			var srvErr bytes.Buffer
			cmd.Stderr = &srvErr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { cmd.Process.Kill(); cmd.Wait() }()
			waitListening(t, "127.0.0.1:"+port, &srvErr)
			url := "http://127.0.0.1:" + port + "/mcp"
			direct := runNode(t, ctx, node, "", "bridge-client.mjs", srv.suite, "http", url)
			bridged := runNode(t, ctx, node, "", "bridge-client.mjs", srv.suite, "stdio", bin, "bridge", "--url", url)
			if bridged != direct {
				t.Errorf("through the bridge the client got\n%s\ndirectly\n%s", bridged, direct)
			}
		})
	}
}

// A bridgeProcess is mcpwire bridge --listen running as a process.
type bridgeProcess struct {
	cmd    *exec.Cmd
	url    string
	stderr *bytes.Buffer
}

// startBridgeProcess runs mcpwire with args and reads the URL it serves.
func startBridgeProcess(t *testing.T, ctx context.Context, bin string, args ...string) *bridgeProcess {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
	b := &bridgeProcess{cmd: cmd, stderr: new(bytes.Buffer)}
	cmd.Stderr = b.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("mcpwire bridge did not print its URL: %v\n%s", err, b.stderr)
	}
	b.url = strings.TrimSpace(line)
	return b
}

// interrupt stops the bridge as Ctrl-C does: it must exit 0, and its
// server processes with it.
func (b *bridgeProcess) interrupt(t *testing.T) {
	t.Helper()
	children := childrenOf(b.cmd.Process.Pid)
	b.cmd.Process.Signal(os.Interrupt)
	if err := b.cmd.Wait(); err != nil {
		t.Errorf("mcpwire bridge, interrupted: %v\n%s", err, b.stderr)
	}
	for _, pid := range children {
		if alive(pid) {
			t.Errorf("server process %d still runs after the bridge exited", pid)
		}
	}
}

// childrenOf returns the processes whose parent is pid (Linux).
func childrenOf(pid int) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces; read after ")".
		s := string(stat)
		if i := strings.LastIndexByte(s, ')'); i >= 0 {
			if f := strings.Fields(s[i+1:]); len(f) > 1 && f[1] == strconv.Itoa(pid) {
				out = append(out, n)
			}
		}
	}
	return out
}
