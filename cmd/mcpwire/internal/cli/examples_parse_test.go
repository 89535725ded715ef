package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/mcp"
)

// The examples of the documentation: the "Examples:" lines of every
// command's help, and the command lines of the ```sh blocks of README.md
// and docs/*.md (a block fenced "```sh nocheck" is left out, as are
// blocks of other languages), and the "$ " lines of their plain ```
// blocks, which show a session with its output. TestDocExamples checks
// every mcpwire command among them against the command tree (checkCall);
// TestExamplesRun (examples_test.go) runs those that can run here
// (classify says which, and why not the others).

// An example is one command line of the documentation.
type example struct {
	where string // "README.md:41", "help call"
	line  string // the command line as written, continuation lines joined
	// background: the line ends in "&" (a server the reader starts).
	background bool
	// transcript: a "$ " line of a plain ``` block, which shows a
	// session with its output (checked, not run).
	transcript bool
	// exit is the exit status the line expects: 0, or N of a final
	// comment "# exit N".
	exit int
	// cmds are the simple commands of the line (split at |, &&, ;, &),
	// each its words, environment assignments first.
	cmds [][]string
	ops  []string // the operator after each of cmds but the last
	// calls are the argument lists (after "mcpwire") of the mcpwire
	// commands of the line, a server "-- mcpwire serve ..." included.
	calls [][]string

	// Set by classify:
	run  string // the line the harness runs with sh, or ""
	skip string // why it is not run, when run is ""
}

// exitComment matches the comment that gives the exit status a line
// expects: "# exit 3".
var exitComment = regexp.MustCompile(`#\s*exits?\s+(\d+)\s*$`)

// newExample parses line (from where) into an example.
func newExample(where, line string) (*example, error) {
	e := &example{where: where, line: line}
	if m := exitComment.FindStringSubmatch(line); m != nil {
		e.exit, _ = strconv.Atoi(m[1])
	}
	toks, err := shellTokens(line)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %v", where, line, err)
	}
	var cur []string
	for _, t := range toks {
		if !t.op {
			cur = append(cur, t.s)
			continue
		}
		if len(cur) == 0 {
			return nil, fmt.Errorf("%s: %s: nothing before %q", where, line, t.s)
		}
		e.cmds = append(e.cmds, cur)
		e.ops = append(e.ops, t.s)
		cur = nil
	}
	switch {
	case len(cur) > 0:
		e.cmds = append(e.cmds, cur)
	case len(e.ops) > 0 && e.ops[len(e.ops)-1] == "&":
		e.background = true
		e.ops = e.ops[:len(e.ops)-1]
	case len(e.ops) > 0:
		return nil, fmt.Errorf("%s: %s: nothing after %q", where, line, e.ops[len(e.ops)-1])
	}
	for _, c := range e.cmds {
		for args, ok := mcpwireArgs(c); ok; {
			e.calls = append(e.calls, args)
			dash := slices.Index(args, "--")
			if dash < 0 {
				break
			}
			args, ok = mcpwireArgs(args[dash+1:])
		}
	}
	return e, nil
}

// mcpwireArgs returns the arguments of mcpwire if the simple command c
// runs it ("mcpwire ...", "go run ./cmd/mcpwire ...", after any VAR=value).
func mcpwireArgs(c []string) ([]string, bool) {
	c = c[envAssignments(c):]
	switch {
	case len(c) > 0 && c[0] == "mcpwire":
		return c[1:], true
	case len(c) >= 3 && c[0] == "go" && c[1] == "run" && c[2] == "./cmd/mcpwire":
		return c[3:], true
	}
	return nil, false
}

// envName matches the name of a variable assignment, "NAME=".
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// envAssignments returns how many words of c are variable assignments.
func envAssignments(c []string) int {
	n := 0
	for n < len(c) && envName.MatchString(c[n]) {
		n++
	}
	return n
}

// A token is a word of a command line, or an operator (|, ||, &, &&, ;).
type token struct {
	s  string
	op bool
}

// shellTokens splits a command line into words and operators as sh
// does, for the simple lines of examples: blanks, single and double
// quotes, backslashes, operators, and a comment from a "#" that starts a
// word. It expands nothing, and refuses redirections and substitutions,
// which the examples do not use.
func shellTokens(line string) ([]token, error) {
	var toks []token
	var w strings.Builder
	inWord := false
	end := func() {
		if inWord {
			toks = append(toks, token{s: w.String()})
			w.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			end()
		case c == '#' && !inWord:
			return toks, nil
		case c == '\\':
			if i+1 >= len(line) {
				return nil, errors.New("a backslash ends the line")
			}
			i++
			w.WriteByte(line[i])
			inWord = true
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("a single quote is not closed")
			}
			w.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			for i++; i < len(line) && line[i] != '"'; i++ {
				switch {
				case line[i] == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0:
					i++
				case line[i] == '$' || line[i] == '`':
					return nil, errors.New("a substitution in double quotes")
				}
				w.WriteByte(line[i])
			}
			if i >= len(line) {
				return nil, errors.New("a double quote is not closed")
			}
			inWord = true
		case c == '|' || c == '&' || c == ';':
			end()
			op := string(c)
			if i+1 < len(line) && line[i+1] == c && c != ';' {
				op += string(c)
				i++
			}
			toks = append(toks, token{s: op, op: true})
		case c == '<' || c == '>' || c == '(' || c == ')' || c == '`' || c == '$':
			return nil, fmt.Errorf("%q: the checker reads no redirection, subshell or substitution", c)
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	end()
	return toks, nil
}

// helpExamples returns the "Examples:" lines of root and of every command
// under it.
func helpExamples(root *cobra.Command) ([]*example, error) {
	var out []*example
	var walk func(c *cobra.Command) error
	walk = func(c *cobra.Command) error {
		for l := range strings.Lines(c.Example) {
			if l = strings.TrimSpace(l); l == "" {
				continue
			}
			e, err := newExample("help "+strings.TrimPrefix(c.CommandPath(), "mcpwire "), l)
			if err != nil {
				return err
			}
			out = append(out, e)
		}
		for _, sub := range c.Commands() {
			if err := walk(sub); err != nil {
				return err
			}
		}
		return nil
	}
	return out, walk(root)
}

// markdownExamples returns the command lines of the ```sh blocks of the
// Markdown file at path, but those fenced "```sh nocheck", and the "$ "
// lines of its plain ``` blocks (transcripts of a session). In a block, a
// "$ " prompt is dropped, and in a block that has one, the lines without
// it are the commands' output; a line that ends in "\" goes on on the
// next; a line that is empty or a comment is no command.
func markdownExamples(path string) ([]*example, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []*example
	var block []mdLine
	in, check, transcript, fenceAt := false, false, false, 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		text := strings.TrimRight(sc.Text(), " \t\r")
		if fence, ok := strings.CutPrefix(strings.TrimSpace(text), "```"); ok {
			if in {
				if check || transcript {
					es, err := blockExamples(filepath.Base(path), block, transcript)
					if err != nil {
						return nil, err
					}
					out = append(out, es...)
				}
				in, block = false, nil
				continue
			}
			info := strings.Fields(fence)
			in, fenceAt = true, n
			check = len(info) > 0 && info[0] == "sh" && !slices.Contains(info[1:], "nocheck")
			transcript = len(info) == 0
			continue
		}
		if in && check || in && transcript && strings.HasPrefix(text, "$ ") {
			block = append(block, mdLine{n, text})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if in {
		return nil, fmt.Errorf("%s:%d: a code block is not closed", path, fenceAt)
	}
	return out, nil
}

// An mdLine is a line of a Markdown file, and its number.
type mdLine struct {
	n    int
	text string
}

// blockExamples returns the examples of the lines of one block of file;
// transcript says that they are the "$ " lines of a plain block.
func blockExamples(file string, block []mdLine, transcript bool) ([]*example, error) {
	prompts := slices.ContainsFunc(block, func(l mdLine) bool { return strings.HasPrefix(l.text, "$ ") })
	var out []*example
	pending, at := "", 0
	for _, l := range block {
		text := l.text
		if pending == "" {
			cmd, prompted := strings.CutPrefix(text, "$ ")
			if prompts && !prompted {
				continue // output
			}
			text, at = cmd, l.n
		} else {
			text = pending + " " + strings.TrimSpace(text)
		}
		if s, ok := strings.CutSuffix(text, `\`); ok {
			pending = s
			continue
		}
		pending = ""
		if t := strings.TrimSpace(text); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		e, err := newExample(fmt.Sprintf("%s:%d", file, at), strings.TrimSpace(text))
		if err != nil {
			return nil, err
		}
		e.transcript = transcript
		out = append(out, e)
	}
	if pending != "" {
		return nil, fmt.Errorf("%s:%d: the block ends in a continued line", file, at)
	}
	return out, nil
}

// docExamples returns every example of the documentation: the help's,
// then those of README.md and docs/*.md under root, the repository's.
func docExamples(root string) ([]*example, error) {
	out, err := helpExamples(newRootCmd(app.New(nil, io.Discard, io.Discard), families()...))
	if err != nil {
		return nil, err
	}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	for _, path := range append([]string{filepath.Join(root, "README.md")}, docs...) {
		es, err := markdownExamples(path)
		if err != nil {
			return nil, err
		}
		out = append(out, es...)
	}
	return out, nil
}

// A flagValue is one flag of a command line, as given.
type flagValue struct {
	name  string // the flag's long name
	value string
}

// parsedCall is an mcpwire command line parsed by the command tree.
type parsedCall struct {
	cmd        *cobra.Command
	verb       string // "call", "serve filesystem"
	flags      []flagValue
	positional []string // before "--", @NAME included
	server     []string // after "--"
}

// parseCall parses args (a command line of mcpwire, without "mcpwire")
// as mcpwire does: it finds the command, parses its flags, and checks its
// arguments with the command's own check.
func parseCall(args []string) (*parsedCall, error) {
	root := newRootCmd(app.New(strings.NewReader(""), io.Discard, io.Discard), families()...)
	root.InitDefaultHelpFlag()
	root.InitDefaultVersionFlag()
	cmd, rest, err := root.Find(args)
	if err != nil {
		return nil, err
	}
	if cmd.HasSubCommands() && !cmd.Runnable() && len(args) > 0 {
		return nil, fmt.Errorf("%s needs a command: %s", cmd.CommandPath(), strings.Join(subcommandNames(cmd), ", "))
	}
	cmd.InitDefaultHelpFlag()
	if err := cmd.ParseFlags(nil); err != nil { // merges the global flags
		return nil, err
	}
	p := &parsedCall{cmd: cmd, verb: strings.TrimPrefix(strings.TrimPrefix(cmd.CommandPath(), root.Name()), " ")}
	fs := cmd.Flags()
	err = fs.ParseAll(rest, func(f *pflag.Flag, value string) error {
		p.flags = append(p.flags, flagValue{f.Name, value})
		return fs.Set(f.Name, value)
	})
	if err != nil {
		return nil, err
	}
	pos := fs.Args()
	if dash := fs.ArgsLenAtDash(); dash >= 0 {
		pos, p.server = pos[:dash], pos[dash:]
	}
	p.positional = pos
	if err := cmd.ValidateArgs(fs.Args()); err != nil {
		return nil, err
	}
	return p, nil
}

// subcommandNames returns the names of the commands under cmd.
func subcommandNames(cmd *cobra.Command) []string {
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	return names
}

// values returns the values given to the flag name, in order.
func (p *parsedCall) values(name string) []string {
	var out []string
	for _, f := range p.flags {
		if f.name == name {
			out = append(out, f.value)
		}
	}
	return out
}

// aliases returns the servers p names from the hosts' configuration:
// @NAME among its arguments, and --server.
func (p *parsedCall) aliases() []string {
	var out []string
	for _, a := range p.positional {
		if name, ok := strings.CutPrefix(a, "@"); ok {
			out = append(out, name)
		}
	}
	return append(out, p.values("server")...)
}

// serverName matches a name of a configured server as the examples write
// them.
var serverName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// checkCall checks an mcpwire command line of the documentation (args,
// without "mcpwire") without running it: the command exists; every flag
// exists for it and has a value when it takes one (and no value when it
// takes none); its arguments are those it takes; the server is named one
// way (--url, @NAME or --server, or after --), @NAME and --server name a
// server; --url is an http(s) URL; --args, and --call's arguments, are
// JSON objects (or @FILE, or - for standard input); --header is K=V;
// --protocol is a known revision.
func checkCall(args []string) error {
	p, err := parseCall(args)
	if err != nil {
		return err
	}
	ways := 0
	if len(p.values("url")) > 0 || len(p.values("upstream")) > 0 {
		ways++
	}
	if len(p.server) > 0 {
		ways++
	}
	names := p.aliases()
	if len(names) > 0 {
		ways++
	}
	if ways > 1 || len(names) > 1 {
		return errors.New("the server is named more than one way (--url, @NAME or --server, -- COMMAND)")
	}
	takesServer := strings.Contains(p.cmd.Use, "--url URL") || strings.Contains(p.cmd.Use, "-- COMMAND")
	// login --status names none, and inspect without one shows the
	// servers of the hosts' configuration to choose from.
	if takesServer && ways == 0 && !(p.verb == "login" && len(p.values("status")) > 0) && p.verb != "inspect" {
		return errors.New("no server named (--url, @NAME or --server, -- COMMAND)")
	}
	for _, n := range names {
		if !serverName.MatchString(n) {
			return fmt.Errorf("%q is not the name of a configured server", n)
		}
	}
	for _, u := range p.values("url") {
		if err := checkURL(u); err != nil {
			return fmt.Errorf("--url %q: %v", u, err)
		}
	}
	for _, h := range p.values("header") {
		if k, _, ok := strings.Cut(h, "="); !ok || strings.TrimSpace(k) == "" {
			return fmt.Errorf("--header %q: want K=V", h)
		}
	}
	for _, v := range p.values("protocol") {
		if !mcp.IsSupported(mcp.Version(v)) {
			return fmt.Errorf("--protocol %q: not a revision mcpwire speaks", v)
		}
	}
	for _, v := range p.values("args") {
		if err := checkJSONArgs(v, p.verb == "get"); err != nil {
			return err
		}
	}
	for _, v := range p.values("call") {
		name, args, ok := strings.Cut(v, "=")
		if strings.TrimSpace(name) == "" {
			return fmt.Errorf("--call %q: want TOOL=ARGS", v)
		}
		if ok {
			if err := checkJSONArgs(args, false); err != nil {
				return fmt.Errorf("--call %s: %v", name, err)
			}
		}
	}
	return nil
}

// checkURL checks a URL of --url: absolute, http or https, with a host.
func checkURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return err
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		return errors.New("not an http or https URL")
	}
	return nil
}

// checkJSONArgs checks a value of --args as mcpwire reads it: a JSON
// object, of strings only for a prompt; "@FILE" and "-" are read when the
// command runs.
func checkJSONArgs(v string, prompt bool) error {
	if v == "-" || strings.HasPrefix(v, "@") {
		return nil
	}
	var err error
	if prompt {
		_, err = app.ReadStringArgs(v, nil)
	} else {
		_, err = app.ReadArgs(v, nil)
	}
	if err != nil {
		return errors.New(app.Message(err))
	}
	return nil
}

// checkExample checks every mcpwire command of e (checkCall).
func checkExample(e *example) error {
	for _, c := range e.calls {
		if err := checkCall(c); err != nil {
			return fmt.Errorf("mcpwire %s: %v", strings.Join(c, " "), err)
		}
	}
	return nil
}

// checkPackages checks that every "go run ./PKG" of e, a server after
// "--" included, names a directory under root, the repository's.
func checkPackages(e *example, root string) error {
	for _, c := range e.cmds {
		for i := 0; i+2 < len(c); i++ {
			if c[i] != "go" || c[i+1] != "run" || !strings.HasPrefix(c[i+2], "./") {
				continue
			}
			if st, err := os.Stat(filepath.Join(root, c[i+2])); err != nil || !st.IsDir() {
				return fmt.Errorf("go run %s: no such package in the repository", c[i+2])
			}
		}
	}
	return nil
}

// TestDocExamples checks every mcpwire command of the documentation's
// examples (checkCall), and every package they go run (checkPackages): a
// verb, flag or argument that changed, a --args that is not a JSON
// object, a package that moved, make it fail, naming the file and line
// (or the command's help).
func TestDocExamples(t *testing.T) {
	root := repoRoot(t)
	examples, err := docExamples(root)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, e := range examples {
		if err := checkPackages(e, root); err != nil {
			t.Errorf("%s: %s\n\t%v", e.where, e.line, err)
		}
		if len(e.calls) == 0 {
			continue
		}
		checked++
		if err := checkExample(e); err != nil {
			t.Errorf("%s: %s\n\t%v", e.where, e.line, err)
		}
	}
	t.Logf("%d examples, %d with an mcpwire command, checked", len(examples), checked)
	if checked < 50 {
		t.Errorf("only %d examples found: the documentation has more (is the reader of the blocks broken?)", checked)
	}
}

// TestExampleCheckerRefusesStaleExamples feeds the checker examples that
// are wrong as the documentation's have been, and one wrong example in a
// README: each must be refused, for the reason given.
func TestExampleCheckerRefusesStaleExamples(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`mcpwire tool -- go run ./examples/hello`, `unknown command "tool"`},
		{`mcpwire tools --urll http://localhost:3000/mcp`, "unknown flag: --urll"},
		{`mcpwire call greet --args`, "flag needs an argument: --args"},
		{`mcpwire tools --json=yes -- go run ./examples/hello`, `invalid argument "yes" for "--json"`},
		{`mcpwire tools --timeout soon -- go run ./examples/hello`, `invalid argument "soon" for "--timeout"`},
		{`mcpwire bench --tool echo -c many -- ./server`, `invalid argument "many" for "-c, --concurrency"`},
		{`mcpwire call -- go run ./examples/hello`, "missing TOOL"},
		{`mcpwire call greet ./server`, `unexpected argument "./server": name the server after --`},
		{`mcpwire tools --trace jsonl -- go run ./examples/hello`, "a format goes after --trace"},
		{`mcpwire tools @a @b`, "name one server"},
		{`mcpwire tools --url http://localhost:3000/mcp -- go run ./examples/hello`, "named more than one way"},
		{`mcpwire tools @github --url http://localhost:3000/mcp`, "named more than one way"},
		{`mcpwire tools --server '' `, `"" is not the name`},
		{`mcpwire tools --json`, "no server named"},
		{`mcpwire login --scope files:write`, "no server named"},
		{`mcpwire tools --url localhost:3000/mcp`, "not an http or https URL"},
		{`mcpwire tools --url http://localhost:3000/mcp --header X-Api-Key`, "want K=V"},
		{`mcpwire tools --protocol 2024-01-01 -- ./server`, "not a revision"},
		{`mcpwire call greet --args '{name: "Ada"}' -- go run ./examples/hello`, "invalid JSON"},
		{`mcpwire call greet --args name=Ada -- go run ./examples/hello`, `the arguments are a JSON object, not name=Ada: --args '{"name":"Ada"}'`},
		{`mcpwire call greet --args '["Ada"]' -- go run ./examples/hello`, "want a JSON object, got an array"},
		{`mcpwire get welcome --args '{"n": 3}' -- go run ./examples/hello`, "prompt arguments are strings"},
		{`mcpwire check --call 'get-sum={"a": 1, "b": }' @everything`, "--call get-sum: --args: invalid JSON"},
		{`mcpwire serve frob .`, `unknown server "frob"`},
		{`mcpwire call greet -- mcpwire serve filesystem --read-only-dirs . .`, "unknown flag: --read-only-dirs"},
		{`echo '{}' | go run ./cmd/mcpwire call greet --arg - -- ./server`, "unknown flag: --arg"},
	} {
		e, err := newExample("test", tc.line)
		if err != nil {
			t.Fatal(err)
		}
		if len(e.calls) == 0 {
			t.Fatalf("%s: no mcpwire command found", tc.line)
		}
		err = checkExample(e)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s\nchecked: %v\nwant an error with %q", tc.line, err, tc.want)
		}
	}

	e, err := newExample("test", `go run ./cmd/mcpwire tools -- go run ./examples/helo`)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkPackages(e, repoRoot(t)); err == nil || !strings.Contains(err.Error(), "go run ./examples/helo: no such package") {
		t.Errorf("%s: %v; want no such package", e.line, err)
	}

	// The same examples, right, pass.
	for _, line := range []string{
		`mcpwire tools -- go run ./examples/hello`,
		`mcpwire tools --url http://localhost:3000/mcp --header 'X-Api-Key=secret'`,
		`mcpwire call greet --args '{"name": "Ada"}' --trace=jsonl -- go run ./examples/hello`,
		`echo '{"n": 3}' | mcpwire call count --args - -- ./server`,
		`mcpwire check --call 'get-sum={"a": 1, "b": 2}' --call-read-only @everything`,
		`mcpwire --version`,
		`mcpwire login --status`,
		`mcpwire tap --record s.jsonl --listen 127.0.0.1:4000 --upstream http://127.0.0.1:3000/mcp`,
		`mcpwire bridge --listen 127.0.0.1:3000 @github`,
		`mcpwire call greet -- mcpwire tap -q --record s.jsonl -- go run ./examples/hello`,
	} {
		e, err := newExample("test", line)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkExample(e); err != nil {
			t.Errorf("%s: %v", line, err)
		}
	}

	// A README with a wrong example in a checked block, and one in a block
	// marked nocheck.
	dir := t.TempDir()
	readme := "# x\n\n```sh\ngo run ./cmd/mcpwire tools -- go run ./examples/hello\n" +
		"mcpwire call greet --args '{\"who\": \"Ada\"}' \\\n  --urll http://localhost:3000/mcp\n```\n\n" +
		"```sh nocheck\nmcpwire tool\n```\n"
	path := filepath.Join(dir, "README.md")
	if err := os.WriteFile(path, []byte(readme), 0o644); err != nil {
		t.Fatal(err)
	}
	es, err := markdownExamples(path)
	if err != nil {
		t.Fatal(err)
	}
	var refused []string
	for _, e := range es {
		if err := checkExample(e); err != nil {
			refused = append(refused, e.where+": "+err.Error())
		}
	}
	want := []string{`README.md:5: mcpwire call greet --args {"who": "Ada"} --urll http://localhost:3000/mcp: unknown flag: --urll`}
	if len(es) != 2 || !slices.Equal(refused, want) {
		t.Errorf("%d examples read; refused:\n%q\nwant:\n%q", len(es), refused, want)
	}
}

// TestMarkdownExamples checks how the blocks of a Markdown file are read.
func TestMarkdownExamples(t *testing.T) {
	md := "# Title\n\n" +
		"```sh\n" +
		"go run ./examples/http &   # http://localhost:3000/mcp\n" +
		"go run ./cmd/mcpwire tools --url http://localhost:3000/mcp\n" +
		"# a comment\n" +
		"mcpwire call fail -- ./server   # exit 3\n" +
		"OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 \\\n" +
		"  mcpwire tools -- go run ./examples/hello\n" +
		"```\n\n" +
		"```sh nocheck\nmcpwire login --url https://mcp.example.com/mcp\n```\n\n" +
		"```go\nmcpwire := 1\n```\n\n" +
		"```\n$ mcpwire tools -- ./broken\n```\n\n" +
		"```sh\n" +
		"$ cat .cursor/mcp.json\n" +
		"{ \"mcpServers\": {} }\n" +
		"$ mcpwire call greet -- mcpwire tap -q --record s.jsonl -- go run ./examples/hello | jq .\n" +
		"$ mcpwire tools --config ~/Library/Application\\ Support/Claude/claude_desktop_config.json @filesystem\n" +
		"```\n"
	path := filepath.Join(t.TempDir(), "README.md")
	if err := os.WriteFile(path, []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	es, err := markdownExamples(path)
	if err != nil {
		t.Fatal(err)
	}
	type ex struct {
		where      string
		background bool
		exit       int
		calls      [][]string
	}
	var got []ex
	for _, e := range es {
		got = append(got, ex{e.where, e.background, e.exit, e.calls})
	}
	want := []ex{
		{"README.md:4", true, 0, nil},
		{"README.md:5", false, 0, [][]string{{"tools", "--url", "http://localhost:3000/mcp"}}},
		{"README.md:7", false, 3, [][]string{{"call", "fail", "--", "./server"}}},
		{"README.md:8", false, 0, [][]string{{"tools", "--", "go", "run", "./examples/hello"}}},
		{"README.md:21", false, 0, [][]string{{"tools", "--", "./broken"}}},
		{"README.md:25", false, 0, nil},
		{"README.md:27", false, 0, [][]string{
			{"call", "greet", "--", "mcpwire", "tap", "-q", "--record", "s.jsonl", "--", "go", "run", "./examples/hello"},
			{"tap", "-q", "--record", "s.jsonl", "--", "go", "run", "./examples/hello"},
		}},
		{"README.md:28", false, 0, [][]string{{"tools", "--config", "~/Library/Application Support/Claude/claude_desktop_config.json", "@filesystem"}}},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got\n%v\nwant\n%v", got, want)
	}
	if err := os.WriteFile(path, []byte("```sh\nmcpwire tools\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := markdownExamples(path); err == nil {
		t.Error("an unclosed block was read")
	}
}

// repoRoot returns the repository's root: the nearest directory above
// this one with README.md and examples/hello.
func repoRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "examples", "hello")); err == nil {
			if _, err := os.Stat(filepath.Join(dir, "README.md")); err == nil {
				return dir
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("not in a checkout of the repository: no README.md and examples/hello above")
		}
		dir = parent
	}
}
