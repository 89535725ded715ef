package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// The tools of the 2026-07-28 server-stateless scenario, the triggers
// that change the lists (list_changed reaches legacy sessions and the
// subscriptions/listen streams that asked for it), and the tool with an
// x-mcp-header parameter of the pending header scenario. All of them work
// in legacy sessions too.

// Names of the fixtures the triggers add, remove or change.
const (
	dynamicToolName   = "test_dynamic_tool"
	dynamicPromptName = "test_dynamic_prompt"
	watchedURI        = "test://watched-resource"
)

// paramHeaderSchema is the inputSchema of test_param_header: a string
// parameter mirrored in the Mcp-Param-Region HTTP header (SEP-2243).
var paramHeaderSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"region":{"type":"string","description":"A region name, also sent in the Mcp-Param-Region header","x-mcp-header":"Region"}},` +
	`"required":["region"]}`)

// addStatelessTools adds the tools of the server-stateless scenario, the
// triggers and test_param_header.
func (e *everything) addStatelessTools() error {
	return errors.Join(
		server.AddTool(e.srv, &mcp.Tool{
			Name:        "test_missing_capability",
			Description: "Asks the client's language model a question; needs the sampling capability",
		}, missingCapability),
		server.AddTool(e.srv, &mcp.Tool{
			Name:        "test_streaming_elicitation",
			Description: "Asks the user to confirm (an input request in the stateless era, never a request on the response stream)",
		}, streamingElicitation),
		server.AddTool(e.srv, &mcp.Tool{
			Name:        "test_logging_tool",
			Description: "Logs two messages at level info; a stateless request receives them only if it set a log level",
		}, func(ctx context.Context, r *server.Request, _ noArgs) (string, error) {
			for _, msg := range []string{"Logging tool started", "Logging tool finished"} {
				if err := r.Log(ctx, mcp.LevelInfo, "test_logging_tool", msg); err != nil {
					return "", err
				}
			}
			return "Logging tool completed", nil
		}),
		server.AddTool(e.srv, &mcp.Tool{
			Name:        "test_trigger_tool_change",
			Description: "Adds test_dynamic_tool, or removes it if present, so that the tool list changes",
		}, e.triggerToolChange),
		server.AddTool(e.srv, &mcp.Tool{
			Name:        "test_trigger_prompt_change",
			Description: "Adds test_dynamic_prompt, or removes it if present, so that the prompt list changes",
		}, e.triggerPromptChange),
		server.AddTool(e.srv, &mcp.Tool{
			Name:        "test_trigger_resource_update",
			Description: "Changes the contents of test://watched-resource and notifies its subscribers",
		}, e.triggerResourceUpdate),
		e.srv.AddTool(&mcp.Tool{
			Name:        "test_param_header",
			Description: "Echoes its region parameter, which HTTP clients also send in the Mcp-Param-Region header",
			InputSchema: paramHeaderSchema,
		}, func(ctx context.Context, r *server.Request, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
			var in struct {
				Region string `json:"region"`
			}
			if err := json.Unmarshal(p.Arguments, &in); err != nil {
				return nil, err
			}
			return server.TextResult("Region: " + in.Region), nil
		}),
	)
}

// missingCapability is test_missing_capability. Request.Ask checks the
// capability first: a stateless request that did not declare sampling
// gets -32021 with {"requiredCapabilities":{"sampling":{}}}; a legacy
// session without it gets an isError result.
func missingCapability(ctx context.Context, r *server.Request, _ noArgs) (string, error) {
	var res mcp.CreateMessageResult
	err := r.Ask(ctx, &server.Question{
		Key:    "model_reply",
		Method: mcp.MethodCreateMessage,
		Params: &mcp.CreateMessageParams{
			Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingContent{&mcp.TextContent{Text: "Say hello in one word."}}}},
			MaxTokens: 10,
		},
		Result: &res,
	})
	if err != nil {
		return "", err
	}
	return "LLM response: " + samplingText(&res), nil
}

// confirmSchema asks for one boolean.
var confirmSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"confirmed":{"type":"boolean","title":"Confirmed","description":"Whether to continue"}},"required":["confirmed"]}`)

// streamingElicitation is test_streaming_elicitation: a stateless server
// must not send a request on a response stream, so the question travels
// as an input request of an input_required result.
func streamingElicitation(ctx context.Context, r *server.Request, _ noArgs) (string, error) {
	var res mcp.ElicitResult
	err := r.Ask(ctx, &server.Question{
		Key:    "confirmation",
		Method: mcp.MethodElicit,
		Params: &mcp.ElicitParams{Message: "Please confirm to continue", RequestedSchema: confirmSchema},
		Result: &res,
	})
	if err != nil {
		return "", err
	}
	return "Streaming elicitation completed: " + describeElicit(&res), nil
}

// triggerToolChange is test_trigger_tool_change: it toggles
// test_dynamic_tool; the server announces the change.
func (e *everything) triggerToolChange(ctx context.Context, r *server.Request, _ noArgs) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	present := !e.dynamicTool
	if err := e.setDynamicToolLocked(present); err != nil {
		return "", err
	}
	e.shared.publishLocked() // with -redis: the other instances follow (shared.go)
	if !present {
		return "Removed the tool " + dynamicToolName, nil
	}
	return "Added the tool " + dynamicToolName, nil
}

// setDynamicToolLocked adds or removes test_dynamic_tool.
func (e *everything) setDynamicToolLocked(present bool) error {
	if present == e.dynamicTool {
		return nil
	}
	if !present {
		e.srv.RemoveTools(dynamicToolName)
		e.dynamicTool = false
		return nil
	}
	err := server.AddTool(e.srv, &mcp.Tool{
		Name:        dynamicToolName,
		Description: "A tool added at run time by test_trigger_tool_change",
	}, func(ctx context.Context, r *server.Request, _ noArgs) (string, error) {
		return "This tool was added at run time by test_trigger_tool_change.", nil
	})
	if err != nil {
		return err
	}
	e.dynamicTool = true
	return nil
}

// triggerPromptChange is test_trigger_prompt_change: it toggles
// test_dynamic_prompt.
func (e *everything) triggerPromptChange(ctx context.Context, r *server.Request, _ noArgs) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	present := !e.dynamicPrompt
	if err := e.setDynamicPromptLocked(present); err != nil {
		return "", err
	}
	e.shared.publishLocked()
	if !present {
		return "Removed the prompt " + dynamicPromptName, nil
	}
	return "Added the prompt " + dynamicPromptName, nil
}

// setDynamicPromptLocked adds or removes test_dynamic_prompt.
func (e *everything) setDynamicPromptLocked(present bool) error {
	if present == e.dynamicPrompt {
		return nil
	}
	if !present {
		e.srv.RemovePrompts(dynamicPromptName)
		e.dynamicPrompt = false
		return nil
	}
	err := e.srv.AddPrompt(&mcp.Prompt{
		Name:        dynamicPromptName,
		Description: "A prompt added at run time by test_trigger_prompt_change",
	}, func(ctx context.Context, r *server.Request, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{userText("This prompt was added at run time by test_trigger_prompt_change.")}}, nil
	}, nil)
	if err != nil {
		return err
	}
	e.dynamicPrompt = true
	return nil
}

// triggerResourceUpdate is test_trigger_resource_update: it moves the
// watched resource to its next revision and notifies its subscribers
// (legacy resources/subscribe, and listen streams that name the URI).
func (e *everything) triggerResourceUpdate(ctx context.Context, r *server.Request, _ noArgs) (string, error) {
	e.mu.Lock()
	e.watchedRevision++
	rev := e.watchedRevision
	e.shared.publishLocked()
	e.mu.Unlock()
	e.srv.ResourceUpdated(watchedURI)
	return fmt.Sprintf("%s is now at revision %d", watchedURI, rev), nil
}
