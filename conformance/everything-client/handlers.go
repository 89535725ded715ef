package main

import (
	"context"
	"encoding/json"

	"github.com/mcpwire/mcpwire/mcp"
)

// acceptWithDefaults answers an elicitation as a user who accepts the
// form as offered: every field that has a default gets it (SEP-1034).
func acceptWithDefaults(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	var schema struct {
		Properties map[string]struct {
			Default json.RawMessage `json:"default"`
		} `json:"properties"`
	}
	content := map[string]any{}
	if len(p.RequestedSchema) > 0 {
		if err := json.Unmarshal(p.RequestedSchema, &schema); err != nil {
			return nil, err
		}
		for name, prop := range schema.Properties {
			if len(prop.Default) == 0 {
				continue
			}
			var v any
			if err := json.Unmarshal(prop.Default, &v); err != nil {
				return nil, err
			}
			content[name] = v
		}
	}
	return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: content}, nil
}

// sampleCanned answers a sampling request with a fixed message.
func sampleCanned(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	return &mcp.CreateMessageResult{
		Role:       "assistant",
		Content:    mcp.SamplingContent{&mcp.TextContent{Text: "This is a response from the mcpwire conformance client."}},
		Model:      "mcpwire-canned",
		StopReason: mcp.StopReasonEndTurn,
	}, nil
}

// sampleArguments builds arguments that satisfy the required properties
// of a tool's input schema with simple values of their types.
func sampleArguments(schema json.RawMessage) map[string]any {
	var s struct {
		Properties map[string]struct {
			Type any   `json:"type"`
			Enum []any `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	args := map[string]any{}
	if json.Unmarshal(schema, &s) != nil {
		return args
	}
	for _, name := range s.Required {
		prop := s.Properties[name]
		if len(prop.Enum) > 0 {
			args[name] = prop.Enum[0]
			continue
		}
		typ, _ := prop.Type.(string)
		if list, ok := prop.Type.([]any); ok && len(list) > 0 {
			typ, _ = list[0].(string)
		}
		switch typ {
		case "integer", "number":
			args[name] = 1
		case "boolean":
			args[name] = true
		case "array":
			args[name] = []any{}
		case "object":
			args[name] = map[string]any{}
		default:
			args[name] = "value"
		}
	}
	return args
}
