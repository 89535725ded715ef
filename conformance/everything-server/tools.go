package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// The tools of the 2025-era scenarios (tools-call-*, elicitation-sep1034-
// defaults, elicitation-sep1330-enums, json-schema-2020-12,
// server-sse-polling); most also run at 2026-07-28. Texts are those of
// the reference server where the suite or its notes give them.

// addContentTools adds the tools whose results are fixed content, and
// the logging, progress and error tools.
func (e *everything) addContentTools() error {
	return errors.Join(
		server.AddTool(e.srv, &mcp.Tool{
			Name:        "test_simple_text",
			Description: "Returns a simple text response",
		}, func(ctx context.Context, r *server.Request, _ noArgs) (string, error) {
			return "This is a simple text response for testing.", nil
		}),
		server.AddTool(e.srv, &mcp.Tool{
			Name:        "test_image_content",
			Description: "Returns a 1x1 PNG image",
		}, func(ctx context.Context, r *server.Request, _ noArgs) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: mcp.ContentList{pngImage()}}, nil
		}),
		server.AddTool(e.srv, &mcp.Tool{
			Name:        "test_audio_content",
			Description: "Returns a short WAV audio clip",
		}, func(ctx context.Context, r *server.Request, _ noArgs) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: mcp.ContentList{&mcp.AudioContent{Data: wavBase64, MimeType: "audio/wav"}}}, nil
		}),
		server.AddTool(e.srv, &mcp.Tool{
			Name:        "test_embedded_resource",
			Description: "Returns an embedded text resource",
		}, func(ctx context.Context, r *server.Request, _ noArgs) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: mcp.ContentList{&mcp.EmbeddedResource{Resource: mcp.ResourceContents{
				URI:      "test://embedded-resource",
				MimeType: "text/plain",
				Text:     "This is an embedded resource content.",
			}}}}, nil
		}),
		server.AddTool(e.srv, &mcp.Tool{
			Name:        "test_multiple_content_types",
			Description: "Returns text, an image and an embedded resource in one result",
		}, func(ctx context.Context, r *server.Request, _ noArgs) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: mcp.ContentList{
				&mcp.TextContent{Text: "Multiple content types test:"},
				pngImage(),
				&mcp.EmbeddedResource{Resource: mcp.ResourceContents{
					URI:      "test://mixed-content-resource",
					MimeType: "application/json",
					Text:     `{"test":"data","value":123}`,
				}},
			}}, nil
		}),
		server.AddTool(e.srv, &mcp.Tool{
			Name:        "test_tool_with_logging",
			Description: "Sends three log messages at level info, 50 ms apart, while it runs",
		}, toolWithLogging),
		server.AddTool(e.srv, &mcp.Tool{
			Name:        "test_tool_with_progress",
			Description: "Reports progress 0, 50 and 100 of 100, 50 ms apart, when the request has a progress token",
		}, toolWithProgress),
		server.AddTool(e.srv, &mcp.Tool{
			Name:        "test_error_handling",
			Description: "Always fails: returns a result with isError set",
		}, func(ctx context.Context, r *server.Request, _ noArgs) (*mcp.CallToolResult, error) {
			return server.ErrorResult("This tool intentionally returns an error for testing"), nil
		}),
	)
}

// toolWithLogging is test_tool_with_logging (tools-call-with-logging). The
// suite counts the messages, which a legacy session receives unless it
// set a level above info, and a modern request only when it set a level.
func toolWithLogging(ctx context.Context, r *server.Request, _ noArgs) (string, error) {
	steps := []string{"Tool execution started", "Tool processing data", "Tool execution completed"}
	for i, msg := range steps {
		if i > 0 {
			if err := pause(ctx, stepDelay); err != nil {
				return "", err
			}
		}
		if err := r.Log(ctx, mcp.LevelInfo, "test_tool_with_logging", msg); err != nil {
			return "", err
		}
	}
	return "Tool with logging executed successfully", nil
}

// toolWithProgress is test_tool_with_progress (tools-call-with-progress).
// Request.Progress sends nothing without a progress token, and echoes the
// token with its JSON type (the suite sends a number or a string).
func toolWithProgress(ctx context.Context, r *server.Request, _ noArgs) (string, error) {
	for i, p := range []float64{0, 50, 100} {
		if i > 0 {
			if err := pause(ctx, stepDelay); err != nil {
				return "", err
			}
		}
		if err := r.Progress(ctx, p, 100, fmt.Sprintf("Completed step %d of 3", i+1)); err != nil {
			return "", err
		}
	}
	return "Tool with progress executed successfully", nil
}

// samplingArgs are the arguments of test_sampling.
type samplingArgs struct {
	Prompt string `json:"prompt" jsonschema:"The prompt to send to the client's language model"`
}

// elicitationArgs are the arguments of test_elicitation.
type elicitationArgs struct {
	Message string `json:"message" jsonschema:"The message to show the user"`
}

// The requestedSchema of the elicitation tools. They are flat objects of
// primitive properties, as elicitation/create requires (the TS SDK client
// of the suite validates them).
var (
	// elicitationSchema asks for the fields the tools-call-elicitation
	// scenario answers with.
	elicitationSchema = json.RawMessage(`{"type":"object","properties":{` +
		`"username":{"type":"string","title":"Username","description":"Your user name"},` +
		`"email":{"type":"string","title":"Email","description":"Your e-mail address","format":"email"}},` +
		`"required":["username","email"]}`)

	// sep1034Schema has a default for every primitive type (SEP-1034);
	// the elicitation-sep1034-defaults scenario checks each type and
	// default exactly.
	sep1034Schema = json.RawMessage(`{"type":"object","properties":{` +
		`"name":{"type":"string","title":"Name","description":"Your name","default":"John Doe"},` +
		`"age":{"type":"integer","title":"Age","description":"Your age","default":30},` +
		`"score":{"type":"number","title":"Score","description":"Your score","default":95.5},` +
		`"status":{"type":"string","title":"Status","description":"Your status","enum":["active","inactive","pending"],"default":"active"},` +
		`"verified":{"type":"boolean","title":"Verified","description":"Whether you are verified","default":true}},` +
		`"required":[]}`)

	// sep1330Schema has one property of each enum form of SEP-1330:
	// untitled and titled single select, the legacy enumNames form, and
	// untitled and titled multi select.
	sep1330Schema = json.RawMessage(`{"type":"object","properties":{` +
		`"untitledSingle":{"type":"string","title":"Untitled single select","description":"Choose one option","enum":["option1","option2","option3"]},` +
		`"titledSingle":{"type":"string","title":"Titled single select","description":"Choose one option","oneOf":[` +
		`{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},` +
		`"legacyEnum":{"type":"string","title":"Legacy titled enum","description":"Choose one option","enum":["opt1","opt2","opt3"],` +
		`"enumNames":["Option One","Option Two","Option Three"]},` +
		`"untitledMulti":{"type":"array","title":"Untitled multi select","description":"Choose one or more options","minItems":1,"maxItems":3,` +
		`"items":{"type":"string","enum":["option1","option2","option3"]}},` +
		`"titledMulti":{"type":"array","title":"Titled multi select","description":"Choose one or more options","minItems":1,"maxItems":3,` +
		`"items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}},` +
		`"required":[]}`)
)

// jsonSchema202012 is the inputSchema of json_schema_2020_12_tool, listed
// byte for byte as given: the json-schema-2020-12 scenario checks
// $schema, $defs, additionalProperties, and (alpha suites) the SEP-2106
// keywords $anchor, allOf/anyOf and if/then/else.
var jsonSchema202012 = json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
	`"$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},` +
	`"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},` +
	`"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},` +
	`"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],` +
	`"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},` +
	`"then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false}`)

// addInteractionTools adds the tools that ask the client (sampling,
// elicitation), the JSON Schema 2020-12 tool and test_reconnection.
func (e *everything) addInteractionTools() error {
	return errors.Join(
		server.AddTool(e.srv, &mcp.Tool{
			Name:        "test_sampling",
			Description: "Asks the client's language model to answer the prompt, and returns its answer",
		}, func(ctx context.Context, r *server.Request, in samplingArgs) (string, error) {
			res, err := r.Sample(ctx, &mcp.CreateMessageParams{
				Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingContent{&mcp.TextContent{Text: in.Prompt}}}},
				MaxTokens: 100,
			})
			if err != nil {
				return "", err
			}
			return "LLM response: " + samplingText(res), nil
		}),
		server.AddTool(e.srv, &mcp.Tool{
			Name:        "test_elicitation",
			Description: "Asks the user for a username and an e-mail address, and returns the answer",
		}, func(ctx context.Context, r *server.Request, in elicitationArgs) (string, error) {
			res, err := r.Elicit(ctx, &mcp.ElicitParams{Message: in.Message, RequestedSchema: elicitationSchema})
			if err != nil {
				return "", err
			}
			return "User response: " + describeElicit(res), nil
		}),
		server.AddTool(e.srv, &mcp.Tool{
			Name:        "test_elicitation_sep1034_defaults",
			Description: "Asks the user for a form whose fields all have default values (SEP-1034)",
		}, func(ctx context.Context, r *server.Request, _ noArgs) (string, error) {
			res, err := r.Elicit(ctx, &mcp.ElicitParams{
				Message:         "Please review your profile; every field has a default value",
				RequestedSchema: sep1034Schema,
			})
			if err != nil {
				return "", err
			}
			return "Elicitation completed: " + describeElicit(res), nil
		}),
		server.AddTool(e.srv, &mcp.Tool{
			Name:        "test_elicitation_sep1330_enums",
			Description: "Asks the user to choose among options given in each enum form of SEP-1330",
		}, func(ctx context.Context, r *server.Request, _ noArgs) (string, error) {
			res, err := r.Elicit(ctx, &mcp.ElicitParams{
				Message:         "Please choose among the options",
				RequestedSchema: sep1330Schema,
			})
			if err != nil {
				return "", err
			}
			return "Elicitation completed: " + describeElicit(res), nil
		}),
		e.srv.AddTool(&mcp.Tool{
			Name:        "json_schema_2020_12_tool",
			Description: "Takes arguments described by a JSON Schema 2020-12 document with $defs, $ref, composition and conditionals",
			InputSchema: jsonSchema202012,
		}, func(ctx context.Context, r *server.Request, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
			// The server has validated the arguments against the schema.
			return server.TextResult("Received valid arguments: " + string(p.Arguments)), nil
		}),
		server.AddTool(e.srv, &mcp.Tool{
			Name:        "test_reconnection",
			Description: "Works for 100 ms, then answers; used to test resuming an interrupted response stream",
		}, testReconnection),
	)
}

// testReconnection is test_reconnection, the fixture of the
// server-sse-polling scenario. That scenario runs over Streamable HTTP:
// the transport primes the POST response stream (an event id, a retry
// field, empty data); the handler asks it to close the stream while the
// call goes on (SEP-1699 polling), and the result is replayed when the
// client resumes with GET and Last-Event-ID. On stdio there is no stream
// to close and the result simply follows the delay. The result must not
// be an error: the scenario fails a tool result with isError.
func testReconnection(ctx context.Context, r *server.Request, _ noArgs) (string, error) {
	streamable.CloseStream(ctx)
	if err := pause(ctx, reconnectDelay); err != nil {
		return "", err
	}
	return "Reconnection test completed", nil
}
