package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
)

// irr is an input_required result.
type irr struct {
	ResultType    string `json:"resultType"`
	InputRequests map[string]struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	} `json:"inputRequests"`
	RequestState *string `json:"requestState"`
}

// decodeIRR decodes a response that must be an input_required result with
// a non-empty requestState.
func decodeIRR(t *testing.T, m wireMsg) irr {
	t.Helper()
	if m.Error != nil {
		t.Fatalf("error %d %s %s, want input_required", m.Error.Code, m.Error.Message, m.Error.Data)
	}
	var r irr
	if err := json.Unmarshal(m.Result, &r); err != nil {
		t.Fatal(err)
	}
	if r.ResultType != "input_required" || len(r.InputRequests) == 0 || r.RequestState == nil || *r.RequestState == "" {
		t.Fatalf("%s is not an input_required result with questions and state", m.Result)
	}
	return r
}

// completeText decodes a complete tool result and returns its text.
func completeText(t *testing.T, m wireMsg) string {
	t.Helper()
	if rt := resultType(t, m); rt != "complete" {
		t.Fatalf("resultType %q in %s, want complete", rt, m.Result)
	}
	var r mcp.CallToolResult
	if err := json.Unmarshal(m.Result, &r); err != nil {
		t.Fatal(err)
	}
	if r.IsError || len(r.Content) == 0 {
		t.Fatalf("result %s", m.Result)
	}
	return r.Content[0].(*mcp.TextContent).Text
}

// The answers of the suite's mock client.
var (
	aliceAnswer  = json.RawMessage(`{"action":"accept","content":{"name":"Alice"}}`)
	okAnswer     = json.RawMessage(`{"action":"accept","content":{"ok":true}}`)
	colorAnswer  = json.RawMessage(`{"action":"accept","content":{"color":"blue"}}`)
	sampleAnswer = json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"test-model","stopReason":"endTurn"}`)
	rootsAnswer  = json.RawMessage(`{"roots":[{"uri":"file:///test/root","name":"Test Root"}]}`)
)

// retry is the params of a retry: the same call plus answers and, if
// given, the state.
func retry(name string, responses map[string]json.RawMessage, state *string) map[string]any {
	p := tool(name, "inputResponses", responses)
	if state != nil {
		p["requestState"] = *state
	}
	return modern(p, harnessCaps)
}

// TestMRTRRaw runs the input-required-result-* scenarios with raw frames,
// checking what each scenario checks.
func TestMRTRRaw(t *testing.T) {
	const elicitTool = "test_input_required_result_elicitation"
	first := func(c *rawConn, name string) irr {
		t.Helper()
		res, before := c.call("tools/call", modern(tool(name), harnessCaps))
		if len(before) != 0 {
			t.Errorf("frames before the result: %v", methods(before))
		}
		return decodeIRR(t, res)
	}

	t.Run("basic-elicitation+result-type", func(t *testing.T) {
		c := newRaw(t, newTestServer(t))
		r1 := first(c, elicitTool)
		q := r1.InputRequests["user_name"]
		var p mcp.ElicitParams
		if q.Method != "elicitation/create" || json.Unmarshal(q.Params, &p) != nil || p.Message == "" || len(p.RequestedSchema) == 0 {
			t.Fatalf("user_name: %+v", q)
		}
		res, _ := c.call("tools/call", retry(elicitTool, map[string]json.RawMessage{"user_name": aliceAnswer}, r1.RequestState))
		if got := completeText(t, res); got != "Hello, Alice!" {
			t.Errorf("text %q", got)
		}
	})
	t.Run("without-request-state", func(t *testing.T) {
		c := newRaw(t, newTestServer(t))
		res, _ := c.call("tools/call", retry(elicitTool, map[string]json.RawMessage{"user_name": aliceAnswer}, nil))
		if got := completeText(t, res); got != "Hello, Alice!" {
			t.Errorf("text %q", got)
		}
	})
	t.Run("missing-input-response", func(t *testing.T) {
		c := newRaw(t, newTestServer(t))
		res, _ := c.call("tools/call", retry(elicitTool, map[string]json.RawMessage{"wrong_key": json.RawMessage(`{"action":"accept","content":{"data":"wrong"}}`)}, nil))
		if r := decodeIRR(t, res); r.InputRequests["user_name"].Method != "elicitation/create" {
			t.Errorf("re-request %s", res.Result)
		}
	})
	t.Run("ignore-extra-params", func(t *testing.T) {
		c := newRaw(t, newTestServer(t))
		res, _ := c.call("tools/call", retry(elicitTool, map[string]json.RawMessage{
			"user_name":          aliceAnswer,
			"unknown_extra_key":  json.RawMessage(`{"action":"accept","content":{"x":1}}`),
			"another_unexpected": json.RawMessage(`{"foo":"bar"}`),
		}, nil))
		if got := completeText(t, res); got != "Hello, Alice!" {
			t.Errorf("text %q", got)
		}
	})
	t.Run("validate-input", func(t *testing.T) {
		c := newRaw(t, newTestServer(t))
		for _, responses := range []any{map[string]any{"user_name": 12345}, nil, map[string]any{"user_name": "Alice"}, map[string]any{"user_name": []int{1}}} {
			p := tool(elicitTool, "inputResponses", responses)
			res, _ := c.call("tools/call", modern(p, harnessCaps))
			if res.Error != nil {
				if res.Error.Code != -32602 {
					t.Errorf("inputResponses %v: error %d, want -32602", responses, res.Error.Code)
				}
				continue
			}
			if rt := resultType(t, res); rt == "complete" {
				t.Errorf("inputResponses %v: completed: %s", responses, res.Result)
			}
		}
	})
	t.Run("basic-sampling", func(t *testing.T) {
		c := newRaw(t, newTestServer(t))
		const name = "test_input_required_result_sampling"
		r1 := first(c, name)
		q := r1.InputRequests["capital_question"]
		var p mcp.CreateMessageParams
		if q.Method != "sampling/createMessage" || json.Unmarshal(q.Params, &p) != nil || p.MaxTokens != 100 ||
			p.Messages[0].Content[0].(*mcp.TextContent).Text != "What is the capital of France?" {
			t.Fatalf("capital_question: %+v", q)
		}
		res, _ := c.call("tools/call", retry(name, map[string]json.RawMessage{"capital_question": sampleAnswer}, r1.RequestState))
		if got := completeText(t, res); got != "LLM response: Paris" {
			t.Errorf("text %q", got)
		}
	})
	t.Run("basic-list-roots", func(t *testing.T) {
		c := newRaw(t, newTestServer(t))
		const name = "test_input_required_result_list_roots"
		r1 := first(c, name)
		if q := r1.InputRequests["client_roots"]; q.Method != "roots/list" {
			t.Fatalf("client_roots: %+v", q)
		}
		res, _ := c.call("tools/call", retry(name, map[string]json.RawMessage{"client_roots": rootsAnswer}, r1.RequestState))
		if got := completeText(t, res); got != "Client roots: file:///test/root (Test Root)" {
			t.Errorf("text %q", got)
		}
	})
	t.Run("request-state", func(t *testing.T) {
		c := newRaw(t, newTestServer(t))
		const name = "test_input_required_result_request_state"
		r1 := first(c, name)
		if q := r1.InputRequests["confirm"]; q.Method != "elicitation/create" {
			t.Fatalf("confirm: %+v", q)
		}
		res, _ := c.call("tools/call", retry(name, map[string]json.RawMessage{"confirm": okAnswer}, r1.RequestState))
		if got := completeText(t, res); !strings.HasPrefix(got, "state-ok") {
			t.Errorf("text %q", got)
		}
	})
	t.Run("multiple-input-requests", func(t *testing.T) {
		c := newRaw(t, newTestServer(t))
		const name = "test_input_required_result_multiple_inputs"
		r1 := first(c, name)
		want := map[string]string{"user_name": "elicitation/create", "capital_question": "sampling/createMessage", "client_roots": "roots/list"}
		if len(r1.InputRequests) != len(want) {
			t.Fatalf("input requests %+v", r1.InputRequests)
		}
		for k, m := range want {
			if r1.InputRequests[k].Method != m {
				t.Errorf("%s: %q, want %s", k, r1.InputRequests[k].Method, m)
			}
		}
		res, _ := c.call("tools/call", retry(name, map[string]json.RawMessage{
			"user_name": aliceAnswer, "capital_question": sampleAnswer, "client_roots": rootsAnswer,
		}, r1.RequestState))
		if got := completeText(t, res); got != "Hello, Alice! LLM response: Paris. Client roots: file:///test/root (Test Root)." {
			t.Errorf("text %q", got)
		}
	})
	t.Run("multi-round", func(t *testing.T) {
		c := newRaw(t, newTestServer(t))
		const name = "test_input_required_result_multi_round"
		r1 := first(c, name)
		if len(r1.InputRequests) != 1 || r1.InputRequests["user_name"].Method != "elicitation/create" {
			t.Fatalf("r1 %+v", r1.InputRequests)
		}
		res, _ := c.call("tools/call", retry(name, map[string]json.RawMessage{"user_name": aliceAnswer}, r1.RequestState))
		r2 := decodeIRR(t, res)
		if *r2.RequestState == *r1.RequestState || len(r2.InputRequests) != 1 || r2.InputRequests["favorite_color"].Method != "elicitation/create" {
			t.Fatalf("r2 %s", res.Result)
		}
		res, _ = c.call("tools/call", retry(name, map[string]json.RawMessage{"favorite_color": colorAnswer}, r2.RequestState))
		if got := completeText(t, res); got != "Hello, Alice! Your favorite color: blue." {
			t.Errorf("text %q", got)
		}
		// Round 3 without the state lacks round 1's answer: asked again.
		res, _ = c.call("tools/call", retry(name, map[string]json.RawMessage{"favorite_color": colorAnswer}, nil))
		if r := decodeIRR(t, res); r.InputRequests["user_name"].Method == "" {
			t.Errorf("without state: %s", res.Result)
		}
	})
	t.Run("tampered-state", func(t *testing.T) {
		c := newRaw(t, newTestServer(t))
		const name = "test_input_required_result_tampered_state"
		r1 := first(c, name)
		bad := *r1.RequestState + "-TAMPERED"
		res, _ := c.call("tools/call", retry(name, map[string]json.RawMessage{"confirm": okAnswer}, &bad))
		if res.Error == nil {
			t.Fatalf("tampered state accepted: %s", res.Result)
		}
		// A state made for another tool is refused too.
		other := first(c, "test_input_required_result_request_state")
		res, _ = c.call("tools/call", retry(name, map[string]json.RawMessage{"confirm": okAnswer}, other.RequestState))
		if res.Error == nil || res.Error.Code != -32602 {
			t.Errorf("state of another request: %s", res.raw)
		}
		// The intact state completes.
		res, _ = c.call("tools/call", retry(name, map[string]json.RawMessage{"confirm": okAnswer}, r1.RequestState))
		completeText(t, res)
	})
	t.Run("capability-check", func(t *testing.T) {
		c := newRaw(t, newTestServer(t))
		const name = "test_input_required_result_capabilities"
		for caps, want := range map[string]string{
			`{"sampling":{}}`:    "sampling/createMessage",
			`{"roots":{}}`:       "roots/list",
			`{"elicitation":{}}`: "elicitation/create",
		} {
			res, _ := c.call("tools/call", modern(tool(name), caps))
			r := decodeIRR(t, res)
			if len(r.InputRequests) != 1 {
				t.Errorf("%s: %s", caps, res.Result)
			}
			for _, q := range r.InputRequests {
				if q.Method != want {
					t.Errorf("%s: asked %s", caps, q.Method)
				}
			}
		}
		res, _ := c.call("tools/call", modern(tool(name), harnessCaps))
		if r := decodeIRR(t, res); len(r.InputRequests) != 3 {
			t.Errorf("all capabilities: %s", res.Result)
		}
		res, _ = c.call("tools/call", modern(tool(name), `{}`))
		if res.Error == nil || res.Error.Code != -32021 || compactJSON(t, res.Error.Data) != `{"requiredCapabilities":{"elicitation":{}}}` {
			t.Errorf("no capabilities: %s", res.raw)
		}
	})
	t.Run("non-tool-request", func(t *testing.T) {
		c := newRaw(t, newTestServer(t))
		const name = "test_input_required_result_prompt"
		res, _ := c.call("prompts/get", modern(map[string]any{"name": name}, harnessCaps))
		r1 := decodeIRR(t, res)
		if q := r1.InputRequests["user_context"]; q.Method != "elicitation/create" {
			t.Fatalf("user_context: %+v", q)
		}
		res, _ = c.call("prompts/get", modern(map[string]any{
			"name":           name,
			"inputResponses": map[string]json.RawMessage{"user_context": json.RawMessage(`{"action":"accept","content":{"context":"test context"}}`)},
			"requestState":   *r1.RequestState,
		}, harnessCaps))
		if rt := resultType(t, res); rt != "complete" {
			t.Fatalf("r2 resultType %q", rt)
		}
		var gp mcp.GetPromptResult
		if err := json.Unmarshal(res.Result, &gp); err != nil || len(gp.Messages) == 0 ||
			gp.Messages[0].Content.(*mcp.TextContent).Text != "Please answer using this context: test context" {
			t.Errorf("r2 %s (%v)", res.Result, err)
		}
	})
	t.Run("unsupported-methods", func(t *testing.T) {
		c := newRaw(t, newTestServer(t))
		for _, method := range []string{"tools/list", "prompts/list"} {
			res, _ := c.call(method, modern(map[string]any{}, harnessCaps))
			if rt := resultType(t, res); rt != "complete" {
				t.Errorf("%s: resultType %q", method, rt)
			}
		}
	})
}

// TestMRTRClient runs every input-required fixture through the mcpwire
// client, which answers with its handlers: input_required rounds in the
// modern era, server-to-client requests in a session.
func TestMRTRClient(t *testing.T) {
	const alice = "Hello, Alice!"
	const llm = "LLM response: This is a test response from the client"
	const roots = "file:///test/root (Test Root)"
	want := map[string]string{
		"test_input_required_result_elicitation":     alice,
		"test_input_required_result_sampling":        llm,
		"test_input_required_result_list_roots":      "Client roots: " + roots,
		"test_input_required_result_request_state":   "state-ok: the request completed after a round trip",
		"test_input_required_result_multiple_inputs": alice + " " + llm + ". Client roots: " + roots + ".",
		"test_input_required_result_multi_round":     alice + " Your favorite color: blue.",
		"test_input_required_result_tampered_state":  `Confirmed with an intact request state: action=accept, content={"ok":true}`,
		"test_input_required_result_capabilities":    "Answers through the declared capabilities; elicitation: " + alice + "; sampling: This is a test response from the client; roots: " + roots,
	}
	forEachEra(t, func(t *testing.T, e era) {
		h := &handlers{}
		cs := connect(t, newTestServer(t), e, h.options())
		ctx := testCtx(t)
		for name, text := range want {
			if got := onlyText(t, callTool(t, ctx, cs, name, "{}")); got != text {
				t.Errorf("%s: %q, want %q", name, got, text)
			}
		}
		gp, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_input_required_result_prompt"})
		if err != nil || len(gp.Messages) != 1 || gp.Messages[0].Content.(*mcp.TextContent).Text != "Please answer using this context: test context" {
			t.Errorf("prompt: %+v %v", gp, err)
		}
	})
}

// TestMRTRCapabilitiesSamplingOnly checks the capability-check scenario
// through the client: a client that can only sample is asked only that.
func TestMRTRCapabilitiesSamplingOnly(t *testing.T) {
	forEachEra(t, func(t *testing.T, e era) {
		h := &handlers{}
		cs := connect(t, newTestServer(t), e, &client.Options{Sample: h.sample})
		got := onlyText(t, callTool(t, testCtx(t), cs, "test_input_required_result_capabilities", "{}"))
		if got != "Answers through the declared capabilities; sampling: This is a test response from the client" || len(h.elicits) != 0 || h.roots != 0 {
			t.Errorf("%q after %d elicitations and %d roots requests", got, len(h.elicits), h.roots)
		}
	})
}
