package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// The prompts of the prompts-* scenarios, the completer of
// completion-complete, and the input-required prompt.

// completions are the values proposed for the arguments of
// test_prompt_with_arguments.
var completions = map[string][]string{
	"arg1": {"testValue1", "testValue2", "sampleValue"},
	"arg2": {"testValue1", "testValue2", "exampleValue"},
}

// completeArgs proposes the known values of an argument of
// test_prompt_with_arguments that start with what the user typed.
func completeArgs(ctx context.Context, r *server.Request, argument, value string, _ map[string]string) ([]string, error) {
	var out []string
	for _, v := range completions[argument] {
		if strings.HasPrefix(v, value) {
			out = append(out, v)
		}
	}
	return out, nil
}

// addPrompts adds the prompts.
func (e *everything) addPrompts() error {
	return errors.Join(
		e.srv.AddPrompt(&mcp.Prompt{
			Name:        "test_simple_prompt",
			Description: "A simple prompt without arguments",
		}, func(ctx context.Context, r *server.Request, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{userText("This is a simple prompt for testing.")}}, nil
		}, nil),
		e.srv.AddPrompt(&mcp.Prompt{
			Name:        "test_prompt_with_arguments",
			Description: "A prompt with two required arguments",
			Arguments: []mcp.PromptArgument{
				{Name: "arg1", Description: "First test argument", Required: true},
				{Name: "arg2", Description: "Second test argument", Required: true},
			},
		}, func(ctx context.Context, r *server.Request, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
			text := fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", p.Arguments["arg1"], p.Arguments["arg2"])
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{userText(text)}}, nil
		}, completeArgs),
		e.srv.AddPrompt(&mcp.Prompt{
			Name:        "test_prompt_with_embedded_resource",
			Description: "A prompt that embeds the resource it is given",
			Arguments: []mcp.PromptArgument{
				{Name: "resourceUri", Description: "URI of the resource to embed", Required: true},
			},
		}, func(ctx context.Context, r *server.Request, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: &mcp.EmbeddedResource{Resource: mcp.ResourceContents{
					URI:      p.Arguments["resourceUri"],
					MimeType: "text/plain",
					Text:     "Embedded resource content for testing.",
				}}},
				userText("Please process the embedded resource above."),
			}}, nil
		}, nil),
		e.srv.AddPrompt(&mcp.Prompt{
			Name:        "test_prompt_with_image",
			Description: "A prompt with an image",
		}, func(ctx context.Context, r *server.Request, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: pngImage()},
				userText("Please analyze the image above."),
			}}, nil
		}, nil),
		e.srv.AddPrompt(&mcp.Prompt{
			Name:        "test_input_required_result_prompt",
			Description: "A prompt that asks the user for context (input request user_context) before it renders",
		}, inputRequiredPrompt, nil),
	)
}
