package check

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/yosida95/uritemplate/v3"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/frames"
	"github.com/mcpwire/mcpwire/internal/jsonschema"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// Bounds of what the checks read.
const (
	// DefaultMaxPages bounds the pages of one list.
	DefaultMaxPages = 100
	// DefaultMaxItems bounds the items of one list, over its pages.
	DefaultMaxItems = 10000
	// maxReads bounds the resources read, and the prompts rendered.
	maxReads = 5
	// maxListed bounds the names a detail lists.
	maxListed = 8
)

// toolName is the form of a tool's name the specification recommends:
// 1 to 128 characters of A-Z a-z 0-9 _ - . (a loop: the regular
// expression it was compiled at every start of mcpwire, 1,700 allocations)
func toolName(s string) bool {
	if len(s) < 1 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// A listing is every page of a list.
type listing struct {
	items    []json.RawMessage
	pages    int
	firstRaw json.RawMessage // the first page's result
	problem  string          // a broken pagination, if any
}

// list reads every page of the list method, whose items are in member
// key, following nextCursor: a cursor that comes back is a loop, a cursor
// the server refuses is its own mistake, and the pages and items are
// bounded.
func (c *checker) list(ctx context.Context, p *peer, method, key string) (*listing, error) {
	l := &listing{}
	seen := map[string]bool{}
	cursor := ""
	for {
		var params map[string]any
		if cursor != "" {
			params = map[string]any{"cursor": cursor}
		}
		r, err := p.call(ctx, method, params)
		switch {
		case err != nil:
			return l, orEnded(err, p.w)
		case r.resp == nil:
			return l, fmt.Errorf("%s went unanswered", method)
		case r.resp.Error != nil && cursor != "":
			l.problem = fmt.Sprintf("the server refused its own nextCursor %q on page %d: %s", clip(cursor, 60), l.pages+1, describeError(r.resp.Error))
			return l, nil
		case r.resp.Error != nil:
			return l, r.resp.Error
		}
		var page map[string]json.RawMessage
		if err := json.Unmarshal(r.resp.Result, &page); err != nil {
			return l, fmt.Errorf("%s: the result is not an object: %v", method, err)
		}
		if l.pages == 0 {
			l.firstRaw = r.resp.Result
		}
		l.pages++
		var items []json.RawMessage
		if raw, ok := page[key]; !ok {
			l.problem = fmt.Sprintf("page %d has no %q", l.pages, key)
			return l, nil
		} else if err := json.Unmarshal(raw, &items); err != nil {
			l.problem = fmt.Sprintf("page %d: %q is not an array", l.pages, key)
			return l, nil
		}
		l.items = append(l.items, items...)
		var next string
		if raw, ok := page["nextCursor"]; ok && string(raw) != "null" {
			if err := json.Unmarshal(raw, &next); err != nil {
				l.problem = fmt.Sprintf("page %d: nextCursor %s is not a string", l.pages, clip(string(raw), 60))
				return l, nil
			}
		}
		switch {
		case next == "":
			return l, nil
		case seen[next] || next == cursor:
			l.problem = fmt.Sprintf("nextCursor %q came back on page %d: the pages loop", clip(next, 60), l.pages)
			return l, nil
		case l.pages >= DefaultMaxPages:
			l.problem = fmt.Sprintf("more than %d pages", DefaultMaxPages)
			return l, nil
		case len(l.items) >= DefaultMaxItems:
			l.problem = fmt.Sprintf("more than %d items", DefaultMaxItems)
			return l, nil
		}
		seen[next] = true
		cursor = next
	}
}

// featureChecks checks the tools, resources and prompts the server
// declares.
func (c *checker) featureChecks(ctx context.Context, p *peer) {
	if p.broken != nil {
		return
	}
	if p.caps.Tools != nil {
		c.toolChecks(ctx, p)
	}
	if p.caps.Resources != nil && p.broken == nil {
		c.resourceChecks(ctx, p)
	}
	if p.caps.Prompts != nil && p.broken == nil {
		c.promptChecks(ctx, p)
	}
	if p.broken == nil {
		c.checkInvalidCursor(ctx, p)
	}
	if _, ok := p.caps.Skills(); ok && p.broken == nil {
		c.skillChecks(ctx, p) // the Skills extension (skills.go)
	}
}

// toolChecks lists the tools, checks their schemas, and calls those the
// options ask for.
func (c *checker) toolChecks(ctx context.Context, p *peer) {
	c.begin()
	l, err := c.list(ctx, p, mcp.MethodListTools, "tools")
	if err != nil {
		c.addf(chkToolsList, p.era(), Fail, "tools/list: %v", err)
		return
	}
	var tools []mcp.Tool
	var problems, warnings []string
	if l.problem != "" {
		problems = append(problems, l.problem)
	}
	names := map[string]int{}
	for i, raw := range l.items {
		var t mcp.Tool
		if err := json.Unmarshal(raw, &t); err != nil {
			problems = append(problems, fmt.Sprintf("tool %d does not decode: %v", i, err))
			continue
		}
		switch {
		case t.Name == "":
			problems = append(problems, fmt.Sprintf("tool %d has no name", i))
			continue
		case !toolName(t.Name):
			warnings = append(warnings, fmt.Sprintf("%q is not 1 to 128 characters of A-Z a-z 0-9 _ - .", t.Name))
		}
		if !hasMember(raw, "inputSchema") {
			problems = append(problems, fmt.Sprintf("%s has no inputSchema", t.Name))
		}
		if names[t.Name]++; names[t.Name] == 2 {
			warnings = append(warnings, fmt.Sprintf("%q is listed twice", t.Name))
		}
		tools = append(tools, t)
	}
	listed := c.rec.take() // the schema checks show them too
	c.rec.put(listed)
	switch {
	case len(problems) > 0:
		c.add(chkToolsList, p.era(), Fail, lines(problems))
	case len(warnings) > 0:
		c.add(chkToolsList, p.era(), Warn, lines(warnings))
	default:
		c.addf(chkToolsList, p.era(), Pass, "%d tools on %d page(s)", len(tools), l.pages)
	}
	c.checkSchemas(p, tools, listed)
	c.checkUnknownTool(ctx, p)
	c.callTools(ctx, p, tools)
}

// checkSchemas compiles every tool's input and output schema; listed are
// the frames of tools/list, which a failure shows.
func (c *checker) checkSchemas(p *peer, tools []mcp.Tool, listed []frames.Record) {
	var in, inWarn, out, outWarn []string
	withOutput := 0
	for _, t := range tools {
		schema := t.InputSchema
		if len(schema) == 0 {
			schema = []byte(`{"type":"object"}`) // reported by tools.list
		}
		st, why := judgeSchema(schema, true)
		if st == Pass && p.modern {
			// Over HTTP a client must drop a tool whose x-mcp-header
			// annotations are invalid: it cannot be called.
			if _, err := mcp.ToolHeaderParams(schema); err != nil {
				st, why = Fail, strings.TrimPrefix(err.Error(), "mcp: ")
			}
		}
		switch st {
		case Fail:
			in = append(in, t.Name+": "+why)
		case Warn:
			inWarn = append(inWarn, t.Name+": "+why)
		}
		if len(t.OutputSchema) == 0 {
			continue
		}
		withOutput++
		st, why = judgeSchema(t.OutputSchema, !p.modern)
		switch st {
		case Fail:
			out = append(out, t.Name+": "+why)
		case Warn:
			outWarn = append(outWarn, t.Name+": "+why)
		}
	}
	report := func(chk *Check, fails, warns []string, n int) {
		c.begin()
		c.rec.put(listed)
		switch {
		case len(fails) > 0:
			c.add(chk, p.era(), Fail, lines(append(fails, warns...)))
		case len(warns) > 0:
			c.add(chk, p.era(), Warn, lines(warns))
		case n == 0:
			c.add(chk, p.era(), Skip, "no tool declares one")
		default:
			c.addf(chk, p.era(), Pass, "%d schemas", n)
		}
	}
	report(chkInputSchema, in, inWarn, len(tools))
	report(chkOutputSchema, out, outWarn, withOutput)
}

// judgeSchema compiles a tool's schema: it must be valid JSON Schema,
// with a root of type object when object is set.
func judgeSchema(raw json.RawMessage, object bool) (Status, string) {
	var root map[string]json.RawMessage
	if err := json.Unmarshal(raw, &root); err != nil {
		return Fail, "not a JSON object"
	}
	if object {
		var typ string
		if json.Unmarshal(root["type"], &typ) != nil || typ != "object" {
			got := "no type"
			if t, ok := root["type"]; ok {
				got = "type " + compact(t)
			}
			return Fail, fmt.Sprintf(`the root has %s, not "type": "object"`, got)
		}
	}
	_, err := jsonschema.Compile(raw, nil)
	switch {
	case err == nil, errors.Is(err, jsonschema.ErrNeedsFullEngine):
		// Valid: the meta-schema check passed; only validating instances
		// would need the full engine.
		return Pass, ""
	case errors.Is(err, jsonschema.ErrRemoteRef):
		return Warn, "refers to a remote schema, which clients must not fetch (SEP-2106)"
	case errors.Is(err, jsonschema.ErrUnsupportedDialect):
		return Warn, strings.TrimPrefix(err.Error(), "jsonschema: ")
	}
	return Fail, strings.TrimPrefix(err.Error(), "jsonschema: ")
}

// checkUnknownTool calls a tool that no server has: no side effect, and a
// JSON-RPC error expected.
func (c *checker) checkUnknownTool(ctx context.Context, p *peer) {
	c.begin()
	const name = "mcpwire-check-no-such-tool"
	r, err := p.call(ctx, mcp.MethodCallTool, map[string]any{"name": name, "arguments": map[string]any{}})
	code, isErr := codeOf(r)
	switch {
	case err != nil:
		c.addf(chkUnknownTool, p.era(), Fail, "%v", orEnded(err, p.w))
	case r.resp == nil:
		c.addf(chkUnknownTool, p.era(), Fail, "tools/call of %q went unanswered", name)
	case !isErr:
		var res mcp.CallToolResult
		json.Unmarshal(r.resp.Result, &res)
		if res.IsError {
			c.addf(chkUnknownTool, p.era(), Warn, "the server answered a result with isError; an unknown tool is a protocol error (-32602), not a tool's failure")
		} else {
			c.addf(chkUnknownTool, p.era(), Fail, "the server answered tools/call of %q with a result", name)
		}
	case code != jsonrpc.CodeInvalidParams:
		c.addf(chkUnknownTool, p.era(), Warn, "refused with %s; the specification's example is -32602", describeError(r.resp.Error))
	default:
		c.add(chkUnknownTool, p.era(), Pass, "")
	}
}

// resourceChecks lists the resources and templates, reads a few, and
// asks for one that does not exist.
func (c *checker) resourceChecks(ctx context.Context, p *peer) {
	c.begin()
	l, err := c.list(ctx, p, mcp.MethodListResources, "resources")
	var resources []mcp.Resource
	if err != nil {
		c.addf(chkResourcesList, p.era(), Fail, "resources/list: %v", err)
	} else {
		var problems []string
		if l.problem != "" {
			problems = append(problems, l.problem)
		}
		for i, raw := range l.items {
			var r mcp.Resource
			if err := json.Unmarshal(raw, &r); err != nil {
				problems = append(problems, fmt.Sprintf("resource %d does not decode: %v", i, err))
				continue
			}
			if u, err := url.Parse(r.URI); err != nil || u.Scheme == "" {
				problems = append(problems, fmt.Sprintf("resource %d: %q is not an absolute URI", i, r.URI))
			}
			if r.Name == "" {
				problems = append(problems, fmt.Sprintf("resource %q has no name", r.URI))
			}
			resources = append(resources, r)
		}
		if len(problems) > 0 {
			c.add(chkResourcesList, p.era(), Fail, lines(problems))
		} else {
			c.addf(chkResourcesList, p.era(), Pass, "%d resources on %d page(s)", len(resources), l.pages)
		}
	}
	c.checkReads(ctx, p, resources)
	c.checkNotFound(ctx, p)
	c.checkTemplates(ctx, p)
	if !p.modern && p.caps.Resources.Subscribe && len(resources) > 0 {
		c.checkSubscribe(ctx, p, resources[0].URI)
	}
}

// checkReads reads the first listed resources.
func (c *checker) checkReads(ctx context.Context, p *peer, resources []mcp.Resource) {
	c.begin()
	if len(resources) == 0 {
		c.add(chkResourcesRead, p.era(), Skip, "no resource listed")
		return
	}
	var problems []string
	n := 0
	for _, res := range resources[:min(len(resources), maxReads)] {
		n++
		r, err := p.call(ctx, mcp.MethodReadResource, map[string]any{"uri": res.URI})
		switch {
		case err != nil:
			c.addf(chkResourcesRead, p.era(), Fail, "%s: %v", res.URI, orEnded(err, p.w))
			return
		case r.resp == nil:
			problems = append(problems, res.URI+": unanswered")
			continue
		case r.resp.Error != nil:
			problems = append(problems, res.URI+": "+describeError(r.resp.Error))
			continue
		}
		if why := badContents(r.resp.Result); why != "" {
			problems = append(problems, res.URI+": "+why)
		} else if p.readable == "" {
			p.readable = res.URI
		}
	}
	if len(problems) > 0 {
		c.add(chkResourcesRead, p.era(), Fail, lines(problems))
		return
	}
	c.addf(chkResourcesRead, p.era(), Pass, "%d of %d read", n, len(resources))
}

// badContents says what is wrong with a resources/read result, or "".
func badContents(result json.RawMessage) string {
	var res struct {
		Contents   []map[string]json.RawMessage `json:"contents"`
		ResultType string                       `json:"resultType"`
	}
	if err := json.Unmarshal(result, &res); err != nil {
		return "the result does not decode: " + err.Error()
	}
	if res.ResultType == string(mcp.ResultTypeInputRequired) {
		return "" // it asks for input (2026-07-28): not followed here
	}
	if res.Contents == nil {
		return "no contents"
	}
	for i, ct := range res.Contents {
		var uri, text, blob string
		_, hasText := ct["text"]
		_, hasBlob := ct["blob"]
		json.Unmarshal(ct["uri"], &uri)
		json.Unmarshal(ct["text"], &text)
		json.Unmarshal(ct["blob"], &blob)
		switch {
		case uri == "":
			return fmt.Sprintf("contents[%d] has no uri", i)
		case hasText == hasBlob:
			return fmt.Sprintf("contents[%d] has %s", i, map[bool]string{true: "both text and blob", false: "neither text nor blob"}[hasText])
		case hasBlob:
			if _, err := base64.StdEncoding.DecodeString(blob); err != nil {
				return fmt.Sprintf("contents[%d].blob is not base64: %v", i, err)
			}
		}
	}
	return ""
}

// checkNotFound reads a resource that does not exist.
func (c *checker) checkNotFound(ctx context.Context, p *peer) {
	c.begin()
	const uri = "mcpwire-check:///no/such/resource"
	r, err := p.call(ctx, mcp.MethodReadResource, map[string]any{"uri": uri})
	code, isErr := codeOf(r)
	want := mcp.CodeResourceNotFound
	if p.modern {
		want = jsonrpc.CodeInvalidParams
	}
	switch {
	case err != nil:
		c.addf(chkNotFound, p.era(), Fail, "%v", orEnded(err, p.w))
	case r.resp == nil:
		c.addf(chkNotFound, p.era(), Fail, "resources/read of %s went unanswered", uri)
	case !isErr:
		c.addf(chkNotFound, p.era(), Warn, "resources/read of %s was answered with a result", uri)
	case p.modern && code == mcp.CodeResourceNotFound:
		c.add(chkNotFound, p.era(), Fail, "-32002 in the 2026-07-28 revision, which reserves it: resource not found is -32602 there")
	case code != want:
		c.addf(chkNotFound, p.era(), Warn, "refused with %s; want %s", describeError(r.resp.Error), codeName(want))
	default:
		c.add(chkNotFound, p.era(), Pass, "")
	}
}

// checkTemplates lists the resource templates and parses each.
func (c *checker) checkTemplates(ctx context.Context, p *peer) {
	c.begin()
	l, err := c.list(ctx, p, mcp.MethodListResourceTemplates, "resourceTemplates")
	if err != nil {
		var je *jsonrpc.Error
		if errors.As(err, &je) && je.Code == jsonrpc.CodeMethodNotFound {
			c.add(chkTemplates, p.era(), Skip, "the server has no resources/templates/list")
			return
		}
		c.addf(chkTemplates, p.era(), Fail, "resources/templates/list: %v", err)
		return
	}
	var problems []string
	if l.problem != "" {
		problems = append(problems, l.problem)
	}
	for i, raw := range l.items {
		var t mcp.ResourceTemplate
		if err := json.Unmarshal(raw, &t); err != nil {
			problems = append(problems, fmt.Sprintf("template %d does not decode: %v", i, err))
			continue
		}
		if _, err := uritemplate.New(t.URITemplate); err != nil || t.URITemplate == "" {
			problems = append(problems, fmt.Sprintf("%q is not an RFC 6570 URI template", t.URITemplate))
		}
		if t.Name == "" {
			problems = append(problems, fmt.Sprintf("template %q has no name", t.URITemplate))
		}
	}
	if len(problems) > 0 {
		c.add(chkTemplates, p.era(), Fail, lines(problems))
		return
	}
	c.addf(chkTemplates, p.era(), Pass, "%d template(s)", len(l.items))
}

// checkSubscribe subscribes to a resource, and unsubscribes.
func (c *checker) checkSubscribe(ctx context.Context, p *peer, uri string) {
	c.begin()
	for _, method := range []string{mcp.MethodSubscribe, mcp.MethodUnsubscribe} {
		r, err := p.call(ctx, method, map[string]any{"uri": uri})
		switch {
		case err != nil:
			c.addf(chkSubscribe, p.era(), Fail, "%s: %v", method, orEnded(err, p.w))
			return
		case r.resp == nil:
			c.addf(chkSubscribe, p.era(), Fail, "%s of %s went unanswered", method, uri)
			return
		case r.resp.Error != nil:
			c.addf(chkSubscribe, p.era(), Fail, "%s of %s: %s, although resources.subscribe is declared", method, uri, describeError(r.resp.Error))
			return
		}
	}
	c.addf(chkSubscribe, p.era(), Pass, "%s", uri)
}

// promptChecks lists the prompts, renders those that need no argument,
// and asks for one without its required arguments.
func (c *checker) promptChecks(ctx context.Context, p *peer) {
	c.begin()
	l, err := c.list(ctx, p, mcp.MethodListPrompts, "prompts")
	if err != nil {
		c.addf(chkPromptsList, p.era(), Fail, "prompts/list: %v", err)
		return
	}
	var prompts []mcp.Prompt
	var problems []string
	if l.problem != "" {
		problems = append(problems, l.problem)
	}
	for i, raw := range l.items {
		var pr mcp.Prompt
		if err := json.Unmarshal(raw, &pr); err != nil {
			problems = append(problems, fmt.Sprintf("prompt %d does not decode: %v", i, err))
			continue
		}
		if pr.Name == "" {
			problems = append(problems, fmt.Sprintf("prompt %d has no name", i))
		}
		for j, a := range pr.Arguments {
			if a.Name == "" {
				problems = append(problems, fmt.Sprintf("prompt %q: argument %d has no name", pr.Name, j))
			}
		}
		prompts = append(prompts, pr)
	}
	if len(problems) > 0 {
		c.add(chkPromptsList, p.era(), Fail, lines(problems))
	} else {
		c.addf(chkPromptsList, p.era(), Pass, "%d prompts on %d page(s)", len(prompts), l.pages)
	}

	// Prompts without required arguments render.
	c.begin()
	var rendered, refused, needCaps []string
	problems = nil
	var needArgs *mcp.Prompt
	for i := range prompts {
		pr := &prompts[i]
		if slices.ContainsFunc(pr.Arguments, func(a mcp.PromptArgument) bool { return a.Required }) {
			if needArgs == nil {
				needArgs = pr
			}
			continue
		}
		if len(rendered) >= maxReads {
			continue
		}
		rendered = append(rendered, pr.Name)
		r, err := p.call(ctx, mcp.MethodGetPrompt, map[string]any{"name": pr.Name})
		switch {
		case err != nil:
			c.addf(chkPromptsGet, p.era(), Fail, "%s: %v", pr.Name, orEnded(err, p.w))
			return
		case r.resp == nil:
			problems = append(problems, pr.Name+": unanswered")
		case r.resp.Error != nil && r.resp.Error.Code == mcp.CodeMissingRequiredClientCapability:
			// It needs a capability the check does not declare: a
			// proper refusal (2026-07-28).
			needCaps = append(needCaps, pr.Name)
		case r.resp.Error != nil:
			// Perhaps it needs what a legacy client did not declare;
			// perhaps it is broken: the server alone knows.
			refused = append(refused, pr.Name+": "+describeError(r.resp.Error))
		default:
			if why := badMessages(r.resp.Result); why != "" {
				problems = append(problems, pr.Name+": "+why)
			} else if p.renderable == "" {
				p.renderable = pr.Name
			}
		}
	}
	note := ""
	if len(needCaps) > 0 {
		note = "; refused for want of a client capability: " + strings.Join(needCaps, ", ")
	}
	switch {
	case len(problems) > 0:
		c.add(chkPromptsGet, p.era(), Fail, lines(append(problems, refused...)))
	case len(refused) > 0:
		c.add(chkPromptsGet, p.era(), Warn, "prompts that take no required argument were refused (a prompt that needs a client capability a legacy client lacks may say so this way):\n"+lines(refused))
	case len(rendered) == 0:
		c.add(chkPromptsGet, p.era(), Skip, "every prompt has required arguments")
	default:
		c.addf(chkPromptsGet, p.era(), Pass, "rendered %s%s", strings.Join(rendered, ", "), note)
	}

	// A prompt without its required arguments.
	c.begin()
	if needArgs == nil {
		c.add(chkPromptArgs, p.era(), Skip, "no prompt has a required argument")
		return
	}
	r, err := p.call(ctx, mcp.MethodGetPrompt, map[string]any{"name": needArgs.Name})
	code, isErr := codeOf(r)
	switch {
	case err != nil:
		c.addf(chkPromptArgs, p.era(), Fail, "%s: %v", needArgs.Name, orEnded(err, p.w))
	case r.resp == nil:
		c.addf(chkPromptArgs, p.era(), Fail, "prompts/get of %s without arguments went unanswered", needArgs.Name)
	case !isErr:
		c.addf(chkPromptArgs, p.era(), Warn, "%s rendered without its required arguments", needArgs.Name)
	case code != jsonrpc.CodeInvalidParams:
		c.addf(chkPromptArgs, p.era(), Warn, "%s without its required arguments: %s; want -32602", needArgs.Name, describeError(r.resp.Error))
	default:
		c.addf(chkPromptArgs, p.era(), Pass, "%s", needArgs.Name)
	}
}

// badMessages says what is wrong with a prompts/get result, or "".
func badMessages(result json.RawMessage) string {
	var res struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		ResultType string `json:"resultType"`
	}
	if err := json.Unmarshal(result, &res); err != nil {
		return "the result does not decode: " + err.Error()
	}
	if res.ResultType == string(mcp.ResultTypeInputRequired) {
		return ""
	}
	if res.Messages == nil {
		return "no messages"
	}
	for i, m := range res.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return fmt.Sprintf("messages[%d] has role %q", i, m.Role)
		}
		var ct struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(m.Content, &ct) != nil || ct.Type == "" {
			return fmt.Sprintf("messages[%d] has no content block", i)
		}
	}
	return ""
}

// checkInvalidCursor asks for a list with a cursor the server never gave.
func (c *checker) checkInvalidCursor(ctx context.Context, p *peer) {
	c.begin()
	method := ""
	switch {
	case p.caps.Tools != nil:
		method = mcp.MethodListTools
	case p.caps.Resources != nil:
		method = mcp.MethodListResources
	case p.caps.Prompts != nil:
		method = mcp.MethodListPrompts
	default:
		c.add(chkInvalidCursor, p.era(), Skip, "the server declares no list")
		return
	}
	r, err := p.call(ctx, method, map[string]any{"cursor": "mcpwire-check-invalid-cursor"})
	code, isErr := codeOf(r)
	switch {
	case err != nil:
		c.addf(chkInvalidCursor, p.era(), Fail, "%v", orEnded(err, p.w))
	case r.resp == nil:
		c.addf(chkInvalidCursor, p.era(), Fail, "%s with an invalid cursor went unanswered", method)
	case !isErr:
		c.addf(chkInvalidCursor, p.era(), Warn, "%s with a cursor the server never gave was answered with a result", method)
	case code != jsonrpc.CodeInvalidParams:
		c.addf(chkInvalidCursor, p.era(), Warn, "%s with an invalid cursor: %s; want -32602", method, describeError(r.resp.Error))
	default:
		c.addf(chkInvalidCursor, p.era(), Pass, "%s", method)
	}
}

// lines joins the items of a detail, one per line, at most maxListed.
func lines(items []string) string {
	if len(items) > maxListed {
		items = append(items[:maxListed:maxListed], fmt.Sprintf("and %d more", len(items)-maxListed))
	}
	return strings.Join(items, "\n")
}
