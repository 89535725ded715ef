package talk

import (
	"bytes"
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/mcp"
)

// resourcesOptions are the options of mcpwire resources. It has none of
// its own.
type resourcesOptions struct{}

func newResourcesCmd(a *app.App, runF func(context.Context, *resourcesOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "resources [flags] (@NAME | --url URL | -- COMMAND [ARG...])",
		Short: "List the server's resources and resource templates",
		Long: `List the server's resources (URI, name, MIME type, size, description),
then its resource templates, whose URIs "mcpwire read" also reads once
their variables are filled in.

With --json, print {"resources": [...], "resourceTemplates": [...]}, the
results of resources/list and resources/templates/list, every page merged.`,
		Example:           `  mcpwire resources -- go run ./examples/hello`,
		GroupID:           groupResources,
		Args:              app.ServerArgs(),
		ValidArgsFunction: a.CompleteArgs(0),
		RunE: a.RunE(func(cmd *cobra.Command, _ []string) error {
			o := &resourcesOptions{}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runResources(cmd.Context(), a, o)
		}),
	}
}

// resourceLists is what mcpwire resources prints with --json.
type resourceLists struct {
	Resources         []mcp.Resource         `json:"resources"`
	ResourceTemplates []mcp.ResourceTemplate `json:"resourceTemplates"`
}

// runResources lists the resources and the templates.
func runResources(ctx context.Context, a *app.App, _ *resourcesOptions) error {
	return a.WithSession(ctx, func(ctx context.Context, s *client.Session) error {
		l := resourceLists{Resources: []mcp.Resource{}, ResourceTemplates: []mcp.ResourceTemplate{}}
		if s.ServerCapabilities().Resources != nil {
			var err error
			if l.Resources, err = collect(l.Resources, s.Resources(ctx)); err != nil {
				return err
			}
			if l.ResourceTemplates, err = collect(l.ResourceTemplates, s.ResourceTemplates(ctx)); err != nil {
				return err
			}
		}
		if a.Global.JSON {
			return app.WriteJSON(a.Stdout, &l)
		}
		return writeResources(a.Stdout, &l)
	})
}

// writeResources writes a table of the resources and one of the
// templates.
func writeResources(w io.Writer, l *resourceLists) error {
	if len(l.Resources) == 0 && len(l.ResourceTemplates) == 0 {
		return app.WriteText(w, "(no resources)")
	}
	var b bytes.Buffer
	if len(l.Resources) > 0 {
		t := &app.Table{Header: []string{"URI", "NAME", "MIME TYPE", "SIZE", "DESCRIPTION"}}
		for _, r := range l.Resources {
			var size string
			if r.Size != nil {
				size = app.FormatSize(*r.Size)
			}
			t.Add(r.URI, r.Name, r.MimeType, size, describeItem(r.Title, r.Description))
		}
		t.Write(&b, "")
	}
	if len(l.ResourceTemplates) > 0 {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		t := &app.Table{Header: []string{"URI TEMPLATE", "NAME", "MIME TYPE", "DESCRIPTION"}}
		for _, r := range l.ResourceTemplates {
			t.Add(r.URITemplate, r.Name, r.MimeType, describeItem(r.Title, r.Description))
		}
		t.Write(&b, "")
	}
	_, err := w.Write(b.Bytes())
	return err
}

// describeItem returns a one-line description of a listed item: its
// title, then its description.
func describeItem(title, description string) string {
	title, description = app.Flatten(title), app.Flatten(description)
	switch {
	case title == "":
		return description
	case description == "":
		return title
	}
	return title + ": " + description
}
