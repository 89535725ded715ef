package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/store"
)

// The server's identity: its version is mcpwire's (mcpwire.Version).
const serverName = "mcpwire-everything-server"

var serverVersion = mcpwire.Version()

// The data of the suite's binary fixtures, base64 as on the wire: a 1×1
// PNG (tools-call-image, resources-read-binary, prompts-get-with-image)
// and a short WAV (tools-call-audio).
const (
	pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	wavBase64 = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

// stepDelay separates the steps of the logging and progress tools, as in
// the reference server; reconnectDelay is how long test_reconnection
// works before it answers.
const (
	stepDelay      = 50 * time.Millisecond
	reconnectDelay = 100 * time.Millisecond
)

// everything is the server and the state its fixtures change at run time:
// the triggers add and remove a tool and a prompt, and bump the watched
// resource.
type everything struct {
	srv    *server.Server
	shared *sharedFixtures // with a store: the other instances' fixtures (shared.go); nil otherwise

	mu              sync.Mutex // guards the fields below; held while a trigger changes the server
	dynamicTool     bool       // test_dynamic_tool is registered
	dynamicPrompt   bool       // test_dynamic_prompt is registered
	watchedRevision int        // revision of test://watched-resource, from 1
}

// newServer returns a server with every fixture registered. Tools come
// first, in the order of tools/list, test_simple_text leading (the
// http-header-validation scenario calls the first listed tool with {}).
// st, if not nil, shares the fixtures' state between processes;
// instrument, if not nil, adds to the server's options (telemetry).
func newServer(logger *slog.Logger, st store.Store, instrument func(*server.Options) *server.Options) (*server.Server, error) {
	opts := &server.Options{
		Instructions: "Test fixtures for the MCP conformance suite. Tools, resources and prompts have fixed names and contents.",
		Logger:       logger,
		Tasks:        taskOptions(),
		Store:        st,
	}
	if instrument != nil {
		opts = instrument(opts)
	}
	srv := server.New(mcp.Implementation{
		Name:        serverName,
		Title:       "mcpwire everything server",
		Version:     serverVersion,
		Description: "The fixtures of the MCP conformance suite, served by mcpwire",
	}, opts)
	e := &everything{srv: srv, watchedRevision: 1}
	if st != nil {
		e.shared = shareFixtures(e, st, logger)
	}
	// errors.Join evaluates its arguments in order, which keeps the
	// registration order.
	if err := errors.Join(
		e.addContentTools(),
		e.addInteractionTools(),
		e.addStatelessTools(),
		e.addMRTRTools(),
		registerTaskFixtures(srv),
		e.addScaleOutTools(),
		e.addResources(),
		e.addPrompts(),
		e.addSkills(), // skills.go: after the resources, whose order the scenarios read
	); err != nil {
		return nil, fmt.Errorf("registering the fixtures: %w", err)
	}
	return srv, nil
}

// noArgs is the arguments of a tool that takes none.
type noArgs struct{}

// pause waits for d, or until ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// pngImage returns the PNG fixture as an image block.
func pngImage() *mcp.ImageContent {
	return &mcp.ImageContent{Data: pngBase64, MimeType: "image/png"}
}

// describeElicit renders an elicitation answer as the reference server
// does: "action=accept, content={...}".
func describeElicit(res *mcp.ElicitResult) string {
	content := "{}"
	if len(res.Content) > 0 {
		if b, err := json.Marshal(res.Content); err == nil {
			content = string(b)
		}
	}
	return fmt.Sprintf("action=%s, content=%s", res.Action, content)
}

// samplingText returns the text a model answered, the text blocks joined;
// for an answer without text it says what came instead.
func samplingText(res *mcp.CreateMessageResult) string {
	var texts, others []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, t.Text)
		} else {
			others = append(others, c.Type())
		}
	}
	if len(texts) == 0 {
		return fmt.Sprintf("(no text; content types: %s)", strings.Join(others, ", "))
	}
	return strings.Join(texts, "\n")
}

// describeRoots lists roots as "uri (name)", comma-separated.
func describeRoots(res *mcp.ListRootsResult) string {
	if len(res.Roots) == 0 {
		return "none"
	}
	parts := make([]string, len(res.Roots))
	for i, r := range res.Roots {
		parts[i] = r.URI
		if r.Name != "" {
			parts[i] += " (" + r.Name + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// userText returns a user prompt message holding text.
func userText(text string) mcp.PromptMessage {
	return mcp.PromptMessage{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: text}}
}
