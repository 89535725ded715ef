package streamable

import (
	"context"
	"fmt"
	"net/http"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport/internal/sse"
)

// post serves a POST: one message (or, in 2025-03-26, a batch) from the
// client. The checks common to both eras come first (content type,
// Accept, size, strict decoding); then the message goes to the modern or
// the legacy path.
func (h *Handler) post(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header["Content-Type"]; len(ct) == 0 || !sse.IsJSON(ct[0]) {
		writeError(w, http.StatusUnsupportedMediaType, CodeTransportError, "Unsupported Media Type: Content-Type must be application/json")
		return
	}
	if accept := r.Header["Accept"]; !sse.Accepts(accept, "application/json") || !sse.Accepts(accept, "text/event-stream") {
		writeError(w, http.StatusNotAcceptable, CodeTransportError, "Not Acceptable: Accept must allow both application/json and text/event-stream")
		return
	}
	body, msg, status, refusal := sse.ReadMessage(r, h.opts.MaxBodyBytes, h.dec)
	hv, hasHV := header(r, keyProtocolVersion)
	modern := refusal == nil && h.isModern(msg, hv, hasHV)
	if h.opts.Observer != nil {
		w = h.observePost(w, r, body, msg, refusal, modern)
	}
	if refusal != nil {
		writeResponse(w, status, refusal)
		return
	}
	if modern {
		h.postModern(w, r, msg, hv, hasHV)
		return
	}
	h.postLegacy(w, r, msg, hv, hasHV)
}

// Names of the _meta members a modern request must carry.
const (
	metaKey = "_meta"
)

// isModern classifies a POST: modern (2026-07-28) when its
// MCP-Protocol-Version header names a modern revision, or when the
// request's _meta names a protocol version (whatever the header says; the
// checks that follow report the disagreement).
func (h *Handler) isModern(msg jsonrpc.Message, hv string, hasHV bool) bool {
	if hasHV && mcp.IsModern(mcp.Version(hv)) {
		return true
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() {
		return false
	}
	return member(member(req.Params, metaKey), mcp.MetaKeyProtocolVersion) != nil
}

// postModern serves a modern POST: a notification is accepted (202); a
// request is checked (checkModern), then served statelessly, its
// notifications and answer on the response (JSON, or SSE once a
// notification comes first). Closing the response cancels the request.
func (h *Handler) postModern(w http.ResponseWriter, r *http.Request, msg jsonrpc.Message, hv string, hasHV bool) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		writeError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest,
			"Invalid Request: a modern POST carries one request or notification (no batch, no response)")
		return
	}
	if !req.IsCall() {
		h.srv.ServeStateless(r.Context(), req, discard{})
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if e := h.checkModern(r, req, hv, hasHV); e != nil {
		writeResponse(w, http.StatusBadRequest, &jsonrpc.Response{ID: req.ID, Error: e})
		return
	}
	st := &stream{Context: r.Context(), h: h, modern: true, tr: trackerOf(w)}
	st.mu.Lock()
	gen := st.attachLocked(w, false, nil)
	st.mu.Unlock()
	resp := h.srv.ServeStateless(st, req, st)
	st.finish(resp)
	st.release(gen)
}

// checkModern checks a modern request's envelope and headers in the order
// of the 2026-07-28 conformance suite: the MCP-Protocol-Version header is
// present; _meta has protocolVersion and clientCapabilities (-32602); the
// header equals _meta's version (-32020); the version is supported
// (-32022); Mcp-Method equals the method, Mcp-Name the target, and the
// Mcp-Param-* headers the arguments they mirror (-32020). All are HTTP
// 400.
func (h *Handler) checkModern(r *http.Request, req *jsonrpc.Request, hv string, hasHV bool) *jsonrpc.Error {
	if !hasHV {
		return mcp.HeaderMismatchError("the MCP-Protocol-Version header is required")
	}
	meta := member(req.Params, metaKey)
	pv := member(meta, mcp.MetaKeyProtocolVersion)
	if isNull(pv) {
		return jsonrpc.NewError(jsonrpc.CodeInvalidParams, `Invalid params: _meta lacks "`+mcp.MetaKeyProtocolVersion+`"`)
	}
	if !isString(pv) {
		return jsonrpc.NewError(jsonrpc.CodeInvalidParams, `Invalid params: _meta "`+mcp.MetaKeyProtocolVersion+`" must be a string`)
	}
	if isNull(member(meta, mcp.MetaKeyClientCapabilities)) {
		return jsonrpc.NewError(jsonrpc.CodeInvalidParams, `Invalid params: _meta lacks "`+mcp.MetaKeyClientCapabilities+`"`)
	}
	if !stringEquals(pv, hv) {
		v, _ := jsonString(pv)
		return mcp.HeaderMismatchError(fmt.Sprintf("MCP-Protocol-Version header %q does not match _meta protocolVersion %q", hv, v))
	}
	if !h.servesModern(hv) {
		return mcp.UnsupportedVersionError(hv, append([]mcp.Version{}, h.modern...))
	}
	if m, ok := header(r, keyMethod); !ok {
		return mcp.HeaderMismatchError("the Mcp-Method header is required")
	} else if m != req.Method {
		return mcp.HeaderMismatchError(fmt.Sprintf("Mcp-Method header %q does not match the method %q", m, req.Method))
	}
	if key := mcp.NameHeaderParam(req.Method); key != "" {
		if e := checkNameHeader(r, req.Params, key); e != nil {
			return e
		}
	}
	if req.Method == mcp.MethodCallTool && h.opts.ToolHeaderParams != nil {
		name, _ := jsonString(member(req.Params, "name"))
		if params := h.opts.ToolHeaderParams(name); len(params) > 0 {
			return checkParamHeaders(r, member(req.Params, "arguments"), params)
		}
	}
	return nil
}

// checkNameHeader compares the Mcp-Name header with the params member key
// (name, uri or taskId). A request without that member is left to the
// server, which reports the invalid params.
func checkNameHeader(r *http.Request, params []byte, key string) *jsonrpc.Error {
	v := member(params, key)
	if !isString(v) {
		return nil
	}
	hv, ok := header(r, keyName)
	if !ok {
		return mcp.HeaderMismatchError("the Mcp-Name header is required for this method")
	}
	text, err := mcp.DecodeHeaderValue(hv)
	if err != nil {
		return mcp.HeaderMismatchError(fmt.Sprintf("Mcp-Name header value %q is invalid", hv))
	}
	if !stringEquals(v, text) {
		body, _ := jsonString(v)
		return mcp.HeaderMismatchError(fmt.Sprintf("Mcp-Name header value %q does not match the body value %q", text, body))
	}
	return nil
}

// servesModern reports whether v is a modern revision the handler accepts.
func (h *Handler) servesModern(v string) bool {
	for _, x := range h.modern {
		if string(x) == v {
			return true
		}
	}
	return false
}

// accepts reports whether v is a revision the handler accepts.
func (h *Handler) accepts(v string) bool {
	for _, x := range h.versions {
		if string(x) == v {
			return true
		}
	}
	return false
}

// discard is the writer of a modern notification, which sends nothing.
type discard struct{}

func (discard) Write(context.Context, jsonrpc.Message) error { return nil }
