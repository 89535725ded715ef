// Package redistest runs a real redis-server for tests: one per test
// package, on a free loopback port, its files in a temporary directory,
// nothing persisted. Tests never use a mock or an in-process fake.
//
// In the package's TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(redistest.Main(m)) }
//
// and in a test, redistest.Shared(t) returns the server (the test is
// skipped when redis-server is not installed, and fails instead when
// MCPWIRE_REQUIRE_PEERS=1, as in CI, where .ci/run installs it).
package redistest

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A Server is a redis-server process.
type Server struct {
	// Addr is its host:port, on 127.0.0.1.
	Addr string
	dir  string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd has exited
	n      int           // databases handed out by NewDB
}

// Databases is how many databases the server has (NewDB hands out one
// per call).
const Databases = 1024

// Start starts a redis-server on a free loopback port, with its files in
// dir.
func Start(dir string) (*Server, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, err
	}
	var last error
	for range 5 {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		s := &Server{Addr: "127.0.0.1:" + strconv.Itoa(port), dir: dir}
		if last = s.start(bin); last == nil {
			return s, nil
		}
	}
	return nil, last
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func (s *Server) start(bin string) error {
	_, port, _ := net.SplitHostPort(s.Addr)
	cmd := exec.Command(bin,
		"--bind", "127.0.0.1", "--port", port,
		"--dir", s.dir, "--save", "", "--appendonly", "no",
		"--databases", strconv.Itoa(Databases),
		"--protected-mode", "yes", "--logfile", "")
	out, err := os.Create(s.dir + "/redis-" + port + ".log")
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		out.Close()
		return err
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); out.Close(); close(exited) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if ping(s.Addr) == nil {
			s.mu.Lock()
			s.cmd, s.exited = cmd, exited
			s.mu.Unlock()
			return nil
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(out.Name())
			return fmt.Errorf("redis-server exited: %s", strings.TrimSpace(string(log)))
		default:
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-exited
			return errors.New("redis-server did not answer PING within 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ping sends PING and reads +PONG.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}

// URL returns the redis:// URL of database db.
func (s *Server) URL(db int) string { return "redis://" + s.Addr + "/" + strconv.Itoa(db) }

// NewDB returns the URL of a database no other caller got.
func (s *Server) NewDB() string {
	s.mu.Lock()
	s.n++
	n := s.n % Databases
	s.mu.Unlock()
	return s.URL(n)
}

// Stop stops the server and waits for it.
func (s *Server) Stop() {
	s.signal(syscall.SIGTERM)
}

// Kill kills the server at once (SIGKILL): what an outage looks like.
func (s *Server) Kill() {
	s.signal(syscall.SIGKILL)
}

func (s *Server) signal(sig syscall.Signal) {
	s.mu.Lock()
	cmd, exited := s.cmd, s.exited
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Signal(sig)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-exited
	}
}

// Restart starts the server again on the same port after Kill or Stop:
// empty, as a Redis without persistence comes back.
func (s *Server) Restart() error {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return err
	}
	var last error
	for range 50 { // the port may take a moment to be free again
		if last = s.start(bin); last == nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return last
}

var (
	shared    *Server
	sharedErr error
)

// Main starts the package's shared server, runs the tests and stops it;
// it returns the exit code for os.Exit. Check for leaked goroutines
// after it: the server's own waiter runs until it returns.
func Main(m interface{ Run() int }) int {
	dir, err := os.MkdirTemp("", "redistest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "redistest:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	shared, sharedErr = Start(dir)
	if sharedErr != nil && required() {
		fmt.Fprintln(os.Stderr, "redistest: no redis-server (MCPWIRE_REQUIRE_PEERS=1):", sharedErr)
		return 1
	}
	code := m.Run()
	if shared != nil {
		shared.Stop()
	}
	return code
}

func required() bool { return os.Getenv("MCPWIRE_REQUIRE_PEERS") == "1" }

// Shared returns the package's server; without one (redis-server is not
// installed) it skips t.
func Shared(t testing.TB) *Server {
	t.Helper()
	if shared == nil {
		if sharedErr == nil {
			t.Fatal("redistest: Main did not run: call redistest.Main from TestMain")
		}
		t.Skipf("redistest: no redis-server: %v", sharedErr)
	}
	return shared
}
