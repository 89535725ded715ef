package clitest

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/stdio"
)

// The server the tests talk to: in process over transport/memory for the
// unit tests (see Env), and as the "testserver" program over stdio for
// the scripts of package cli.

// LogoPNG is a 1x1 PNG image, the contents of test://logo.
var LogoPNG = []byte{
	0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d,
	0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01,
	0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00, 0x00, 0x00,
	0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xf0,
	0x1f, 0x00, 0x05, 0x00, 0x01, 0xff, 0x89, 0x99, 0x3d, 0x1d, 0x00, 0x00,
	0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
}

type echoArgs struct {
	Text  string `json:"text" jsonschema:"the text to echo"`
	Times int    `json:"times,omitempty" jsonschema:"how many times to say it"`
}

type addArgs struct {
	A int `json:"a" jsonschema:"the first term"`
	B int `json:"b" jsonschema:"the second term"`
}

type sum struct {
	Sum int `json:"sum"`
}

// SearchSchema is the input schema of the search tool, written by hand
// to show enums and defaults.
const SearchSchema = `{
  "type": "object",
  "properties": {
    "query": {"type": "string", "description": "what to look for"},
    "limit": {"type": "integer", "description": "at most this many hits", "default": 10},
    "order": {"type": "string", "enum": ["relevance", "date"]},
    "tags": {"type": "array", "items": {"type": "string"}}
  },
  "required": ["query"]
}`

// ServerOptions choose the variants of the test server.
type ServerOptions struct {
	LegacyOnly bool // serve only the legacy revisions
	Process    bool // running as its own process: add the crash tool
	Shout      bool // greet in capitals: a server that answers otherwise
	Env        bool // add the tools getenv and cwd, which tell the server's environment
	Lying      bool // add the tool liar, whose structuredContent breaks its outputSchema
	Asking     bool // add the tools, prompts and resources (test://NAME) ask (asks the user: elicitation) and think (asks the model: sampling)
}

// LiarSchema is the outputSchema of the tool liar (ServerOptions.Lying),
// whose results break it: their sum is a string.
const LiarSchema = `{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"]}`

// NewServer returns the test server: the tools echo, add (structured
// content), fail (isError), search (a hand-written schema), media (a block
// of each kind), slow (never answers); the resources test://readme and
// test://logo and the template test://notes/{id}; the prompts greet and
// plain.
func NewServer(o ServerOptions) (*server.Server, error) {
	var opts server.Options
	if o.LegacyOnly {
		for _, v := range mcp.SupportedVersions() {
			if mcp.IsLegacy(v) {
				opts.Versions = append(opts.Versions, v)
			}
		}
	}
	s := server.New(mcp.Implementation{Name: "testserver", Version: "1.0.0"}, &opts)
	yes := true
	errs := []error{
		server.AddTool(s, &mcp.Tool{Name: "echo", Title: "Echo", Description: "Echoes the text back."},
			func(ctx context.Context, r *server.Request, in echoArgs) (string, error) {
				n := max(in.Times, 1)
				return strings.TrimSuffix(strings.Repeat(in.Text+" ", n), " "), nil
			}),
		server.AddTool(s, &mcp.Tool{Name: "add", Description: "Adds two integers.\nThe sum is structured content."},
			func(ctx context.Context, r *server.Request, in addArgs) (sum, error) {
				return sum{in.A + in.B}, nil
			}),
		server.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always fails."},
			func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
				return "", errors.New("it broke: the disk is full")
			}),
		s.AddTool(&mcp.Tool{
			Name: "search", Description: "Searches the notes.", InputSchema: json.RawMessage(SearchSchema),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: &yes},
		}, func(ctx context.Context, r *server.Request, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
			var in struct{ Query string }
			if err := json.Unmarshal(p.Arguments, &in); err != nil {
				return nil, err
			}
			return server.TextResult(fmt.Sprintf("no notes match %q", in.Query)), nil
		}),
		server.AddTool(s, &mcp.Tool{Name: "media", Description: "Returns one block of each kind."},
			func(ctx context.Context, r *server.Request, in struct{}) (*mcp.CallToolResult, error) {
				size := int64(len(LogoPNG))
				return &mcp.CallToolResult{Content: mcp.ContentList{
					&mcp.TextContent{Text: "Here is the logo:"},
					mcp.NewImageContent(LogoPNG, "image/png"),
					mcp.NewAudioContent(make([]byte, 1500), "audio/wav"),
					&mcp.ResourceLink{Resource: mcp.Resource{URI: "test://logo", Name: "logo", MimeType: "image/png", Size: &size}},
					&mcp.EmbeddedResource{Resource: mcp.ResourceContents{URI: "test://readme", MimeType: "text/plain", Text: "Hello from the test server."}},
					&mcp.EmbeddedResource{Resource: mcp.NewBlobContents("test://logo", "image/png", LogoPNG)},
				}}, nil
			}),
		server.AddTool(s, &mcp.Tool{Name: "slow", Description: "Never answers."},
			func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
				<-ctx.Done()
				return "", ctx.Err()
			}),
		s.AddResource(&mcp.Resource{URI: "test://readme", Name: "readme", Title: "Read me", Description: "What this server is.", MimeType: "text/plain"},
			func(ctx context.Context, r *server.Request, p *mcp.ReadResourceParams, _ map[string]string) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: p.URI, MimeType: "text/plain", Text: "Hello from the test server.\n"}}}, nil
			}),
		s.AddResource(&mcp.Resource{URI: "test://logo", Name: "logo", MimeType: "image/png", Size: new(int64(len(LogoPNG)))},
			func(ctx context.Context, r *server.Request, p *mcp.ReadResourceParams, _ map[string]string) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{mcp.NewBlobContents(p.URI, "image/png", LogoPNG)}}, nil
			}),
		s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://notes/{id}", Name: "note", Description: "One note, by id."},
			func(ctx context.Context, r *server.Request, p *mcp.ReadResourceParams, vars map[string]string) (*mcp.ReadResourceResult, error) {
				if vars["id"] == "all" {
					return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{
						{URI: "test://notes/1", MimeType: "text/plain", Text: "first"},
						{URI: "test://notes/2", MimeType: "text/plain", Text: "second"},
					}}, nil
				}
				return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: p.URI, Text: "note " + vars["id"]}}}, nil
			}, nil),
		s.AddPrompt(&mcp.Prompt{Name: "greet", Title: "Greeting", Description: "Greets someone.", Arguments: []mcp.PromptArgument{
			{Name: "who", Description: "who to greet", Required: true},
			{Name: "mood", Description: "cheerful or grumpy"},
		}}, func(ctx context.Context, r *server.Request, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
			greeting := "Hello"
			if p.Arguments["mood"] == "grumpy" {
				greeting = "Oh, it's you"
			}
			return &mcp.GetPromptResult{Description: "A greeting", Messages: []mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "Greet " + p.Arguments["who"] + "."}},
				{Role: mcp.RoleAssistant, Content: &mcp.TextContent{Text: shoutIf(o.Shout, greeting+", "+p.Arguments["who"]+"!")}},
			}}, nil
		}, nil),
		s.AddPrompt(&mcp.Prompt{Name: "plain"}, func(ctx context.Context, r *server.Request, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: &mcp.EmbeddedResource{Resource: mcp.ResourceContents{URI: "test://readme", Text: "Hello from the test server."}}},
			}}, nil
		}, nil),
	}
	if o.Asking {
		errs = append(errs,
			server.AddTool(s, &mcp.Tool{Name: "ask", Description: "Asks the user's name, and greets them."},
				func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
					res, err := r.Elicit(ctx, &mcp.ElicitParams{Message: "What is your name?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)})
					if err != nil {
						return "", err
					}
					if res.Action != mcp.ElicitAccept {
						return "No name given.", nil
					}
					return fmt.Sprintf("Hello, %v!", res.Content["name"]), nil
				}),
			server.AddTool(s, &mcp.Tool{Name: "think", Description: "Asks the model for a haiku."},
				func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
					res, err := r.Sample(ctx, &mcp.CreateMessageParams{MaxTokens: 100, Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingContent{&mcp.TextContent{Text: "Write a haiku."}}}}})
					if err != nil {
						return "", err
					}
					return fmt.Sprintf("The model says: %v", res.Content), nil
				}))
		// A prompt and a resource may ask too: each of ask and think
		// again, as a prompt and as the resources test://ask and
		// test://think.
		asks := map[string]func(context.Context, *server.Request) (string, error){
			"ask": func(ctx context.Context, r *server.Request) (string, error) {
				res, err := r.Elicit(ctx, &mcp.ElicitParams{Message: "Which topic?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"topic":{"type":"string"}},"required":["topic"]}`)})
				if err != nil {
					return "", err
				}
				return fmt.Sprintf("Topic: %v", res.Content["topic"]), nil
			},
			"think": func(ctx context.Context, r *server.Request) (string, error) {
				res, err := r.Sample(ctx, &mcp.CreateMessageParams{MaxTokens: 100, Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingContent{&mcp.TextContent{Text: "Pick a topic."}}}}})
				if err != nil {
					return "", err
				}
				return fmt.Sprintf("Topic: %v", res.Content), nil
			},
		}
		for name, ask := range asks {
			errs = append(errs,
				s.AddPrompt(&mcp.Prompt{Name: name, Description: "Asks before it renders."}, func(ctx context.Context, r *server.Request, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
					text, err := ask(ctx, r)
					if err != nil {
						return nil, err
					}
					return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: text}}}}, nil
				}, nil),
				s.AddResource(&mcp.Resource{URI: "test://" + name, Name: name, MimeType: "text/plain"},
					func(ctx context.Context, r *server.Request, p *mcp.ReadResourceParams, _ map[string]string) (*mcp.ReadResourceResult, error) {
						text, err := ask(ctx, r)
						if err != nil {
							return nil, err
						}
						return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: p.URI, MimeType: "text/plain", Text: text}}}, nil
					}))
		}
	}
	if o.Lying {
		errs = append(errs, s.AddTool(&mcp.Tool{Name: "liar", Description: "Adds, and says so wrongly.", OutputSchema: json.RawMessage(LiarSchema)},
			func(ctx context.Context, r *server.Request, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{
					Content:           mcp.ContentList{&mcp.TextContent{Text: `{"sum":"three"}`}},
					StructuredContent: json.RawMessage(`{"sum":"three"}`),
				}, nil
			}))
	}
	if o.Env {
		errs = append(errs,
			server.AddTool(s, &mcp.Tool{Name: "getenv", Description: "Returns an environment variable of the server."},
				func(ctx context.Context, r *server.Request, in struct {
					Name string `json:"name"`
				}) (string, error) {
					v, ok := os.LookupEnv(in.Name)
					if !ok {
						return "(unset)", nil
					}
					return v, nil
				}),
			server.AddTool(s, &mcp.Tool{Name: "cwd", Description: "Returns the server's working directory."},
				func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
					return os.Getwd()
				}))
	}
	if o.Process {
		errs = append(errs, server.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exits the server."},
			func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
				fmt.Fprintln(os.Stderr, "testserver: crashing on purpose")
				os.Exit(7)
				return "", nil
			}))
	}
	return s, errors.Join(errs...)
}

// shoutIf returns s in capitals when shout is set.
func shoutIf(shout bool, s string) string {
	if shout {
		return strings.ToUpper(s)
	}
	return s
}

// ServerMain is the "testserver" program of the scripts: the test server
// over stdio.
//
//	testserver [-legacy] [-fail-start] [-chatty] [-shout] [-env] [-lying] [-asking] [-print-env NAME]
func ServerMain() {
	fs := flag.NewFlagSet("testserver", flag.ExitOnError)
	legacy := fs.Bool("legacy", false, "serve only the legacy protocol revisions")
	failStart := fs.Bool("fail-start", false, "fail at once, as a misconfigured server does")
	chatty := fs.Bool("chatty", false, "write a line to stderr on start")
	shout := fs.Bool("shout", false, "greet in capitals")
	env := fs.Bool("env", false, "add the tools getenv and cwd")
	lying := fs.Bool("lying", false, "add the tool liar, whose results break its outputSchema")
	asking := fs.Bool("asking", false, "add the tools ask (elicitation) and think (sampling)")
	printEnv := fs.String("print-env", "", "write NAME=VALUE of this environment variable to stderr on start")
	fs.Parse(os.Args[1:])
	if *failStart {
		fmt.Fprintln(os.Stderr, "testserver: starting")
		fmt.Fprintln(os.Stderr, "testserver: cannot open config.toml: no such file")
		os.Exit(2)
	}
	if *printEnv != "" {
		fmt.Fprintf(os.Stderr, "%s=%s\n", *printEnv, os.Getenv(*printEnv))
	}
	if *chatty {
		fmt.Fprintln(os.Stderr, "testserver: ready on stdio")
	}
	s, err := NewServer(ServerOptions{LegacyOnly: *legacy, Process: true, Shout: *shout, Env: *env, Lying: *lying, Asking: *asking})
	if err != nil {
		fmt.Fprintln(os.Stderr, "testserver:", err)
		os.Exit(1)
	}
	if err := s.Run(context.Background(), stdio.New(nil)); err != nil {
		fmt.Fprintln(os.Stderr, "testserver:", err)
		os.Exit(1)
	}
}
