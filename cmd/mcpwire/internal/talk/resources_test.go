package talk

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

const wantResources = `URI            NAME    MIME TYPE   SIZE      DESCRIPTION
test://readme  readme  text/plain            Read me: What this server is.
test://logo    logo    image/png   70 bytes

URI TEMPLATE       NAME  DESCRIPTION
test://notes/{id}  note  One note, by id.
`

func TestRunResources(t *testing.T) {
	for _, v := range eras {
		t.Run(string(v), func(t *testing.T) {
			e := newTestEnv(t, clitest.ServerOptions{})
			e.App.Global.Protocol = v
			if err := runResources(context.Background(), e.App, &resourcesOptions{}); err != nil {
				t.Fatal(err)
			}
			clitest.CheckOutput(t, "stdout", e.Stdout.String(), wantResources)
		})
	}
}

func TestRunResourcesJSON(t *testing.T) {
	e := newTestEnv(t, clitest.ServerOptions{})
	e.App.Global.JSON = true
	if err := runResources(context.Background(), e.App, &resourcesOptions{}); err != nil {
		t.Fatal(err)
	}
	var l resourceLists
	if err := json.Unmarshal(e.Stdout.Bytes(), &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Resources) != 2 || len(l.ResourceTemplates) != 1 || l.ResourceTemplates[0].URITemplate != "test://notes/{id}" {
		t.Errorf("%+v", l)
	}
}

func TestRunResourcesNone(t *testing.T) {
	e := newTestEnv(t, clitest.ServerOptions{})
	e.App.Connect = clitest.MemoryTarget(t, server.New(mcp.Implementation{Name: "empty", Version: "1"}, nil))
	if err := runResources(context.Background(), e.App, &resourcesOptions{}); err != nil {
		t.Fatal(err)
	}
	clitest.CheckOutput(t, "stdout", e.Stdout.String(), "(no resources)\n")

	e.Stdout.Reset()
	e.App.Global.JSON = true
	e.App.Connect = clitest.MemoryTarget(t, server.New(mcp.Implementation{Name: "empty", Version: "1"}, nil))
	if err := runResources(context.Background(), e.App, &resourcesOptions{}); err != nil {
		t.Fatal(err)
	}
	clitest.CheckOutput(t, "stdout", e.Stdout.String(), "{\n  \"resources\": [],\n  \"resourceTemplates\": []\n}\n")
}

// TestRunResourcesTemplatesOnly: a server with templates and no plain
// resources prints the templates' table alone.
func TestRunResourcesTemplatesOnly(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	err := srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "db://{table}", Name: "table", MimeType: "application/json"},
		func(context.Context, *server.Request, *mcp.ReadResourceParams, map[string]string) (*mcp.ReadResourceResult, error) {
			return nil, nil
		}, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := newTestEnv(t, clitest.ServerOptions{})
	e.App.Connect = clitest.MemoryTarget(t, srv)
	if err := runResources(context.Background(), e.App, &resourcesOptions{}); err != nil {
		t.Fatal(err)
	}
	clitest.CheckOutput(t, "stdout", e.Stdout.String(), "URI TEMPLATE  NAME   MIME TYPE\ndb://{table}  table  application/json\n")
}
