package talk

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/mcp"
)

// promptsOptions are the options of mcpwire prompts. It has none of its
// own.
type promptsOptions struct{}

func newPromptsCmd(a *app.App, runF func(context.Context, *promptsOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "prompts [flags] (@NAME | --url URL | -- COMMAND [ARG...])",
		Short: "List the server's prompts and their arguments",
		Long: `List the server's prompts: name, title, description, and arguments,
required or optional.

With --json, print the prompts/list result, every page merged.`,
		Example:           `  mcpwire prompts -- go run ./examples/hello`,
		GroupID:           groupPrompts,
		Args:              app.ServerArgs(),
		ValidArgsFunction: a.CompleteArgs(0),
		RunE: a.RunE(func(cmd *cobra.Command, _ []string) error {
			o := &promptsOptions{}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runPrompts(cmd.Context(), a, o)
		}),
	}
}

// runPrompts lists the prompts.
func runPrompts(ctx context.Context, a *app.App, _ *promptsOptions) error {
	return a.WithSession(ctx, func(ctx context.Context, s *client.Session) error {
		var prompts []mcp.Prompt
		if s.ServerCapabilities().Prompts != nil {
			var err error
			if prompts, err = collect(prompts, s.Prompts(ctx)); err != nil {
				return err
			}
		}
		if a.Global.JSON {
			return app.WriteJSON(a.Stdout, &mcp.ListPromptsResult{Prompts: prompts})
		}
		return writePrompts(a.Stdout, prompts)
	})
}

// writePrompts writes one block per prompt, as writeTools does for
// tools.
func writePrompts(w io.Writer, prompts []mcp.Prompt) error {
	if len(prompts) == 0 {
		return app.WriteText(w, "(no prompts)")
	}
	var b bytes.Buffer
	for i, p := range prompts {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Name)
		if p.Title != "" && p.Title != p.Name {
			fmt.Fprintf(&b, " (%s)", app.Flatten(p.Title))
		}
		b.WriteByte('\n')
		if strings.TrimSpace(p.Description) != "" {
			app.IndentLines(&b, "  ", p.Description)
		}
		if len(p.Arguments) == 0 {
			b.WriteString("  No arguments.\n")
			continue
		}
		b.WriteString("  Arguments:\n")
		t := &app.Table{}
		for _, arg := range p.Arguments {
			t.Add(arg.Name, requiredWord(arg.Required), describeItem(arg.Title, arg.Description))
		}
		t.Write(&b, "    ")
	}
	_, err := w.Write(b.Bytes())
	return err
}
