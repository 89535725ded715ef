package talk

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/mcp"
)

// getOptions are the options of mcpwire get.
type getOptions struct {
	Prompt    string            // the prompt to render
	Arguments map[string]string // its arguments
}

func newGetCmd(a *app.App, runF func(context.Context, *getOptions) error) *cobra.Command {
	args := "{}"
	cmd := &cobra.Command{
		Use:   "get PROMPT [flags] (@NAME | --url URL | -- COMMAND [ARG...])",
		Short: "Render a prompt",
		Long: `Render a prompt with the arguments of --args, a JSON object of strings,
and print its messages, each under a line naming its role.

A prompt that asks something back, the user (elicitation) or the model
(sampling), cannot be answered here: mcpwire says what it asked and exits
with status 1; get it from mcpwire inspect, which shows the question.

With --json, print the prompts/get result.`,
		Example:           `  mcpwire get welcome --args '{"name": "Ada"}' -- go run ./examples/hello`,
		GroupID:           groupPrompts,
		Args:              app.ServerArgs("PROMPT"),
		ValidArgsFunction: a.CompleteArgs(1),
		RunE: a.RunE(func(cmd *cobra.Command, pos []string) error {
			o := &getOptions{Prompt: pos[0]}
			var err error
			if o.Arguments, err = app.ReadStringArgs(args, a.Stdin); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runGet(cmd.Context(), a, o)
		}),
	}
	cmd.Flags().Var(app.NamedString(&args, "JSON"), "args", promptArgsUsage)
	return cmd
}

// runGet renders the prompt and prints its messages.
func runGet(ctx context.Context, a *app.App, o *getOptions) error {
	asked := unanswered{verb: "get"}
	return a.WithSessionOptions(ctx, asked.options(), func(ctx context.Context, s *client.Session) error {
		getCtx, cancel := asked.start(ctx)
		res, err := s.GetPrompt(getCtx, &mcp.GetPromptParams{Name: o.Prompt, Arguments: o.Arguments})
		cancel()
		if err := asked.err("prompt", o.Prompt); err != nil {
			return err
		}
		if err != nil {
			return err
		}
		if a.Global.JSON {
			return app.WriteJSON(a.Stdout, res)
		}
		return writePromptResult(a.Stdout, res)
	})
}

// writePromptResult writes the description of a rendered prompt, then
// each message under a "[role]" line, a blank line between them.
func writePromptResult(w io.Writer, res *mcp.GetPromptResult) error {
	sep := false
	if res.Description != "" {
		if err := app.WriteText(w, res.Description); err != nil {
			return err
		}
		sep = true
	}
	for _, m := range res.Messages {
		if sep {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		sep = true
		if err := app.WriteText(w, "["+string(m.Role)+"]"); err != nil {
			return err
		}
		if err := app.WriteBlock(w, m.Content); err != nil {
			return err
		}
	}
	return nil
}
