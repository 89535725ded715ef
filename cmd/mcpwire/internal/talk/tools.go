package talk

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/mcp"
)

// toolsOptions are the options of mcpwire tools. It has none of its own:
// the global options name the server and the output format.
type toolsOptions struct{}

func newToolsCmd(a *app.App, runF func(context.Context, *toolsOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "tools [flags] (@NAME | --url URL | -- COMMAND [ARG...])",
		Short: "List the server's tools and their arguments",
		Long: `List the server's tools: name, title, description, and the arguments of
each tool's input schema, required or optional, with their types.

With --json, print the tools/list result, every page merged.`,
		Example: `  mcpwire tools -- go run ./examples/hello
  mcpwire tools --url http://localhost:3000/mcp
  mcpwire tools @github`,
		GroupID:           groupTools,
		Args:              app.ServerArgs(),
		ValidArgsFunction: a.CompleteArgs(0),
		RunE: a.RunE(func(cmd *cobra.Command, _ []string) error {
			o := &toolsOptions{}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runTools(cmd.Context(), a, o)
		}),
	}
}

// runTools lists the tools.
func runTools(ctx context.Context, a *app.App, _ *toolsOptions) error {
	return a.WithSession(ctx, func(ctx context.Context, s *client.Session) error {
		var tools []mcp.Tool
		if s.ServerCapabilities().Tools != nil {
			for t, err := range s.Tools(ctx) {
				var dropped *client.DroppedToolError
				if errors.As(err, &dropped) { // unusable over HTTP: say so, list the others
					fmt.Fprintf(a.Stderr, "mcpwire: %v\n", dropped)
					continue
				}
				if err != nil {
					return err
				}
				tools = append(tools, *t)
			}
		}
		if a.Global.JSON {
			return app.WriteJSON(a.Stdout, &mcp.ListToolsResult{Tools: tools})
		}
		return writeTools(a.Stdout, tools)
	})
}

// writeTools writes one block per tool: its name and title, its
// description, its hints, and a table of its arguments.
func writeTools(w io.Writer, tools []mcp.Tool) error {
	if len(tools) == 0 {
		return app.WriteText(w, "(no tools)")
	}
	var b bytes.Buffer
	for i, t := range tools {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(t.Name)
		if title := toolTitle(&t); title != "" && title != t.Name {
			fmt.Fprintf(&b, " (%s)", app.Flatten(title))
		}
		b.WriteByte('\n')
		if strings.TrimSpace(t.Description) != "" {
			app.IndentLines(&b, "  ", t.Description)
		}
		if hints := toolHints(t.Annotations); hints != "" {
			fmt.Fprintf(&b, "  Hints: %s\n", hints)
		}
		args := schemaArguments(t.InputSchema)
		if len(args) == 0 {
			b.WriteString("  No arguments.\n")
			continue
		}
		b.WriteString("  Arguments:\n")
		tb := &app.Table{}
		for _, arg := range args {
			tb.Add(arg.Name, arg.Type, requiredWord(arg.Required), arg.Description)
		}
		tb.Write(&b, "    ")
	}
	_, err := w.Write(b.Bytes())
	return err
}

// toolTitle returns the display name of a tool: its title, else the title
// of its annotations.
func toolTitle(t *mcp.Tool) string {
	if t.Title != "" {
		return t.Title
	}
	if t.Annotations != nil {
		return t.Annotations.Title
	}
	return ""
}

// toolHints lists the behaviour hints a tool sets explicitly.
func toolHints(h *mcp.ToolAnnotations) string {
	if h == nil {
		return ""
	}
	var hints []string
	is := func(p *bool, v bool) bool { return p != nil && *p == v }
	if is(h.ReadOnlyHint, true) {
		hints = append(hints, "read-only")
	}
	// The destructive and idempotent hints mean something only for a
	// tool that is not read-only.
	if !is(h.ReadOnlyHint, true) {
		if is(h.DestructiveHint, true) {
			hints = append(hints, "destructive")
		}
		if is(h.DestructiveHint, false) {
			hints = append(hints, "not destructive")
		}
		if is(h.IdempotentHint, true) {
			hints = append(hints, "idempotent")
		}
	}
	if is(h.OpenWorldHint, true) {
		hints = append(hints, "open world")
	}
	if is(h.OpenWorldHint, false) {
		hints = append(hints, "closed world")
	}
	return strings.Join(hints, ", ")
}

func requiredWord(required bool) string {
	if required {
		return "required"
	}
	return "optional"
}
