package clitest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// BrokenAnswers are the ways the "brokenserver" program answers wrongly,
// by name: each returns the line that answers the request whose id (as
// JSON text) is given, and writes it to w, streaming it when it is long.
var BrokenAnswers = map[string]func(w io.Writer, id string) error{
	"not-json":    brokenLine(func(string) string { return "Hello from the server \x1b[31mRED\x1b[0m" }),
	"not-jsonrpc": brokenLine(func(string) string { return `{"hello":"world"}` }),
	"batch":       brokenLine(func(string) string { return `[1,"two",{"three":3}]` }),
	"truncated":   brokenLine(func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVersion":"2025-06` }),
	"jsonrpc-1.0": brokenLine(func(id string) string { return `{"jsonrpc":"1.0","id":` + id + `,"result":{}}` }),
	"result-and-error": brokenLine(func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{},"error":{"code":-32603,"message":"both"}}`
	}),
	"error-no-message": brokenLine(func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32603}}` }),
	"deep": brokenLine(func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `}`
	}),
	"huge": func(w io.Writer, id string) error {
		// 200 MiB, streamed 64 KiB at a time: never held whole.
		if _, err := io.WriteString(w, `{"jsonrpc":"2.0","id":`+id+`,"result":{"blob":"`); err != nil {
			return err
		}
		chunk := []byte(strings.Repeat("x", 64<<10))
		for range (200 << 20) / len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return err
			}
		}
		_, err := io.WriteString(w, "\"}}\n")
		return err
	},
}

func brokenLine(f func(id string) string) func(io.Writer, string) error {
	return func(w io.Writer, id string) error {
		_, err := io.WriteString(w, f(id)+"\n")
		return err
	}
}

// BrokenServerMain is the "brokenserver" program of the scripts: a stdio
// server that answers every request in the way its argument names (see
// BrokenAnswers), until its input ends. With -exit it exits after its
// first answer instead.
//
//	brokenserver [-exit] MODE
func BrokenServerMain() {
	args := os.Args[1:]
	exit := len(args) > 0 && args[0] == "-exit"
	if exit {
		args = args[1:]
	}
	answer := BrokenAnswers[strings.Join(args, " ")]
	if answer == nil {
		fmt.Fprintln(os.Stderr, "usage: brokenserver [-exit] MODE")
		os.Exit(2)
	}
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(sc.Bytes(), &req) != nil || len(req.ID) == 0 || req.Method == "" {
			continue // a notification, or mcpwire's answer to our garbage
		}
		if answer(out, string(req.ID)) != nil || out.Flush() != nil {
			os.Exit(1)
		}
		if exit {
			fmt.Fprintln(os.Stderr, "brokenserver: done")
			os.Exit(0)
		}
	}
}
