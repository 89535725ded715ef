package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// This file holds hand-written codecs for the types on the hot path of
// every tool call: CallToolParams, CallToolResult and TextContent. They
// read member by member without reflection and append straight into the
// caller's buffer (jsonrpc.Appender), so that a tools/call round trip
// costs a handful of allocations instead of dozens. Rare members (_meta
// maps, tasks, annotations) still go through encoding/json. Decoding is
// case-sensitive, stricter than encoding/json, as the rest of mcpwire.

// unquoteMember decodes a string member or reports a clear error.
func unquoteMember(where, key string, v []byte) (string, error) {
	s, ok := jsonrpc.Unquote(v)
	if !ok {
		return "", fieldError(where, key, "a string")
	}
	return s, nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (c *TextContent) UnmarshalJSON(data []byte) error {
	*c = TextContent{}
	hasText := false
	err := eachMember(data, func(key []byte, escaped bool, v []byte) (bool, error) {
		var err error
		switch {
		case keyIs(key, escaped, "type"):
			if t, ok := jsonrpc.Unquote(v); !ok || t != ContentTypeText {
				return true, fmt.Errorf(`mcp: text content with "type" %s`, v)
			}
		case keyIs(key, escaped, "text"):
			c.Text, err = unquoteMember("text content", "text", v)
			hasText = true
		case keyIs(key, escaped, "annotations"):
			if !isNull(v) {
				c.Annotations = new(Annotations)
				err = json.Unmarshal(v, c.Annotations)
			}
		case keyIs(key, escaped, "_meta"):
			err = json.Unmarshal(v, &c.Meta)
		}
		return err != nil, err
	})
	if err == nil && !hasText {
		err = fmt.Errorf(`mcp: text content without "text"`)
	}
	return err
}

// AppendJSON appends the block's JSON encoding to b.
func (c *TextContent) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"type":"text","text":`...)
	b = jsonrpc.AppendString(b, c.Text)
	return appendRare(b, c.Annotations, c.Meta)
}

// appendRare appends the annotations and _meta members shared by content
// blocks, then closes the object.
func appendRare(b []byte, ann *Annotations, meta Meta) ([]byte, error) {
	if ann != nil {
		raw, err := json.Marshal(ann)
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"annotations":`...), raw...)
	}
	if len(meta) > 0 {
		raw, err := json.Marshal(meta)
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"_meta":`...), raw...)
	}
	return append(b, '}'), nil
}

// appendContent appends one content block, without reflection for text.
func appendContent(b []byte, c Content) ([]byte, error) {
	if t, ok := c.(*TextContent); ok {
		return t.AppendJSON(b)
	}
	raw, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	return append(b, raw...), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (p *CallToolParams) UnmarshalJSON(data []byte) error {
	link := p.Meta.link // see RequestMeta.UseCache
	*p = CallToolParams{}
	p.Meta.link = link
	err := eachMember(data, func(key []byte, escaped bool, v []byte) (bool, error) {
		var err error
		switch {
		case keyIs(key, escaped, "name"):
			p.Name, err = unquoteMember("tools/call params", "name", v)
		case keyIs(key, escaped, "arguments"):
			if !isNull(v) {
				if firstByte(v) != '{' {
					return true, fieldError("tools/call params", "arguments", "an object")
				}
				p.Arguments = bytes.Clone(v)
			}
		case keyIs(key, escaped, "_meta"):
			err = p.Meta.UnmarshalJSON(v)
		case keyIs(key, escaped, "requestState"):
			if !isNull(v) {
				p.RequestState, err = unquoteMember("tools/call params", "requestState", v)
			}
		case keyIs(key, escaped, "inputResponses"):
			err = json.Unmarshal(v, &p.InputResponses)
		case keyIs(key, escaped, "task"):
			err = json.Unmarshal(v, &p.Task)
		}
		return err != nil, err
	})
	p.Meta.link = nil
	return err
}

// AppendJSON appends the params' JSON encoding to b.
func (p *CallToolParams) AppendJSON(b []byte) ([]byte, error) {
	if b == nil {
		// Sized for the common case exactly: the buffer is garbage as
		// soon as the frame is written, and its size class is the cost.
		n := 28 + len(p.Name) + len(p.Arguments)
		if p.RequestState != "" {
			n += 18 + len(p.RequestState)
		}
		if !p.Meta.IsZero() {
			n += 9 + p.Meta.sizeHint()
		}
		b = make([]byte, 0, n)
	}
	b = append(b, `{"name":`...)
	b = jsonrpc.AppendString(b, p.Name)
	if len(p.Arguments) > 0 {
		b = append(append(b, `,"arguments":`...), p.Arguments...)
	}
	if p.Task != nil || len(p.InputResponses) > 0 {
		raw, err := json.Marshal(struct {
			Task           *TaskMetadata  `json:"task,omitempty"`
			InputResponses InputResponses `json:"inputResponses,omitempty"`
		}{p.Task, p.InputResponses})
		if err != nil {
			return nil, err
		}
		b = append(append(b, ','), raw[1:len(raw)-1]...)
	}
	if p.RequestState != "" {
		b = append(b, `,"requestState":`...)
		b = jsonrpc.AppendString(b, p.RequestState)
	}
	if !p.Meta.IsZero() {
		var err error
		if b, err = p.Meta.appendJSON(append(b, `,"_meta":`...)); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// MarshalJSON implements json.Marshaler.
func (p CallToolParams) MarshalJSON() ([]byte, error) { return p.AppendJSON(nil) }

// UnmarshalJSON implements json.Unmarshaler.
func (r *CallToolResult) UnmarshalJSON(data []byte) error { return r.unmarshal(data, false) }

// decodeResult serves ResultEnvelope.Decode: the result without the
// server's info in _meta, and without decoding _meta at all when that
// was all it held.
func (r *CallToolResult) decodeResult(data []byte, infoAlone bool) error {
	if err := r.unmarshal(data, infoAlone); err != nil {
		return err
	}
	if !infoAlone {
		dropServerInfo(r)
	}
	return nil
}

// unmarshal decodes data into r, skipping _meta if skipMeta.
func (r *CallToolResult) unmarshal(data []byte, skipMeta bool) error {
	*r = CallToolResult{}
	return eachMember(data, func(key []byte, escaped bool, v []byte) (bool, error) {
		var err error
		switch {
		case keyIs(key, escaped, "content"):
			r.Content, err = decodeContents(v, blockKinds, "tool result content")
		case keyIs(key, escaped, "structuredContent"):
			if !isNull(v) {
				r.StructuredContent = bytes.Clone(v)
			}
		case keyIs(key, escaped, "isError"):
			switch string(v) {
			case "true":
				r.IsError = true
			case "false", "null":
			default:
				err = fieldError("tools/call result", "isError", "a boolean")
			}
		case keyIs(key, escaped, "_meta"):
			if !skipMeta {
				err = json.Unmarshal(v, &r.Meta)
			}
		case keyIs(key, escaped, "resultType"):
			var ok bool
			if r.ResultType, ok = internRaw(v, resultTypes[:]); !ok {
				err = fieldError("tools/call result", "resultType", "a string")
			}
		}
		return err != nil, err
	})
}

// AppendJSON appends the result's JSON encoding to b.
func (r *CallToolResult) AppendJSON(b []byte) ([]byte, error) {
	if b == nil {
		// As exact as cheaply possible: see CallToolParams.AppendJSON.
		n := 16
		for _, c := range r.Content {
			if t, ok := c.(*TextContent); ok && t.Annotations == nil && len(t.Meta) == 0 {
				n += 26 + len(t.Text) + len(t.Text)/16 // room for a few escapes
			} else {
				n += 64
			}
		}
		if len(r.StructuredContent) > 0 {
			n += 22 + len(r.StructuredContent)
		}
		if r.IsError {
			n += 15
		}
		if len(r.Meta) > 0 {
			n += 9 + metaSizeHint(r.Meta)
		}
		if r.ResultType != "" {
			n += 16 + len(r.ResultType)
		}
		b = make([]byte, 0, n)
	}
	b = append(b, `{"content":[`...)
	for i, c := range r.Content {
		if c == nil {
			return nil, fmt.Errorf("mcp: content block %d is nil", i)
		}
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendContent(b, c); err != nil {
			return nil, err
		}
	}
	b = append(b, ']')
	if len(r.StructuredContent) > 0 {
		b = append(append(b, `,"structuredContent":`...), r.StructuredContent...)
	}
	if r.IsError {
		b = append(b, `,"isError":true`...)
	}
	if len(r.Meta) > 0 {
		var err error
		if b, err = appendMeta(append(b, `,"_meta":`...), r.Meta); err != nil {
			return nil, err
		}
	}
	if r.ResultType != "" {
		b = append(b, `,"resultType":`...)
		b = jsonrpc.AppendString(b, string(r.ResultType))
	}
	return append(b, '}'), nil
}

// MarshalJSON implements json.Marshaler.
func (r CallToolResult) MarshalJSON() ([]byte, error) { return r.AppendJSON(nil) }
