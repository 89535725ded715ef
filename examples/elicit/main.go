// Command elicit is an MCP client that answers the questions servers ask
// their users (elicitation): it calls one tool, and when the tool asks for
// something it shows the form on the terminal, reads the answers from
// standard input and sends them back. With the server of examples/http:
//
//	go run ./examples/http &
//	go run ./examples/elicit -url http://localhost:3000/mcp -tool book -args '{"restaurant":"Chez Nous"}'
//
// or with a server started as a subprocess (stdio):
//
//	go run ./examples/elicit -tool NAME -args '{...}' -- SERVER-COMMAND [ARGS...]
//
// Each field of the form is asked in turn. An empty line takes the
// field's default (shown in brackets), or leaves an optional field out;
// "-" declines the whole form, and the end of input cancels it. Answers
// are checked against the field's type, choices and bounds, and asked
// again if wrong. The prompts go to stderr, the tool's result to stdout.
//
// The same handler answers in both eras: in a 2025 session the question
// comes as a request (elicitation/create); in the stateless era (the
// default; -legacy forces 2025-11-25) the tool answers input_required,
// and the client asks the user, then calls again with the answers.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/command"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("elicit: ")
	url := flag.String("url", "", "the server's Streamable HTTP endpoint (else: the command after --)")
	tool := flag.String("tool", "", "the tool to call")
	args := flag.String("args", "{}", "the tool's arguments, a JSON object")
	legacy := flag.Bool("legacy", false, "speak 2025-11-25 (a session) rather than 2026-07-28")
	flag.Parse()
	var t transport.Transport
	switch {
	case *tool == "" || (*url == "") == (flag.NArg() == 0):
		log.Fatal("usage: elicit -tool NAME [-args JSON] [-legacy] (-url URL | -- SERVER-COMMAND [ARGS...])")
	case *url != "":
		t = streamable.NewTransport(*url, nil)
	default:
		t = command.New(exec.Command(flag.Arg(0), flag.Args()[1:]...), nil)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	f := &form{in: bufio.NewReader(os.Stdin), out: os.Stderr}
	opts := &client.Options{Elicit: f.answer}
	if *legacy {
		opts.Version = mcp.LatestLegacy
	}
	sess, err := client.New(mcp.Implementation{Name: "elicit-example", Version: "1.0.0"}, opts).Connect(ctx, t)
	if err != nil {
		log.Fatal(err)
	}
	defer sess.Close()
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: *tool, Arguments: json.RawMessage(*args)})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content.Text())
	if res.IsError {
		os.Exit(1)
	}
}

// A form asks the user the questions of elicitation requests, one at a
// time.
type form struct {
	mu  sync.Mutex // one form on the terminal at a time
	in  *bufio.Reader
	out io.Writer
}

// A field is one property of a requested schema. Elicitation schemas are
// flat: each property is a string (maybe with choices), a number, an
// integer or a boolean.
type field struct {
	name          string
	Type          string   `json:"type"`
	Title         string   `json:"title"`
	Description   string   `json:"description"`
	Enum          []string `json:"enum"`
	Default       any      `json:"default"`
	Minimum       *float64 `json:"minimum"`
	Maximum       *float64 `json:"maximum"`
	MinLength     *int     `json:"minLength"`
	MaxLength     *int     `json:"maxLength"`
	required      bool
	defaultString string
}

// answer is the client's Elicit handler.
func (f *form) answer(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	fields, err := parseForm(p.RequestedSchema)
	if err != nil {
		return nil, fmt.Errorf("the server's form: %w", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	fmt.Fprintf(f.out, "\n%s\n(an empty line takes the default; - declines)\n", p.Message)
	content := map[string]any{}
	for _, fd := range fields {
		for {
			fmt.Fprint(f.out, fd.prompt())
			line, err := f.in.ReadString('\n')
			if err != nil && line == "" {
				fmt.Fprintln(f.out)
				return &mcp.ElicitResult{Action: mcp.ElicitCancel}, nil
			}
			line = strings.TrimSpace(line)
			if line == "-" {
				return &mcp.ElicitResult{Action: mcp.ElicitDecline}, nil
			}
			v, ok, err := fd.parse(line)
			if err != nil {
				fmt.Fprintf(f.out, "  %v\n", err)
				continue
			}
			if ok {
				content[fd.name] = v
			}
			break
		}
	}
	return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: content}, nil
}

// parseForm reads the fields of a requested schema, in the order the
// server wrote them.
func parseForm(schema json.RawMessage) ([]*field, error) {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(strings.NewReader(string(s.Properties)))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("properties is not an object")
	}
	var fields []*field
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		fd := &field{name: tok.(string)}
		if err := dec.Decode(fd); err != nil {
			return nil, fmt.Errorf("property %s: %w", fd.name, err)
		}
		for _, r := range s.Required {
			fd.required = fd.required || r == fd.name
		}
		if fd.Default != nil {
			fd.defaultString = fmt.Sprint(fd.Default)
		}
		fields = append(fields, fd)
	}
	return fields, nil
}

// prompt shows the field: its title, what it takes, its default.
func (fd *field) prompt() string {
	var b strings.Builder
	title := fd.Title
	if title == "" {
		title = fd.name
	}
	b.WriteString(title)
	if fd.Description != "" {
		b.WriteString(" (" + fd.Description + ")")
	}
	switch {
	case len(fd.Enum) > 0:
		b.WriteString(" {" + strings.Join(fd.Enum, ", ") + "}")
	case fd.Type == "boolean":
		b.WriteString(" {y, n}")
	}
	if fd.Default != nil {
		b.WriteString(" [" + fd.defaultString + "]")
	} else if !fd.required {
		b.WriteString(" (optional)")
	}
	b.WriteString(": ")
	return b.String()
}

// parse checks an answer: the value, whether the field is answered at
// all, or why the answer is wrong.
func (fd *field) parse(line string) (any, bool, error) {
	if line == "" {
		switch {
		case fd.Default != nil:
			return fd.Default, true, nil
		case fd.required:
			return nil, false, errors.New("an answer is required")
		}
		return nil, false, nil
	}
	switch fd.Type {
	case "boolean":
		switch strings.ToLower(line) {
		case "y", "yes", "true":
			return true, true, nil
		case "n", "no", "false":
			return false, true, nil
		}
		return nil, false, errors.New("answer y or n")
	case "integer", "number":
		n, err := strconv.ParseFloat(line, 64)
		if err != nil || fd.Type == "integer" && n != float64(int64(n)) {
			return nil, false, fmt.Errorf("an %s, please", fd.Type)
		}
		if fd.Minimum != nil && n < *fd.Minimum || fd.Maximum != nil && n > *fd.Maximum {
			return nil, false, fmt.Errorf("between %v and %v, please", deref(fd.Minimum, "-∞"), deref(fd.Maximum, "∞"))
		}
		if fd.Type == "integer" {
			return int64(n), true, nil
		}
		return n, true, nil
	}
	if len(fd.Enum) > 0 {
		for _, e := range fd.Enum {
			if line == e {
				return line, true, nil
			}
		}
		return nil, false, fmt.Errorf("one of %s, please", strings.Join(fd.Enum, ", "))
	}
	if n := len([]rune(line)); fd.MinLength != nil && n < *fd.MinLength || fd.MaxLength != nil && n > *fd.MaxLength {
		return nil, false, fmt.Errorf("between %v and %v characters, please", deref(fd.MinLength, "0"), deref(fd.MaxLength, "∞"))
	}
	return line, true, nil
}

// deref returns *p, or none when p is nil.
func deref[T any](p *T, none string) any {
	if p == nil {
		return none
	}
	return *p
}
