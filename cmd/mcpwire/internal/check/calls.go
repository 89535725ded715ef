package check

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpwire/mcpwire/internal/jsonschema"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// A toolCall is a call --call asks for.
type toolCall struct {
	name string
	args json.RawMessage
}

// callTools calls the tools the options name: those of --call, with their
// arguments, and with --call-read-only every tool that says of itself
// that it only reads (readOnlyHint) within a closed world (openWorldHint
// false) and needs no argument, with none. No other tool is ever called.
func (c *checker) callTools(ctx context.Context, p *peer, tools []mcp.Tool) {
	byName := map[string]*mcp.Tool{}
	for i := range tools {
		byName[tools[i].Name] = &tools[i]
	}
	calls := append([]toolCall(nil), c.o.calls...)
	if c.o.callReadOnly {
		for _, t := range tools {
			if readOnlyClosed(&t) && !requiresArguments(t.InputSchema) && !calledBy(calls, t.Name) {
				calls = append(calls, toolCall{name: t.Name, args: json.RawMessage(`{}`)})
			}
		}
	}
	for _, call := range calls {
		if p.broken != nil {
			return
		}
		c.begin()
		t := byName[call.name]
		if t == nil {
			r := c.addf(chkToolCall, p.era(), Fail, "the server lists no tool %q (--call)", call.name)
			r.Subject = call.name
			continue
		}
		st, detail := c.callTool(ctx, p, t, call.args)
		r := c.add(chkToolCall, p.era(), st, detail)
		r.Subject = call.name
	}
}

// callTool calls t with args and judges its result.
func (c *checker) callTool(ctx context.Context, p *peer, t *mcp.Tool, args json.RawMessage) (Status, string) {
	r, err := p.call(ctx, mcp.MethodCallTool, map[string]any{"name": t.Name, "arguments": args})
	switch {
	case err != nil:
		return Fail, orEnded(err, p.w).Error()
	case r.resp == nil:
		return Warn, fmt.Sprintf("no answer within %s (--response-timeout)", c.o.timeout)
	case r.resp.Error != nil:
		return Warn, "the server refused the call: " + describeError(r.resp.Error)
	}
	var res struct {
		Content           []json.RawMessage `json:"content"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
		IsError           bool              `json:"isError"`
		ResultType        string            `json:"resultType"`
	}
	if err := json.Unmarshal(r.resp.Result, &res); err != nil {
		return Fail, "the result does not decode: " + err.Error()
	}
	switch res.ResultType {
	case "", string(mcp.ResultTypeComplete):
	case string(mcp.ResultTypeInputRequired):
		return Skip, "the tool asks the client for input (input_required), which check does not give"
	default:
		return Skip, fmt.Sprintf("the result is of type %q, which check does not follow", res.ResultType)
	}
	if res.Content == nil {
		return Fail, "the result has no content"
	}
	for i, b := range res.Content {
		var block struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(b, &block) != nil || block.Type == "" {
			return Fail, fmt.Sprintf("content[%d] is not a content block (no type)", i)
		}
	}
	if res.IsError {
		return Pass, "the tool reported an error (isError): " + firstText(res.Content)
	}
	if len(t.OutputSchema) == 0 {
		return Pass, ""
	}
	if len(res.StructuredContent) == 0 || string(res.StructuredContent) == "null" {
		return Fail, "the tool declares an outputSchema, but its result has no structuredContent"
	}
	s, err := jsonschema.Compile(t.OutputSchema, nil)
	switch {
	case errors.Is(err, jsonschema.ErrNeedsFullEngine):
		return Warn, "structuredContent not validated: its outputSchema needs keywords mcpwire's built-in engine lacks"
	case err != nil:
		return Fail, "its outputSchema does not compile (see tools.output-schema)"
	}
	if err := s.Validate(res.StructuredContent); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return Fail, "structuredContent does not match the outputSchema: " + ve.Message("structuredContent")
		}
		return Fail, "structuredContent does not match the outputSchema: " + err.Error()
	}
	return Pass, "structuredContent matches the outputSchema"
}

// readOnlyClosed reports whether t says it only reads, in a closed world.
func readOnlyClosed(t *mcp.Tool) bool {
	a := t.Annotations
	return a != nil && a.ReadOnlyHint != nil && *a.ReadOnlyHint && a.OpenWorldHint != nil && !*a.OpenWorldHint
}

// requiresArguments reports whether an input schema requires a property.
func requiresArguments(schema json.RawMessage) bool {
	var s struct {
		Required []string `json:"required"`
	}
	json.Unmarshal(schema, &s)
	return len(s.Required) > 0
}

// calledBy reports whether calls call the tool name.
func calledBy(calls []toolCall, name string) bool {
	for _, c := range calls {
		if c.name == name {
			return true
		}
	}
	return false
}

// firstText returns the first text block of content, clipped.
func firstText(content []json.RawMessage) string {
	for _, b := range content {
		var t mcp.TextContent
		if json.Unmarshal(b, &t) == nil && t.Text != "" {
			return clip(t.Text, 120)
		}
	}
	return "(no text)"
}

// checkListen opens a subscription for the lists whose changes the server
// declares, and checks that the first message of it is the
// acknowledgement, tagged with the subscription's id.
func (c *checker) checkListen(ctx context.Context, p *peer) {
	if p.broken != nil {
		return
	}
	c.begin()
	filter := map[string]any{}
	if p.caps.Tools != nil && p.caps.Tools.ListChanged {
		filter["toolsListChanged"] = true
	}
	if p.caps.Prompts != nil && p.caps.Prompts.ListChanged {
		filter["promptsListChanged"] = true
	}
	if p.caps.Resources != nil && p.caps.Resources.ListChanged {
		filter["resourcesListChanged"] = true
	}
	if len(filter) == 0 {
		c.add(chkListen, p.era(), Skip, "the server declares no listChanged")
		return
	}
	f := p.request(mcp.MethodSubscriptionsListen, map[string]any{"notifications": filter})
	listenID := string(mustJSON(f.id.Raw()))
	var first *jsonrpc.Request
	var final *jsonrpc.Response
	seen, err := p.w.watch(ctx, f, func(m jsonrpc.Message) bool {
		switch m := m.(type) {
		case *jsonrpc.Request:
			if subscriptionOf(m) == listenID {
				first = m
				return true
			}
		case *jsonrpc.Response:
			if m.ID == f.id {
				final = m
				return true
			}
		}
		return false
	})
	if sw, ok := p.w.(*stdioWire); ok && final == nil {
		// Over stdio a listen ends with notifications/cancelled.
		sw.notify(ctx, p.notification(mcp.NotificationCancelled, map[string]any{"requestId": f.id.Raw(), "reason": "mcpwire check is done listening"}))
	}
	switch {
	case err != nil:
		c.addf(chkListen, p.era(), Fail, "subscriptions/listen: %v", orEnded(err, p.w))
	case final != nil && final.Error != nil:
		c.addf(chkListen, p.era(), Fail, "subscriptions/listen was refused with %s, although the server declares listChanged", describeError(final.Error))
	case final != nil:
		c.add(chkListen, p.era(), Fail, "subscriptions/listen ended at once, without notifications/subscriptions/acknowledged")
	case first == nil:
		c.addf(chkListen, p.era(), Fail, "no message tagged with the subscription's id %s within %s (%d others)", listenID, c.o.timeout, len(seen))
	case first.Method != mcp.NotificationSubscriptionsAcknowledged:
		c.addf(chkListen, p.era(), Fail, "the first message of the subscription is %s, not notifications/subscriptions/acknowledged", first.Method)
	default:
		var ack struct {
			Notifications map[string]any `json:"notifications"`
		}
		json.Unmarshal(first.Params, &ack)
		var honoured []string
		for k := range ack.Notifications {
			honoured = append(honoured, k)
		}
		c.addf(chkListen, p.era(), Pass, "acknowledged: %s", strings.Join(sortedCopy(honoured), ", "))
	}
}

// subscriptionOf returns the subscription id a notification is tagged
// with, as JSON, or "".
func subscriptionOf(m *jsonrpc.Request) string {
	var params struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(m.Params, &params) != nil {
		return ""
	}
	return compact(params.Meta[mcp.MetaKeySubscriptionID])
}
