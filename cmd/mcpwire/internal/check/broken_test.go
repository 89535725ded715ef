package check

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"
)

// The broken server: a small MCP server written by hand, frame by frame,
// whose defects are switched on one by one, so that each check is seen to
// fail on the defect it is there to catch. Healthy (no defect) it passes
// every check, in both eras. The test binary is the server: TestMain runs
// it over stdio when its arguments are brokenArg and the defects ("ok",
// or defects separated by commas); brokenHandler serves it over HTTP in
// process.
//
// The defects:
//
//	wrong-codes           -32603 for every JSON-RPC error (bad JSON, unknown method, ...)
//	die-on-bad-json       exit, as a crash would, on a line that is not JSON
//	silent-unknown        never answer an unknown method
//	echo-version          accept any protocolVersion in initialize
//	no-ping               answer ping with -32601
//	schema-not-object     a tool whose inputSchema is {"type": "string"}
//	invalid-schema        a tool whose inputSchema is {"type": 5}
//	output-not-object     a tool whose outputSchema is {"type": "array"} (legacy: must be an object)
//	pagination-loop       tools/list's second page points back at itself
//	refuse-own-cursor     tools/list refuses the cursor it gave
//	bad-template          a resource template that is not RFC 6570
//	bad-blob              a resource whose blob is not base64
//	undeclared-changes    tools/list_changed without declaring tools.listChanged
//	not-found-32002       -32002 for an unknown resource in the modern era too
//	wrong-version-code    -32600 for an unknown revision (modern)
//	no-result-type        modern results without resultType
//	no-ttl                modern lists without ttlMs and cacheScope
//	bad-header-param      a tool whose x-mcp-header annotates a number
//	no-ack                subscriptions/listen without its acknowledgement first
//	bad-structured        a tool whose structuredContent breaks its outputSchema
//	ignore-headers        HTTP: no check of any header, Origin included
//	text-only             stdio: a program that does not speak JSON-RPC: a banner, then a line of text for each line read
//	batch-only            stdio: every line answered with a JSON array of things that are not messages
//	banner                stdio: a line of text on stdout first, then a server that works
//	linger                stdio: a server that works, and does not exit when its stdin ends (for a minute)
type brokenServer struct {
	defects map[string]bool
	// answered counts the requests answered, for undeclared-changes.
	answered int
}

func newBrokenServer(defects string) *brokenServer {
	s := &brokenServer{defects: map[string]bool{}}
	for _, d := range strings.Split(defects, ",") {
		if d = strings.TrimSpace(d); d != "" && d != "ok" {
			s.defects[d] = true
		}
	}
	return s
}

func (s *brokenServer) has(d string) bool { return s.defects[d] }

// serveStdio serves stdin and stdout, a line each way.
func (s *brokenServer) serveStdio(in io.Reader, out io.Writer) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	if s.has("text-only") || s.has("banner") {
		fmt.Fprintln(out, "Welcome to the \x1b[1mREPL\x1b[0m")
	}
	for sc.Scan() {
		line := sc.Bytes()
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		switch {
		case s.has("text-only"):
			fmt.Fprintln(out, "you said something")
			continue
		case s.has("batch-only"):
			fmt.Fprintln(out, `[1,"two",{"three":3}]`)
			continue
		}
		if s.has("die-on-bad-json") && !json.Valid(line) {
			fmt.Fprintln(os.Stderr, "panic: invalid character in JSON")
			os.Exit(2)
		}
		for _, resp := range s.handle(line) {
			out.Write(append(resp, '\n'))
		}
	}
	if s.has("linger") {
		time.Sleep(time.Minute) // until mcpwire check kills it
	}
}

// handle answers one frame with the frames to send back.
func (s *brokenServer) handle(line []byte) [][]byte {
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(line, &msg); err != nil {
		return [][]byte{s.errorFrame(nil, -32700, "Parse error")}
	}
	id, hasID := msg["id"]
	var method, version string
	if json.Unmarshal(msg["method"], &method) != nil || string(msg["jsonrpc"]) != `"2.0"` {
		if !hasID || string(id) == "null" {
			id = nil
		}
		return [][]byte{s.errorFrame(id, -32600, "Invalid Request")}
	}
	var params map[string]json.RawMessage
	json.Unmarshal(msg["params"], &params)
	var meta map[string]json.RawMessage
	json.Unmarshal(params["_meta"], &meta)
	json.Unmarshal(meta["io.modelcontextprotocol/protocolVersion"], &version)
	modern := version != ""
	if !hasID {
		return nil // a notification
	}
	if modern && version != "2026-07-28" {
		if s.has("wrong-version-code") {
			return [][]byte{s.errorFrame(id, -32600, "bad version")}
		}
		return [][]byte{s.errorData(id, -32022, "Unsupported protocol version", map[string]any{"supported": []string{"2026-07-28"}, "requested": version})}
	}
	if modern {
		if _, ok := meta["io.modelcontextprotocol/clientCapabilities"]; !ok {
			return [][]byte{s.errorFrame(id, -32602, "missing clientCapabilities")}
		}
	}
	result, code, message := s.method(method, params, modern)
	var out [][]byte
	if s.has("undeclared-changes") && !modern {
		if s.answered++; s.answered == 3 {
			out = append(out, []byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`))
		}
	}
	if method == "subscriptions/listen" && code == 0 {
		ack := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":%s}}}`, id)
		if s.has("no-ack") {
			ack = fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":%s}}}`, id)
		}
		return append(out, []byte(ack)) // the listen goes on: no response yet
	}
	if code != 0 {
		return append(out, s.errorFrame(id, code, message))
	}
	if modern {
		result["_meta"] = map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "broken", "version": "1.0"}}
		if !s.has("no-result-type") {
			result["resultType"] = "complete"
		}
		if strings.HasSuffix(method, "/list") && !s.has("no-ttl") {
			result["ttlMs"], result["cacheScope"] = 0, "public"
		}
		if method == "resources/read" {
			result["ttlMs"], result["cacheScope"] = 0, "private"
		}
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	return append(out, b)
}

// method answers a request: its result, or an error code and message.
func (s *brokenServer) method(method string, params map[string]json.RawMessage, modern bool) (map[string]any, int, string) {
	str := func(name string) (string, bool) {
		var v string
		err := json.Unmarshal(params[name], &v)
		return v, err == nil
	}
	caps := map[string]any{"tools": map[string]any{"listChanged": true}, "resources": map[string]any{}, "prompts": map[string]any{}}
	if s.has("undeclared-changes") {
		caps["tools"] = map[string]any{}
	}
	switch method {
	case "initialize":
		if modern {
			return nil, -32601, "Method not found"
		}
		v, _ := str("protocolVersion")
		if !s.has("echo-version") && !slices.Contains([]string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}, v) {
			v = "2025-11-25"
		}
		return map[string]any{"protocolVersion": v, "capabilities": caps, "serverInfo": map[string]any{"name": "broken", "version": "1.0"}}, 0, ""
	case "server/discover":
		if !modern {
			return nil, -32601, "Method not found"
		}
		return map[string]any{"supportedVersions": []string{"2026-07-28", "2025-11-25"}, "capabilities": caps, "ttlMs": 0, "cacheScope": "public"}, 0, ""
	case "subscriptions/listen":
		if !modern {
			return nil, -32601, "Method not found"
		}
		return map[string]any{}, 0, ""
	case "ping":
		if modern || s.has("no-ping") {
			return nil, -32601, "Method not found"
		}
		return map[string]any{}, 0, ""
	case "tools/list":
		page1 := []any{map[string]any{"name": "echo", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}}}
		page2 := []any{map[string]any{"name": "sum", "inputSchema": map[string]any{"type": "object"},
			"outputSchema": map[string]any{"type": "object", "properties": map[string]any{"sum": map[string]any{"type": "integer"}}, "required": []string{"sum"}},
			"annotations":  map[string]any{"readOnlyHint": true, "openWorldHint": false}}}
		switch {
		case s.has("schema-not-object"):
			page2 = append(page2, map[string]any{"name": "stringly", "inputSchema": map[string]any{"type": "string"}})
		case s.has("invalid-schema"):
			page2 = append(page2, map[string]any{"name": "typo", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": 5}}}})
		case s.has("bad-header-param"):
			page2 = append(page2, map[string]any{"name": "region", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"lat": map[string]any{"type": "number", "x-mcp-header": "Lat"}}}})
		case s.has("output-not-object"):
			page2 = append(page2, map[string]any{"name": "listy", "inputSchema": map[string]any{"type": "object"}, "outputSchema": map[string]any{"type": "array"}})
		}
		cursor, _ := str("cursor")
		switch cursor {
		case "":
			return map[string]any{"tools": page1, "nextCursor": "page-2"}, 0, ""
		case "page-2":
			if s.has("refuse-own-cursor") {
				return nil, -32602, "invalid cursor"
			}
			r := map[string]any{"tools": page2}
			if s.has("pagination-loop") {
				r["nextCursor"] = "page-2"
			}
			return r, 0, ""
		}
		return nil, -32602, "invalid cursor"
	case "tools/call":
		name, ok := str("name")
		switch {
		case !ok:
			return nil, -32602, "name must be a string"
		case name == "echo":
			return map[string]any{"content": []any{map[string]any{"type": "text", "text": "echo"}}}, 0, ""
		case name == "sum":
			sc := map[string]any{"sum": 3}
			if s.has("bad-structured") {
				sc = map[string]any{"sum": "three"}
			}
			return map[string]any{"content": []any{map[string]any{"type": "text", "text": `{"sum":3}`}}, "structuredContent": sc}, 0, ""
		}
		return nil, -32602, "unknown tool"
	case "resources/list":
		return map[string]any{"resources": []any{map[string]any{"uri": "test://one", "name": "one"}}}, 0, ""
	case "resources/templates/list":
		t := "test://items/{id}"
		if s.has("bad-template") {
			t = "test://items/{id"
		}
		return map[string]any{"resourceTemplates": []any{map[string]any{"uriTemplate": t, "name": "item"}}}, 0, ""
	case "resources/read":
		uri, ok := str("uri")
		switch {
		case !ok:
			return nil, -32602, "uri must be a string"
		case uri == "test://one" && s.has("bad-blob"):
			return map[string]any{"contents": []any{map[string]any{"uri": uri, "blob": "not base64!"}}}, 0, ""
		case uri == "test://one":
			return map[string]any{"contents": []any{map[string]any{"uri": uri, "text": "one"}}}, 0, ""
		case modern && !s.has("not-found-32002"):
			return nil, -32602, "resource not found"
		}
		return nil, -32002, "resource not found"
	case "prompts/list":
		return map[string]any{"prompts": []any{
			map[string]any{"name": "plain"},
			map[string]any{"name": "greet", "arguments": []any{map[string]any{"name": "who", "required": true}}},
		}}, 0, ""
	case "prompts/get":
		name, ok := str("name")
		var args map[string]string
		json.Unmarshal(params["arguments"], &args)
		switch {
		case !ok:
			return nil, -32602, "name must be a string"
		case name == "plain":
			return map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "hi"}}}}, 0, ""
		case name == "greet" && args["who"] == "":
			return nil, -32602, "missing argument who"
		case name == "greet":
			return map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "hi " + args["who"]}}}}, 0, ""
		}
		return nil, -32602, "unknown prompt"
	}
	if s.has("silent-unknown") {
		return nil, -1, ""
	}
	return nil, -32601, "Method not found"
}

// errorFrame returns an error response; a nil id is written as null.
func (s *brokenServer) errorFrame(id json.RawMessage, code int, message string) []byte {
	return s.errorData(id, code, message, nil)
}

func (s *brokenServer) errorData(id json.RawMessage, code int, message string, data any) []byte {
	if code == -1 {
		return nil // silent-unknown: no answer at all
	}
	if s.has("wrong-codes") {
		code = -32603
	}
	if id == nil {
		id = json.RawMessage("null")
	}
	e := map[string]any{"code": code, "message": message}
	if data != nil {
		e["data"] = data
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": e})
	return b
}

// brokenHandler serves the broken server over Streamable HTTP, both eras,
// as simply as can be: each POST is answered with one JSON body. It checks
// the headers a server must (unless ignore-headers): the session, the
// revision, the Origin, and the headers of 2026-07-28.
func brokenHandler(defects string) http.Handler {
	s := newBrokenServer(defects)
	const session = "broken-session-1"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string                     `json:"name"`
				URI  string                     `json:"uri"`
				Meta map[string]json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		json.Unmarshal(body, &msg)
		var version string
		json.Unmarshal(msg.Params.Meta["io.modelcontextprotocol/protocolVersion"], &version)
		// A frame that does not say its revision is of the header's.
		modern := version != "" || r.Header.Get("Mcp-Protocol-Version") == "2026-07-28"
		reply := func(status int, frames [][]byte) {
			w.Header().Set("Content-Type", "application/json")
			if len(frames) == 0 {
				w.WriteHeader(http.StatusAccepted)
				return
			}
			w.WriteHeader(status)
			w.Write(frames[len(frames)-1])
		}
		refuse := func(status, code int, message string) {
			id := msg.ID
			if len(id) == 0 {
				id = nil
			}
			reply(status, [][]byte{s.errorFrame(id, code, message)})
		}
		if !s.has("ignore-headers") {
			switch {
			case r.Header.Get("Origin") != "":
				refuse(http.StatusForbidden, -32000, "Forbidden origin")
				return
			case version != "" && r.Header.Get("Mcp-Protocol-Version") != version:
				refuse(http.StatusBadRequest, -32020, "MCP-Protocol-Version differs from _meta")
				return
			case version != "" && json.Valid(body) && r.Header.Get("Mcp-Method") != msg.Method:
				refuse(http.StatusBadRequest, -32020, "Mcp-Method differs from the body")
				return
			case version != "" && r.Header.Get("Mcp-Name") != "" && r.Header.Get("Mcp-Name") != msg.Params.Name+msg.Params.URI:
				refuse(http.StatusBadRequest, -32020, "Mcp-Name differs from the body")
				return
			case !modern && msg.Method != "initialize" && json.Valid(body) && r.Header.Get("Mcp-Session-Id") != session:
				refuse(http.StatusBadRequest, -32000, "no session")
				return
			case !modern && msg.Method != "initialize" && r.Header.Get("Mcp-Protocol-Version") != "" &&
				!slices.Contains([]string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}, r.Header.Get("Mcp-Protocol-Version")):
				refuse(http.StatusBadRequest, -32000, "unsupported MCP-Protocol-Version")
				return
			}
		}
		frames := s.handle(body)
		status := http.StatusOK
		if msg.Method == "initialize" {
			w.Header().Set("Mcp-Session-Id", session)
		}
		if len(frames) > 0 && version != "" {
			var m struct {
				Error *struct{ Code int } `json:"error"`
			}
			json.Unmarshal(frames[len(frames)-1], &m)
			if m.Error != nil {
				status = http.StatusBadRequest
				if m.Error.Code == -32601 {
					status = http.StatusNotFound
				}
			}
		}
		if msg.Method == "subscriptions/listen" {
			// The acknowledgement, as an SSE stream that stays open
			// until the client goes.
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			for _, f := range frames {
				fmt.Fprintf(w, "data: %s\n\n", f)
			}
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		if len(frames) > 0 && !json.Valid(body) || (len(msg.ID) == 0 && len(frames) > 0) {
			status = http.StatusBadRequest
		}
		reply(status, frames)
	})
}
