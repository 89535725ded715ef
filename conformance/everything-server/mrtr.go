package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// The fixtures of the 14 input-required-result-* scenarios (SEP-2322,
// multi round-trip requests, 2026-07-28). Each asks its questions with
// Request.Ask under the keys the scenarios expect. In the stateless era a
// question ends the round with an input_required result; the client
// retries with inputResponses (and the requestState, if it got one) and
// the handler runs again from the start, finding the answers. In a legacy
// session the same questions are requests to the client.
//
// The server does the protocol work the scenarios check: it completes as
// soon as every question has an answer, with or without requestState; it
// asks again for answers missing or under other keys, and ignores extra
// keys; it rejects an answer that is not a result object (-32602) and a
// requestState that was altered, expired or made for another request
// (-32602). The fixtures only choose what to ask, and ask nothing before
// a question that they could not do again.

// The input request keys.
const (
	keyUserName    = "user_name"        // elicitation: {name}
	keyCapital     = "capital_question" // sampling
	keyRoots       = "client_roots"     // roots/list
	keyConfirm     = "confirm"          // elicitation: {ok}
	keyColor       = "favorite_color"   // elicitation: {color}
	keyUserContext = "user_context"     // elicitation: {context}
)

// Requested schemas of the MRTR elicitations.
var (
	nameSchema = json.RawMessage(`{"type":"object","properties":{` +
		`"name":{"type":"string","title":"Name","description":"Your name"}},"required":["name"]}`)
	okSchema = json.RawMessage(`{"type":"object","properties":{` +
		`"ok":{"type":"boolean","title":"OK","description":"Whether to go on"}},"required":["ok"]}`)
	colorSchema = json.RawMessage(`{"type":"object","properties":{` +
		`"color":{"type":"string","title":"Color","description":"Your favorite color"}},"required":["color"]}`)
	contextSchema = json.RawMessage(`{"type":"object","properties":{` +
		`"context":{"type":"string","title":"Context","description":"Context for the prompt"}},"required":["context"]}`)
)

// elicitQuestion returns a form elicitation question.
func elicitQuestion(key, message string, schema json.RawMessage, res *mcp.ElicitResult) *server.Question {
	return &server.Question{
		Key:    key,
		Method: mcp.MethodElicit,
		Params: &mcp.ElicitParams{Message: message, RequestedSchema: schema},
		Result: res,
	}
}

// nameQuestion asks the user's name under user_name.
func nameQuestion(res *mcp.ElicitResult) *server.Question {
	return elicitQuestion(keyUserName, "What is your name?", nameSchema, res)
}

// capitalQuestion asks the model the capital of France under
// capital_question.
func capitalQuestion(res *mcp.CreateMessageResult) *server.Question {
	return &server.Question{
		Key:    keyCapital,
		Method: mcp.MethodCreateMessage,
		Params: &mcp.CreateMessageParams{
			Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingContent{&mcp.TextContent{Text: "What is the capital of France?"}}}},
			MaxTokens: 100,
		},
		Result: res,
	}
}

// rootsQuestion asks for the client's roots under client_roots.
func rootsQuestion(res *mcp.ListRootsResult) *server.Question {
	return &server.Question{Key: keyRoots, Method: mcp.MethodListRoots, Result: res}
}

// field returns the string form of a field of an accepted elicitation,
// and whether there was one.
func field(res *mcp.ElicitResult, name string) (string, bool) {
	if res.Action != mcp.ElicitAccept {
		return "", false
	}
	v, ok := res.Content[name]
	if !ok || v == nil {
		return "", false
	}
	if s, ok := v.(string); ok {
		return s, s != ""
	}
	return fmt.Sprint(v), true
}

// greeting greets the user named in an answer to nameQuestion.
func greeting(res *mcp.ElicitResult) string {
	if name, ok := field(res, "name"); ok {
		return "Hello, " + name + "!"
	}
	return "No name was given (" + describeElicit(res) + ")."
}

// addMRTRTools adds the test_input_required_result_* tools.
func (e *everything) addMRTRTools() error {
	tool := func(name, description string, h server.TypedToolHandler[noArgs, string]) error {
		return server.AddTool(e.srv, &mcp.Tool{Name: name, Description: description}, h)
	}
	return errors.Join(
		tool("test_input_required_result_elicitation",
			"Asks the user's name (input request user_name) and greets them",
			func(ctx context.Context, r *server.Request, _ noArgs) (string, error) {
				var res mcp.ElicitResult
				if err := r.Ask(ctx, nameQuestion(&res)); err != nil {
					return "", err
				}
				return greeting(&res), nil
			}),
		tool("test_input_required_result_sampling",
			"Asks the client's language model for the capital of France (input request capital_question)",
			func(ctx context.Context, r *server.Request, _ noArgs) (string, error) {
				var res mcp.CreateMessageResult
				if err := r.Ask(ctx, capitalQuestion(&res)); err != nil {
					return "", err
				}
				return "LLM response: " + samplingText(&res), nil
			}),
		tool("test_input_required_result_list_roots",
			"Asks the client for its roots (input request client_roots) and lists them",
			func(ctx context.Context, r *server.Request, _ noArgs) (string, error) {
				var res mcp.ListRootsResult
				if err := r.Ask(ctx, rootsQuestion(&res)); err != nil {
					return "", err
				}
				return "Client roots: " + describeRoots(&res), nil
			}),
		tool("test_input_required_result_request_state",
			"Asks for a confirmation (input request confirm) in a round that carries requestState",
			func(ctx context.Context, r *server.Request, _ noArgs) (string, error) {
				var res mcp.ElicitResult
				if err := r.Ask(ctx, elicitQuestion(keyConfirm, "Please confirm to continue", okSchema, &res)); err != nil {
					return "", err
				}
				if ok, _ := field(&res, "ok"); ok == "true" {
					return "state-ok: the request completed after a round trip", nil
				}
				return "state-not-confirmed: " + describeElicit(&res), nil
			}),
		tool("test_input_required_result_multiple_inputs",
			"Asks for a name, a model answer and the client's roots in one round",
			func(ctx context.Context, r *server.Request, _ noArgs) (string, error) {
				var name mcp.ElicitResult
				var capital mcp.CreateMessageResult
				var roots mcp.ListRootsResult
				if err := r.Ask(ctx, nameQuestion(&name), capitalQuestion(&capital), rootsQuestion(&roots)); err != nil {
					return "", err
				}
				return fmt.Sprintf("%s LLM response: %s. Client roots: %s.", greeting(&name), samplingText(&capital), describeRoots(&roots)), nil
			}),
		tool("test_input_required_result_multi_round",
			"Asks the user's name, then in a second round their favorite color",
			func(ctx context.Context, r *server.Request, _ noArgs) (string, error) {
				var name, color mcp.ElicitResult
				if err := r.Ask(ctx, nameQuestion(&name)); err != nil {
					return "", err
				}
				if err := r.Ask(ctx, elicitQuestion(keyColor, "What is your favorite color?", colorSchema, &color)); err != nil {
					return "", err
				}
				c, ok := field(&color, "color")
				if !ok {
					c = "not given"
				}
				return fmt.Sprintf("%s Your favorite color: %s.", greeting(&name), c), nil
			}),
		tool("test_input_required_result_tampered_state",
			"Asks for a confirmation (input request confirm); a retry with an altered requestState is rejected",
			func(ctx context.Context, r *server.Request, _ noArgs) (string, error) {
				var res mcp.ElicitResult
				if err := r.Ask(ctx, elicitQuestion(keyConfirm, "Please confirm to continue", okSchema, &res)); err != nil {
					return "", err
				}
				return "Confirmed with an intact request state: " + describeElicit(&res), nil
			}),
		tool("test_input_required_result_capabilities",
			"Asks only through the capabilities the client declared: elicitation, sampling and roots, whichever it has",
			askDeclared),
	)
}

// askDeclared is test_input_required_result_capabilities: it asks one
// question per capability the client declared, among elicitation (form),
// sampling and roots, and none through a capability it lacks. A client
// with none of them cannot answer anything; in the stateless era that is
// -32021 naming elicitation, the one this tool prefers.
func askDeclared(ctx context.Context, r *server.Request, _ noArgs) (string, error) {
	caps := r.ClientCapabilities()
	var name mcp.ElicitResult
	var capital mcp.CreateMessageResult
	var roots mcp.ListRootsResult
	var qs []*server.Question
	if caps.ElicitForm() {
		qs = append(qs, nameQuestion(&name))
	}
	if caps.Sampling != nil {
		qs = append(qs, capitalQuestion(&capital))
	}
	if caps.Roots != nil {
		qs = append(qs, rootsQuestion(&roots))
	}
	if len(qs) == 0 {
		if r.IsModern() {
			return "", mcp.MissingCapabilityError(mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}})
		}
		return "", errors.New("the client declared none of elicitation, sampling and roots, so nothing can be asked")
	}
	if err := r.Ask(ctx, qs...); err != nil {
		return "", err
	}
	var parts []string
	for _, q := range qs {
		switch q.Method {
		case mcp.MethodElicit:
			parts = append(parts, "elicitation: "+greeting(&name))
		case mcp.MethodCreateMessage:
			parts = append(parts, "sampling: "+samplingText(&capital))
		case mcp.MethodListRoots:
			parts = append(parts, "roots: "+describeRoots(&roots))
		}
	}
	return "Answers through the declared capabilities; " + strings.Join(parts, "; "), nil
}

// inputRequiredPrompt is test_input_required_result_prompt, the fixture of
// input-required-result-non-tool-request: prompts/get asks for context
// (input request user_context) before it renders.
func inputRequiredPrompt(ctx context.Context, r *server.Request, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
	var res mcp.ElicitResult
	if err := r.Ask(ctx, elicitQuestion(keyUserContext, "What context should the prompt use?", contextSchema, &res)); err != nil {
		return nil, err
	}
	c, ok := field(&res, "context")
	if !ok {
		c = "none given (" + describeElicit(&res) + ")"
	}
	return &mcp.GetPromptResult{
		Description: "A prompt rendered with context gathered through an input request",
		Messages:    []mcp.PromptMessage{userText("Please answer using this context: " + c)},
	}, nil
}
