package main

import (
	"bufio"
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// build builds the example package in dir into a temporary directory,
// as name.
func build(t *testing.T, dir, name string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", dir, err, out)
	}
	return bin
}

// TestExample runs the example against the server of examples/http
// (started on a free port) in both eras, answering its form on stdin as
// a user would, and against examples/hello as a subprocess.
func TestExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the examples")
	}
	elicit, httpServer, hello := build(t, ".", "elicit"), build(t, "../http", "http"), build(t, "../hello", "hello")

	srv := exec.Command(httpServer, "-addr", "127.0.0.1:0")
	stderr, err := srv.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		srv.Process.Signal(syscall.SIGINT)
		srv.Wait()
	}()
	url := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "http: serving MCP at "); ok {
				url <- u
			}
		}
	}()
	var endpoint string
	select {
	case endpoint = <-url:
	case <-time.After(30 * time.Second):
		t.Fatal("the server of examples/http did not start")
	}

	book := []string{"-url", endpoint, "-tool", "book", "-args", `{"restaurant":"Chez Nous"}`}
	for _, tc := range []struct {
		name     string
		args     []string
		stdin    string
		stdout   string
		exit     int
		prompted []string // in stderr
	}{
		{
			name:   "modern, defaults",
			args:   book,
			stdin:  "Ada\n4\n\ny\n",
			stdout: "Booked a table for 4 at Chez Nous, 20:00, on the terrace, in the name of Ada.\n",
			prompted: []string{"Booking a table at Chez Nous: who, how many, when?", "Name (the name of the reservation): ",
				"Guests [2]: ", "Time {19:00, 20:00, 21:00} [20:00]: ", "On the terrace {y, n} [false]: "},
		},
		{
			name:     "legacy, wrong answers asked again",
			args:     append([]string{"-legacy"}, book...),
			stdin:    "\nAda\nx\n40\n3\n21:30\n\nmaybe\nn\n",
			stdout:   "Booked a table for 3 at Chez Nous, 20:00, inside, in the name of Ada.\n",
			prompted: []string{"an answer is required", "an integer, please", "between 1 and 12, please", "one of 19:00, 20:00, 21:00, please", "answer y or n"},
		},
		{name: "declined", args: book, stdin: "Ada\n-\n", stdout: "No table booked: the user chose to decline.\n"},
		{name: "cancelled by the end of input", args: append([]string{"-legacy"}, book...), stdin: "", stdout: "No table booked: the user chose to cancel.\n"},
		{name: "a stdio server", args: []string{"-tool", "greet", "-args", `{"name":"Ada"}`, "--", hello}, stdout: `{"text":"Hello, Ada!"}` + "\n"},
		{name: "usage", args: []string{"-url", endpoint}, exit: 1, prompted: []string{"usage: elicit -tool NAME"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(elicit, tc.args...)
			cmd.Stdin = strings.NewReader(tc.stdin)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != tc.exit {
				t.Errorf("exit %d (%v), want %d; stderr:\n%s", code, err, tc.exit, stderr.String())
			}
			if stdout.String() != tc.stdout {
				t.Errorf("stdout %q, want %q", stdout.String(), tc.stdout)
			}
			for _, p := range tc.prompted {
				if !strings.Contains(stderr.String(), p) {
					t.Errorf("stderr lacks %q:\n%s", p, stderr.String())
				}
			}
		})
	}
}
