// Package floor is the benchmark's floor: a bare JSON-RPC loop on
// encoding/json that does the least work an MCP echo server can do and
// still answer what the others answer. It checks nothing it need not
// check, runs no goroutine of its own, and keeps a legacy HTTP session as
// one map entry. Every other implementation is measured against it.
//
// It serves both protocol eras on every transport, as the others do: a
// request whose _meta names a protocol version is a 2026-07-28 request.
// For those it does what that revision asks of every server and no more:
// it answers server/discover, refuses a request whose envelope names a
// revision it does not serve (-32022) or lacks the client capabilities
// (-32602), and marks its results (resultType, the server's info in
// _meta). A floor that skipped the envelope's checks would be measured
// doing less than a 2026-07-28 server must.
package floor

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"sync"
)

// request is every message the floor reads.
type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// response is every message the floor writes.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

type callParams struct {
	Name      string `json:"name"`
	Arguments struct {
		Text *string `json:"text"`
	} `json:"arguments"`
	Meta envelope `json:"_meta"`
}

// envelope is what the floor reads of a 2026-07-28 request's _meta.
type envelope struct {
	Version string          `json:"io.modelcontextprotocol/protocolVersion"`
	Caps    json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
}

// modern reports whether the request is a 2026-07-28 request.
func (e *envelope) modern() bool { return e.Version != "" }

// check refuses an envelope that a 2026-07-28 server must refuse.
func (e *envelope) check() *rpcError {
	switch {
	case e.Version != modernVersion:
		return &rpcError{Code: -32022, Message: "unsupported protocol version", Data: unsupportedData}
	case len(e.Caps) == 0 || string(e.Caps) == "null":
		return &rpcError{Code: -32602, Message: "_meta lacks io.modelcontextprotocol/clientCapabilities"}
	}
	return nil
}

type text struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type callResult struct {
	Content    []text          `json:"content"`
	IsError    bool            `json:"isError,omitempty"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
	ResultType string          `json:"resultType,omitempty"`
}

var (
	info       = json.RawMessage(`{"name":"bench-floor","version":"1.0.0"}`)
	modernMeta = json.RawMessage(`{"io.modelcontextprotocol/serverInfo":{"name":"bench-floor","version":"1.0.0"}}`)
	tools      = json.RawMessage(`{"tools":[{"name":"echo","description":"Returns its text","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}]}`)
	versions   = map[string]bool{"2025-11-25": true, "2025-06-18": true, "2025-03-26": true, "2024-11-05": true}
	discover   = json.RawMessage(`{"supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench-floor","version":"1.0.0"}},"resultType":"complete"}`)

	unsupportedData = json.RawMessage(`{"supported":["2026-07-28"]}`)
)

// modernVersion is the one 2026-07-28-era revision.
const modernVersion = "2026-07-28"

// Handle answers one request message; it returns nil for a notification
// and for a message that is not JSON.
func Handle(msg []byte) []byte {
	var req request
	if json.Unmarshal(msg, &req) != nil {
		return nil
	}
	resp := handle(&req)
	if resp == nil {
		return nil
	}
	b, _ := json.Marshal(resp)
	return b
}

// handle answers one request; it returns nil for a notification.
func handle(req *request) *response {
	if req.ID == nil {
		return nil
	}
	resp := &response{JSONRPC: "2.0", ID: req.ID}
	switch req.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		json.Unmarshal(req.Params, &p)
		if !versions[p.ProtocolVersion] {
			p.ProtocolVersion = "2025-11-25"
		}
		resp.Result = map[string]any{"protocolVersion": p.ProtocolVersion, "capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": info}
	case "server/discover":
		var p struct {
			Meta envelope `json:"_meta"`
		}
		json.Unmarshal(req.Params, &p)
		if resp.Error = p.Meta.check(); resp.Error == nil {
			resp.Result = discover
		}
	case "tools/list":
		resp.Result = tools
	case "tools/call":
		var p callParams
		if err := json.Unmarshal(req.Params, &p); err != nil {
			resp.Error = &rpcError{Code: -32602, Message: err.Error()}
			break
		}
		if p.Meta.modern() {
			if resp.Error = p.Meta.check(); resp.Error != nil {
				break
			}
		}
		if p.Name != "echo" {
			resp.Error = &rpcError{Code: -32602, Message: "unknown tool"}
			break
		}
		r := callResult{}
		if p.Arguments.Text == nil {
			r = callResult{Content: []text{{"text", "text is required"}}, IsError: true}
		} else {
			r.Content = []text{{"text", *p.Arguments.Text}}
		}
		if p.Meta.modern() {
			r.Meta, r.ResultType = modernMeta, "complete"
		}
		resp.Result = r
	case "ping":
		resp.Result = struct{}{}
	default:
		resp.Error = &rpcError{Code: -32601, Message: "method not found"}
	}
	return resp
}

// ServeStdio reads one request per line from stdin and answers on stdout
// in order, flushing when no more input is buffered; it returns at the end
// of the input.
func ServeStdio(ctx context.Context) error {
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	enc := json.NewEncoder(out)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			var req request
			if json.Unmarshal(line, &req) == nil {
				if resp := handle(&req); resp != nil {
					enc.Encode(resp) // one line, with its newline
				}
			}
		}
		if in.Buffered() == 0 || err != nil {
			if ferr := out.Flush(); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// NewHTTPHandler returns the handler of /mcp: sessions are map entries,
// answers are JSON. A request without a session (a 2026-07-28 request) is
// answered as it is.
func NewHTTPHandler() http.Handler {
	return &httpHandler{sessions: make(map[string]struct{})}
}

// httpHandler serves /mcp.
type httpHandler struct {
	mu       sync.Mutex
	sessions map[string]struct{}
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get("Mcp-Session-Id")
	if r.Method == http.MethodDelete {
		h.mu.Lock()
		delete(h.sessions, sid)
		h.mu.Unlock()
		w.WriteHeader(http.StatusOK)
		return
	}
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	var req request
	if err != nil || json.Unmarshal(body, &req) != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	switch {
	case req.Method == "initialize":
		var b [16]byte
		rand.Read(b[:])
		sid = hex.EncodeToString(b[:])
		h.mu.Lock()
		h.sessions[sid] = struct{}{}
		h.mu.Unlock()
		w.Header().Set("Mcp-Session-Id", sid)
	case sid != "":
		h.mu.Lock()
		_, ok := h.sessions[sid]
		h.mu.Unlock()
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			return
		}
	}
	resp := handle(&req)
	if resp == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}
