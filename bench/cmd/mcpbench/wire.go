package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Protocol revisions the generator speaks.
const (
	legacyVersion = "2025-11-25"
	modernVersion = "2026-07-28"
)

// payloadText is a text of n bytes that needs no JSON escaping.
func payloadText(n int) string {
	const s = "The quick brown fox jumps over the lazy dog, 0123456789. "
	return strings.Repeat(s, n/len(s)+1)[:n]
}

// modernMeta is the _meta envelope of a 2026-07-28 request.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcpbench","version":"1.0.0"}}`

// A callTemplate builds tools/call requests for one payload and era.
type callTemplate struct {
	text           string
	modern         bool
	prefix, suffix []byte
}

func newCallTemplate(size int, modern bool) *callTemplate {
	t := &callTemplate{text: payloadText(size), modern: modern}
	t.prefix = []byte(`{"jsonrpc":"2.0","id":`)
	meta := ""
	if modern {
		meta = "," + modernMeta
	}
	t.suffix = []byte(`,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + t.text + `"}` + meta + `}}`)
	return t
}

// append appends the request with the given id, without a newline.
func (t *callTemplate) append(b []byte, id int64) []byte {
	b = append(b, t.prefix...)
	b = strconv.AppendInt(b, id, 10)
	return append(b, t.suffix...)
}

// discoverRequest is a 2026-07-28 server/discover, which opens a modern
// session as client.Connect does (there is no initialize).
func discoverRequest(id int64) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + strconv.FormatInt(id, 10) + `,"method":"server/discover","params":{` + modernMeta + `}}`)
}

// errNotModern says that a server does not serve the 2026-07-28 era
// where it was asked to: its figures for that era are "n/a", not a
// failure.
var errNotModern = errors.New("does not serve 2026-07-28")

// checkDiscover reads the answer to server/discover: errNotModern when it
// is an error or does not list 2026-07-28.
func checkDiscover(line []byte) error {
	r, err := parseResponse(line)
	if err != nil {
		if r.Error != nil {
			return fmt.Errorf("%w (server/discover: %.200s)", errNotModern, r.Error)
		}
		return err
	}
	var d struct {
		SupportedVersions []string `json:"supportedVersions"`
	}
	if err := json.Unmarshal(r.Result, &d); err != nil || !slices.Contains(d.SupportedVersions, modernVersion) {
		return fmt.Errorf("%w (server/discover: %.200s)", errNotModern, r.Result)
	}
	return nil
}

func initializeRequest(id int64) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + strconv.FormatInt(id, 10) + `,"method":"initialize","params":{"protocolVersion":"` + legacyVersion + `","capabilities":{},"clientInfo":{"name":"mcpbench","version":"1.0.0"}}}`)
}

var (
	initializedNotification = []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	toolsListRequest        = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`)
)

// wireResponse is a response as the checks read it.
type wireResponse struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// quickID finds the integer id of a response near the start of a line
// without parsing it; ok is false if it is not there.
func quickID(line []byte) (id int64, ok bool) {
	head := line[:min(len(line), 128)]
	i := bytes.Index(head, []byte(`"id":`))
	if i < 0 {
		return 0, false
	}
	j := i + 5
	k := j
	for k < len(head) && head[k] >= '0' && head[k] <= '9' {
		k++
	}
	if k == j || k == len(head) || (head[k] != ',' && head[k] != '}') {
		return 0, false
	}
	id, err := strconv.ParseInt(string(head[j:k]), 10, 64)
	return id, err == nil
}

// digits is the number of decimal digits of a non-negative id.
func digits(id int64) int {
	n := 1
	for id >= 10 {
		id /= 10
		n++
	}
	return n
}

// canonical turns a tools/call result into a value that compares equal
// across implementations exactly when the answers mean the same: member
// order and spacing do not count, "isError": false is the same as no
// isError, and the serverInfo in a stateless result's _meta is each
// server's own.
func canonical(result json.RawMessage) (any, error) {
	var v any
	if err := json.Unmarshal(result, &v); err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return v, nil
	}
	if b, ok := m["isError"].(bool); ok && !b {
		delete(m, "isError")
	}
	if meta, ok := m["_meta"].(map[string]any); ok {
		if _, ok := meta["io.modelcontextprotocol/serverInfo"]; ok {
			meta["io.modelcontextprotocol/serverInfo"] = "(each server's)"
		}
		if len(meta) == 0 {
			delete(m, "_meta")
		}
	}
	return m, nil
}

// sameAnswer reports whether two tools/call results are the same answer.
func sameAnswer(got, want json.RawMessage) error {
	g, err := canonical(got)
	if err != nil {
		return fmt.Errorf("result is not JSON: %v", err)
	}
	w, err := canonical(want)
	if err != nil {
		return fmt.Errorf("the floor's result is not JSON: %v", err)
	}
	if !reflect.DeepEqual(g, w) {
		return fmt.Errorf("answer differs from the floor's:\n got  %.300s\n want %.300s", got, want)
	}
	return nil
}

// checkToolList checks that a tools/list result holds the echo tool with
// the contract's input schema: a required string "text". Schemas may say
// more (additionalProperties, annotations), so only the contract is
// compared.
func checkToolList(result json.RawMessage) error {
	var r struct {
		Tools []struct {
			Name        string `json:"name"`
			InputSchema struct {
				Type       string `json:"type"`
				Properties map[string]struct {
					Type string `json:"type"`
				} `json:"properties"`
				Required []string `json:"required"`
			} `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return fmt.Errorf("tools/list: %v", err)
	}
	if len(r.Tools) != 1 || r.Tools[0].Name != "echo" {
		return fmt.Errorf("tools/list: want exactly the echo tool, got %.300s", result)
	}
	s := r.Tools[0].InputSchema
	if s.Type != "object" || s.Properties["text"].Type != "string" || !reflect.DeepEqual(s.Required, []string{"text"}) {
		return fmt.Errorf("tools/list: echo's input schema is not {text: string, required}: %.300s", result)
	}
	return nil
}

// parseResponse reads one response line fully.
func parseResponse(line []byte) (wireResponse, error) {
	var r wireResponse
	if err := json.Unmarshal(line, &r); err != nil {
		return r, fmt.Errorf("response is not JSON: %v: %.200q", err, line)
	}
	if r.Error != nil {
		return r, fmt.Errorf("error response: %s", r.Error)
	}
	return r, nil
}
