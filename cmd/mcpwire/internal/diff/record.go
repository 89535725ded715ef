package diff

import (
	"encoding/json"
	"errors"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/frames"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// FromRecording returns what the client of a recording knew of the
// server at its end: the result of the last initialize or
// server/discover, and the items of the last listing of each list (all
// its pages: a first page, asked without a cursor, starts the list
// anew). A recording with neither a handshake nor a list is an error.
func FromRecording(recs []frames.Record) (*Snapshot, error) {
	s := &Snapshot{Tools: map[string]json.RawMessage{}, Resources: map[string]json.RawMessage{}, Templates: map[string]json.RawMessage{}, Prompts: map[string]json.RawMessage{}}
	firstPage := map[string]bool{} // by request id: asked without a cursor
	seen := false
	for i := range recs {
		r := &recs[i]
		m, err := r.Decode()
		if err != nil {
			continue
		}
		if req, ok := m.(*jsonrpc.Request); ok && r.From == frames.FromClient {
			var p struct {
				Cursor string `json:"cursor"`
			}
			json.Unmarshal(req.Params, &p)
			firstPage[req.ID.String()] = p.Cursor == ""
			continue
		}
		resp, ok := m.(*jsonrpc.Response)
		if !ok || r.From != frames.FromServer || resp.Error != nil {
			continue
		}
		fresh := firstPage[resp.ID.String()]
		switch r.Method {
		case mcp.MethodInitialize:
			var res mcp.InitializeResult
			if json.Unmarshal(resp.Result, &res) == nil {
				seen = true
				s.Server = res.ServerInfo.Name + " " + res.ServerInfo.Version
				s.Protocol = string(res.ProtocolVersion)
				s.Capabilities, _ = json.Marshal(res.Capabilities)
				s.Instructions = res.Instructions
			}
		case mcp.MethodDiscover:
			var res struct {
				mcp.DiscoverResult
				Meta map[string]json.RawMessage `json:"_meta"`
			}
			if json.Unmarshal(resp.Result, &res) == nil {
				seen = true
				var info mcp.Implementation
				if json.Unmarshal(res.Meta[mcp.MetaKeyServerInfo], &info) == nil && info.Name != "" {
					s.Server = info.Name + " " + info.Version
				}
				if len(res.SupportedVersions) > 0 {
					s.Protocol = string(res.SupportedVersions[0])
				}
				s.Capabilities, _ = json.Marshal(res.Capabilities)
				s.Instructions = res.Instructions
			}
		case mcp.MethodListTools:
			seen = list(s.Tools, resp.Result, "tools", "name", fresh) || seen
		case mcp.MethodListResources:
			seen = list(s.Resources, resp.Result, "resources", "uri", fresh) || seen
		case mcp.MethodListResourceTemplates:
			seen = list(s.Templates, resp.Result, "resourceTemplates", "uriTemplate", fresh) || seen
		case mcp.MethodListPrompts:
			seen = list(s.Prompts, resp.Result, "prompts", "name", fresh) || seen
		}
	}
	if !seen {
		return nil, errors.New("the recording has no handshake and no list of the server (initialize, server/discover, tools/list...)")
	}
	return s, nil
}

// list puts the items of a list result's member into m, by their key
// member; a first page empties m first. It reports whether the result
// was a list.
func list(m map[string]json.RawMessage, result json.RawMessage, member, key string, fresh bool) bool {
	var res map[string]json.RawMessage
	if json.Unmarshal(result, &res) != nil {
		return false
	}
	var items []json.RawMessage
	if json.Unmarshal(res[member], &items) != nil {
		return false
	}
	if fresh {
		clear(m)
	}
	for _, it := range items {
		var k map[string]json.RawMessage
		if json.Unmarshal(it, &k) != nil {
			continue
		}
		var name string
		if json.Unmarshal(k[key], &name) != nil {
			continue
		}
		m[name] = it
	}
	return true
}
