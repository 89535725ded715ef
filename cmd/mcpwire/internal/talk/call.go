package talk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// callOptions are the options of mcpwire call.
type callOptions struct {
	Tool      string          // the tool to call
	Arguments json.RawMessage // its arguments, a JSON object
}

func newCallCmd(a *app.App, runF func(context.Context, *callOptions) error) *cobra.Command {
	args := "{}"
	cmd := &cobra.Command{
		Use:   "call TOOL [flags] (@NAME | --url URL | -- COMMAND [ARG...])",
		Short: "Call a tool",
		Long: `Call a tool with the arguments of --args, a JSON object, and print its
result: text as it is, images and audio as a summary line, resources with
their URI, structured content as indented JSON (under a line that says
so, when other content comes before it). What is said twice is printed
once: a text block that repeats the structured content, or structured
content that only holds the text, is left out.

When the tool reports an error (a result with isError), its text goes to
stderr and mcpwire exits with status 3.

When the tool declares an outputSchema, its structured content is checked
against it (call lists the server's tools first to learn the schema): a
result that does not match is not printed, and mcpwire says why and exits
with status 1.

A tool that asks something back, the user (elicitation) or the model
(sampling), cannot be answered here: mcpwire says what it asked, in both
protocol eras alike, and exits with status 1; call it from mcpwire
inspect, which shows the question and sends your answer. (call declares
that it handles both questions, so that servers ask rather than fail in
words of their own, and refuses them.)

With --json, print the tools/call result.`,
		Example: `  mcpwire call greet --args '{"name": "Ada"}' -- go run ./examples/hello
  mcpwire call search --args @query.json -- ./server
  echo '{"n": 3}' | mcpwire call count --args - -- ./server`,
		GroupID:           groupTools,
		Args:              app.ServerArgs("TOOL"),
		ValidArgsFunction: a.CompleteArgs(1),
		RunE: a.RunE(func(cmd *cobra.Command, pos []string) error {
			o := &callOptions{Tool: pos[0]}
			var err error
			if o.Arguments, err = app.ReadArgs(args, a.Stdin); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runCall(cmd.Context(), a, o)
		}),
	}
	cmd.Flags().Var(app.NamedString(&args, "JSON"), "args", argsUsage)
	return cmd
}

// runCall calls the tool and prints its result.
func runCall(ctx context.Context, a *app.App, o *callOptions) error {
	asked := unanswered{verb: "call"}
	return a.WithSessionOptions(ctx, asked.options(), func(ctx context.Context, s *client.Session) error {
		listed, err := learnTool(ctx, s, o.Tool, a.Logger())
		if err != nil {
			return err
		}
		callCtx, cancel := asked.start(ctx)
		res, err := s.CallTool(callCtx, &mcp.CallToolParams{Name: o.Tool, Arguments: o.Arguments})
		cancel()
		if err := asked.err("tool", o.Tool); err != nil {
			return err
		}
		var je *jsonrpc.Error
		if errors.As(err, &je) && listed != nil {
			return app.Failure(fmt.Errorf("%v; %s", a.Describe(err), unlisted(o.Tool, listed)))
		}
		if err != nil {
			return err
		}
		if a.Global.JSON {
			if err := app.WriteJSON(a.Stdout, res); err != nil {
				return err
			}
			if res.IsError {
				return &app.ExitError{Code: app.ExitToolError, Err: fmt.Errorf("tool %q reported an error", o.Tool)}
			}
			return nil
		}
		if !res.IsError {
			return writeToolResult(a.Stdout, res)
		}
		var b bytes.Buffer
		if err := writeToolResult(&b, res); err != nil {
			return err
		}
		if b.Len() == 0 {
			return &app.ExitError{Code: app.ExitToolError, Err: fmt.Errorf("tool %q reported an error, without a message", o.Tool)}
		}
		if _, err := a.Stderr.Write(b.Bytes()); err != nil {
			return err
		}
		if listed != nil { // some servers answer an unknown tool so
			return &app.ExitError{Code: app.ExitToolError, Err: errors.New(unlisted(o.Tool, listed))}
		}
		return &app.ExitError{Code: app.ExitToolError}
	})
}

// unlisted says that the server lists no tool name, among the tools
// listed, naming the nearest, and how to see them all.
func unlisted(name string, listed []string) string {
	msg := fmt.Sprintf("the server has no tool %q", name)
	if near := app.Nearest(name, listed); len(near) > 0 {
		quoted := make([]string, len(near))
		for i, n := range near {
			quoted[i] = strconv.Quote(n)
		}
		msg += ": did you mean " + strings.Join(quoted, " or ") + "?"
	}
	return msg + " (mcpwire tools lists them)"
}

// maxListed bounds the tool names learnTool keeps, to name the nearest
// of a tool the server does not list.
const maxListed = 10_000

// learnTool lists the server's tools, page by page, until it finds the
// tool name: the session then knows its outputSchema, which CallTool
// checks the result against (a client learns a tool's schemas from
// tools/list only). A server that refuses tools/list (a JSON-RPC error)
// has its tool called unchecked, as log says; a tool the client dropped
// from the list cannot be called.
//
// It costs a round trip before the call, or one per page until the
// tool's; a tool listed nowhere is called anyway (unchecked: its schema
// is not known), and listed returns the names of the tools the server
// does list (at most maxListed), to tell a mistyped name. listed is nil
// when name was found, or the list could not be read whole.
func learnTool(ctx context.Context, s *client.Session, name string, log *slog.Logger) (listed []string, err error) {
	listed = []string{}
	for t, err := range s.Tools(ctx) {
		var dropped *client.DroppedToolError
		var je *jsonrpc.Error
		switch {
		case errors.As(err, &dropped):
			if dropped.Tool.Name == name {
				return nil, err
			}
		case errors.As(err, &je):
			if log != nil {
				log.Info(fmt.Sprintf("tools/list was refused (%s): the result of %s is not checked against an outputSchema", je.Message, name))
			}
			return nil, nil
		case err != nil:
			return nil, err
		case t.Name == name:
			return nil, nil
		case len(listed) < maxListed:
			listed = append(listed, t.Name)
		}
	}
	return listed, nil
}

// writeToolResult writes the content blocks of a tool result, then its
// structured content, indented, under a "[structured content]" line when
// blocks came before it. Each thing is said once: a text block that only
// repeats the structured content, as the specification asks servers to
// add for older clients, is left out, and so is structured content that
// only restates the text (an object of one string member holding the
// text, as the filesystem server's {"content": "..."}).
func writeToolResult(w io.Writer, res *mcp.CallToolResult) error {
	structured := len(res.StructuredContent) > 0 && !restatesText(res)
	wrote := false
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok && structured && app.SameJSON([]byte(t.Text), res.StructuredContent) {
			continue
		}
		if err := app.WriteBlock(w, c); err != nil {
			return err
		}
		wrote = true
	}
	if !structured {
		return nil
	}
	if wrote {
		if err := app.WriteText(w, app.Bracket("structured content")); err != nil {
			return err
		}
	}
	return app.WriteText(w, string(app.PrettyJSON(res.StructuredContent)))
}

// restatesText reports whether the structured content of res is an
// object of one member whose value is the text of its text blocks (one
// after the other, a newline between them).
func restatesText(res *mcp.CallToolResult) bool {
	var texts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, t.Text)
		}
	}
	if len(texts) == 0 {
		return false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(res.StructuredContent, &obj) != nil || len(obj) != 1 {
		return false
	}
	for _, v := range obj {
		var s string
		return json.Unmarshal(v, &s) == nil && s == strings.Join(texts, "\n")
	}
	return false
}
