package talk

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/mcp"
)

// readOptions are the options of mcpwire read.
type readOptions struct {
	URI    string // the resource to read
	Output string // --output: the file to write the contents to; "-" for stdout; "" to print
}

func newReadCmd(a *app.App, runF func(context.Context, *readOptions) error) *cobra.Command {
	o := &readOptions{}
	cmd := &cobra.Command{
		Use:   "read URI [flags] (@NAME | --url URL | -- COMMAND [ARG...])",
		Short: "Read a resource",
		Long: `Read a resource and print its text. Binary contents are never printed:
they are summed up in one line, or written to the file --output names.
"--output -" writes the raw bytes to stdout, which must not be a terminal.

A resource that asks something back, the user (elicitation) or the model
(sampling), cannot be answered here: mcpwire says what it asked and exits
with status 1; read it from mcpwire inspect, which shows the question.

With --json, print the resources/read result (binary contents in base64).`,
		Example: `  mcpwire read hello://readme -- go run ./examples/hello
  mcpwire read images://logo --output logo.png -- ./server`,
		GroupID:           groupResources,
		Args:              app.ServerArgs("URI"),
		ValidArgsFunction: a.CompleteArgs(1),
		RunE: a.RunE(func(cmd *cobra.Command, pos []string) error {
			o.URI = pos[0]
			if o.Output != "" && a.Global.JSON {
				return app.UsageErrorf("--output and --json do not go together")
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runRead(cmd.Context(), a, o)
		}),
	}
	cmd.Flags().VarP(app.NamedString(&o.Output, "FILE"), "output", "o", "write the contents to this file (- for stdout) instead of printing them")
	return cmd
}

// runRead reads the resource and prints or saves its contents.
func runRead(ctx context.Context, a *app.App, o *readOptions) error {
	if o.Output == "-" && a.IsTerminal(a.Stdout) {
		return app.UsageErrorf("--output -: stdout is a terminal; redirect it to a file, or name one with --output FILE")
	}
	asked := unanswered{verb: "read"}
	return a.WithSessionOptions(ctx, asked.options(), func(ctx context.Context, s *client.Session) error {
		readCtx, cancel := asked.start(ctx)
		res, err := s.ReadResource(readCtx, &mcp.ReadResourceParams{URI: o.URI})
		cancel()
		if err := asked.err("resource", o.URI); err != nil {
			return err
		}
		if err != nil {
			return err
		}
		switch {
		case a.Global.JSON:
			return app.WriteJSON(a.Stdout, res)
		case o.Output != "":
			return saveContents(a, o, res.Contents)
		}
		return printContents(a, res.Contents)
	})
}

// printContents prints text contents as they are and sums up binary
// ones. Several contents each get a header line with their URI.
func printContents(a *app.App, contents []mcp.ResourceContents) error {
	for _, c := range contents {
		if len(contents) > 1 {
			if err := app.WriteText(a.Stdout, app.Bracket("resource", c.URI, c.MimeType)); err != nil {
				return err
			}
		}
		if c.IsBlob() {
			line := fmt.Sprintf("[binary %s; save it with --output FILE]", joinNonEmpty(", ", c.MimeType, app.Base64Size(c.Blob)))
			if err := app.WriteText(a.Stdout, line); err != nil {
				return err
			}
			continue
		}
		if c.Text == "" {
			continue
		}
		if err := app.WriteText(a.Stdout, c.Text); err != nil {
			return err
		}
	}
	return nil
}

// saveContents writes the bytes of the one content of a resource to
// o.Output.
func saveContents(a *app.App, o *readOptions, contents []mcp.ResourceContents) error {
	if len(contents) != 1 {
		return fmt.Errorf("%s has %d contents; --output saves a resource with one", o.URI, len(contents))
	}
	data, err := contents[0].Bytes()
	if err != nil {
		return fmt.Errorf("%s: the server sent invalid base64 data", o.URI)
	}
	if o.Output == "-" {
		_, err := a.Stdout.Write(data)
		return err
	}
	if err := os.WriteFile(o.Output, data, 0o644); err != nil {
		return app.UnwrapPathError(err)
	}
	_, err = fmt.Fprintf(a.Stdout, "wrote %s to %s\n", app.FormatSize(int64(len(data))), o.Output)
	return err
}

// joinNonEmpty joins the non-empty parts with sep.
func joinNonEmpty(sep string, parts ...string) string {
	var s string
	for _, p := range parts {
		if p == "" {
			continue
		}
		if s != "" {
			s += sep
		}
		s += p
	}
	return s
}
