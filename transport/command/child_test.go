package command

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// The tests run this test binary again as the server process: with
// childEnv set, TestMain runs the child named by its value instead of the
// tests.
const childEnv = "MCPWIRE_COMMAND_TEST_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(runChild(mode))
	}
	goleak.VerifyTestMain(m)
}

// child returns a command that runs the child mode.
func child(mode string) *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	// GORACE: a race-enabled child would sleep a second before exiting.
	cmd.Env = append(os.Environ(), childEnv+"="+mode, "GORACE=atexit_sleep_ms=0")
	return cmd
}

func runChild(mode string) int {
	say := func(s string) { fmt.Fprintln(os.Stderr, s) }
	switch mode {
	case "echo":
		// A JSON-RPC server that answers each call with its params.
		say("echo: ready")
		echo(os.Stdin, os.Stdout)
		say("echo: bye")
		return 0
	case "fail":
		say("starting")
		fmt.Fprint(os.Stderr, "fatal: no configuration") // no line ending
		return 1
	case "notify-exit":
		fmt.Println(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"last words"}}`)
		return 0
	case "close-stdin-fail":
		// Closes its stdin, then fails a moment later: a write to it
		// fails before the process has exited.
		os.Stdin.Close()
		say("stdin closed")
		time.Sleep(300 * time.Millisecond)
		say("fatal: gone")
		return 1
	case "ignore-eof":
		// Stays after the end of stdin; leaves on SIGTERM.
		term := make(chan os.Signal, 1)
		signal.Notify(term, syscall.SIGTERM)
		say("ready")
		io.Copy(io.Discard, os.Stdin)
		say("stdin closed, staying")
		<-term
		say("got SIGTERM")
		return 3
	case "ignore-term":
		// Stays after the end of stdin and after SIGTERM.
		signal.Ignore(syscall.SIGTERM)
		say("ready")
		io.Copy(io.Discard, os.Stdin)
		time.Sleep(time.Minute)
		return 0
	case "long-stderr":
		fmt.Fprintln(os.Stderr, strings.Repeat("é", 5000))
		fmt.Fprint(os.Stderr, "short\r\n")
		io.Copy(io.Discard, os.Stdin)
		return 0
	case "grandchild":
		// Leaves a process behind that holds stdout and stderr open.
		gc := child("sleep")
		gc.Stdout, gc.Stderr = os.Stdout, os.Stderr
		if err := gc.Start(); err != nil {
			say(err.Error())
			return 2
		}
		fmt.Fprintf(os.Stderr, "grandchild %d\n", gc.Process.Pid)
		return 0
	case "sleep":
		time.Sleep(30 * time.Second)
		return 0
	}
	fmt.Fprintf(os.Stderr, "unknown child mode %q\n", mode)
	return 2
}

func echo(r io.Reader, w io.Writer) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		m, err := jsonrpc.Decode(sc.Bytes(), nil)
		if err != nil {
			continue
		}
		req, ok := m.(*jsonrpc.Request)
		if !ok || !req.IsCall() {
			continue
		}
		result := req.Params
		if result == nil {
			result = []byte(`{}`)
		}
		b, _ := jsonrpc.Encode(&jsonrpc.Response{ID: req.ID, Result: result})
		w.Write(append(b, '\n'))
	}
}
