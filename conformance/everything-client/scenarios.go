package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// A scenario does what one conformance scenario asks of a client.
type scenario func(ctx context.Context, e *env) error

// scenarios maps the suite's scenario names to what the client does.
var scenarios = map[string]scenario{
	"initialize":                          listTools,
	"tools_call":                          callAddNumbers,
	"elicitation-sep1034-client-defaults": callWithElicitationDefaults,
	"sse-retry":                           callReconnection,
	"request-metadata":                    listTools,
	"sep-2322-client-request-state":       mrtrRequestState,
	"http-standard-headers":               exerciseEverything,
	"http-custom-headers":                 callFromContext,
	"http-invalid-tool-headers":           callEveryTool,
	"json-schema-ref-no-deref":            listTools,
	"json-schema-2020-12-preservation":    echoSchema,
}

func init() {
	for name, sc := range skillScenarios { // skills.go
		scenarios[name] = sc
	}
}

// connect connects to the scenario's server in the revision under test:
// MCP_CONFORMANCE_PROTOCOL_VERSION when set, else the legacy 2025-11-25
// that the 0.1.x suites test.
func (e *env) connect(ctx context.Context, opts *client.Options) (*client.Session, error) {
	o := client.Options{}
	if opts != nil {
		o = *opts
	}
	if o.Elicit == nil {
		o.Elicit = acceptWithDefaults
	}
	if o.Sample == nil {
		o.Sample = sampleCanned
	}
	if o.Roots == nil {
		o.Roots = func(context.Context) (*mcp.ListRootsResult, error) {
			return &mcp.ListRootsResult{Roots: []mcp.Root{}}, nil
		}
	}
	o.Logger = e.log
	o.Version = e.version
	if o.Version == "" {
		o.Version = mcp.LatestLegacy
	}
	c := client.New(mcp.Implementation{Name: "mcpwire-everything-client", Version: "1.0.0"}, &o)
	s, err := c.Connect(ctx, streamable.NewTransport(e.url, &streamable.ClientOptions{Logger: e.log, HTTPClient: e.httpClient}))
	if err != nil {
		return nil, err
	}
	e.log.Debug("connected", "protocol", s.ProtocolVersion(), "server", s.ServerInfo().Name)
	return s, nil
}

// tools lists every tool of the server.
func tools(ctx context.Context, s *client.Session) ([]*mcp.Tool, error) {
	var out []*mcp.Tool
	for t, err := range s.Tools(ctx) {
		var dropped *client.DroppedToolError
		if errors.As(err, &dropped) {
			continue // an invalid x-mcp-header annotation: the tool cannot be called
		}
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		out = append(out, t)
	}
	return out, nil
}

// withTools connects, lists the tools and hands both to f.
func (e *env) withTools(ctx context.Context, f func(s *client.Session, list []*mcp.Tool) error) error {
	s, err := e.connect(ctx, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	list, err := tools(ctx, s)
	if err != nil {
		return err
	}
	return f(s, list)
}

func listTools(ctx context.Context, e *env) error {
	return e.withTools(ctx, func(*client.Session, []*mcp.Tool) error { return nil })
}

// call calls a tool and fails on a protocol error (a tool's own error is
// a result, which the scenarios accept).
func call(ctx context.Context, s *client.Session, name string, args any) (*mcp.CallToolResult, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: raw})
	if err != nil {
		return nil, fmt.Errorf("tools/call %s: %w", name, err)
	}
	return res, nil
}

func callAddNumbers(ctx context.Context, e *env) error {
	return e.withTools(ctx, func(s *client.Session, list []*mcp.Tool) error {
		name := "add_numbers"
		if !slices.ContainsFunc(list, func(t *mcp.Tool) bool { return t.Name == name }) {
			if len(list) == 0 {
				return errors.New("the server lists no tools")
			}
			name = list[0].Name
		}
		_, err := call(ctx, s, name, map[string]int{"a": 5, "b": 3})
		return err
	})
}

func callWithElicitationDefaults(ctx context.Context, e *env) error {
	return e.withTools(ctx, func(s *client.Session, list []*mcp.Tool) error {
		for _, t := range list {
			if strings.Contains(t.Name, "elicitation") {
				if _, err := call(ctx, s, t.Name, map[string]any{}); err != nil {
					return err
				}
				return nil
			}
		}
		return errors.New("the server lists no elicitation tool")
	})
}

func callReconnection(ctx context.Context, e *env) error {
	return e.withTools(ctx, func(s *client.Session, list []*mcp.Tool) error {
		if len(list) == 0 {
			return errors.New("the server lists no tools")
		}
		_, err := call(ctx, s, list[0].Name, map[string]any{})
		return err
	})
}

// mrtrRequestState runs the multi round-trip tools of
// sep-2322-client-request-state; the client's MRTR loop echoes the
// request state and uses a new id for each retry.
func mrtrRequestState(ctx context.Context, e *env) error {
	s, err := e.connect(ctx, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	for _, name := range []string{"test_mrtr_echo_state", "test_mrtr_unrelated", "test_mrtr_no_state", "test_mrtr_no_result_type"} {
		if _, err := call(ctx, s, name, map[string]any{}); err != nil {
			return err
		}
	}
	return nil
}

// exerciseEverything calls every method that has standard headers.
func exerciseEverything(ctx context.Context, e *env) error {
	return e.withTools(ctx, func(s *client.Session, list []*mcp.Tool) error {
		for _, t := range list {
			if _, err := call(ctx, s, t.Name, sampleArguments(t.InputSchema)); err != nil {
				return err
			}
		}
		for r, err := range s.Resources(ctx) {
			if err != nil {
				return fmt.Errorf("resources/list: %w", err)
			}
			if _, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.URI}); err != nil && !mcp.IsResourceNotFound(err) {
				return fmt.Errorf("resources/read %s: %w", r.URI, err)
			}
		}
		for p, err := range s.Prompts(ctx) {
			if err != nil {
				return fmt.Errorf("prompts/list: %w", err)
			}
			args := map[string]string{}
			for _, a := range p.Arguments {
				args[a.Name] = "value"
			}
			if _, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: p.Name, Arguments: args}); err != nil {
				return fmt.Errorf("prompts/get %s: %w", p.Name, err)
			}
		}
		return nil
	})
}

// callFromContext makes the tool calls listed in the scenario's context.
func callFromContext(ctx context.Context, e *env) error {
	var c struct {
		ToolCalls []struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"toolCalls"`
	}
	if err := json.Unmarshal(e.context, &c); err != nil {
		return fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
	}
	s, err := e.connect(ctx, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	if _, err := tools(ctx, s); err != nil {
		return err
	}
	for _, tc := range c.ToolCalls {
		if _, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tc.Name, Arguments: tc.Arguments}); err != nil {
			return fmt.Errorf("tools/call %s: %w", tc.Name, err)
		}
	}
	return nil
}

// callEveryTool calls each tool the client kept from tools/list (it drops
// tools whose x-mcp-header annotations are invalid).
func callEveryTool(ctx context.Context, e *env) error {
	return e.withTools(ctx, func(s *client.Session, list []*mcp.Tool) error {
		for _, t := range list {
			if _, err := call(ctx, s, t.Name, sampleArguments(t.InputSchema)); err != nil {
				return err
			}
		}
		return nil
	})
}

// echoSchema sends back, verbatim, the input schema the server listed for
// json_schema_2020_12_tool.
func echoSchema(ctx context.Context, e *env) error {
	return e.withTools(ctx, func(s *client.Session, list []*mcp.Tool) error {
		i := slices.IndexFunc(list, func(t *mcp.Tool) bool { return t.Name == "json_schema_2020_12_tool" })
		if i < 0 {
			return errors.New("the server lists no json_schema_2020_12_tool")
		}
		_, err := call(ctx, s, "json_schema_echo", map[string]json.RawMessage{"schema": list[i].InputSchema})
		return err
	})
}
