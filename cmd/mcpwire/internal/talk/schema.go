package talk

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
)

// An argument is one property of a tool's input schema, as mcpwire tools
// shows it.
type argument struct {
	Name        string
	Type        string // "string", "integer[]", "string|null", "any"
	Required    bool
	Description string // one line: the description, allowed values, default
}

// schemaArguments reads the properties of an object schema, in the order
// the schema lists them. A schema it cannot read has no arguments.
func schemaArguments(raw json.RawMessage) []argument {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if json.Unmarshal(raw, &s) != nil || len(s.Properties) == 0 {
		return nil
	}
	var args []argument
	for name, prop := range orderedMembers(s.Properties) {
		p := readProp(prop)
		args = append(args, argument{
			Name:        name,
			Type:        p.typeName(),
			Required:    slices.Contains(s.Required, name),
			Description: p.summary(),
		})
	}
	return args
}

// orderedMembers yields the members of a JSON object in their order.
func orderedMembers(raw json.RawMessage) func(yield func(string, json.RawMessage) bool) {
	return func(yield func(string, json.RawMessage) bool) {
		dec := json.NewDecoder(bytes.NewReader(raw))
		if t, err := dec.Token(); err != nil || t != json.Delim('{') {
			return
		}
		for dec.More() {
			t, err := dec.Token()
			if err != nil {
				return
			}
			key, _ := t.(string)
			var v json.RawMessage
			if dec.Decode(&v) != nil {
				return
			}
			if !yield(key, v) {
				return
			}
		}
	}
}

// prop is the part of a property's schema that mcpwire shows.
type prop struct {
	Type        json.RawMessage   `json:"type"`
	Title       string            `json:"title"`
	Description string            `json:"description"`
	Enum        []json.RawMessage `json:"enum"`
	Const       json.RawMessage   `json:"const"`
	Default     json.RawMessage   `json:"default"`
	Items       json.RawMessage   `json:"items"`
	AnyOf       []json.RawMessage `json:"anyOf"`
	OneOf       []json.RawMessage `json:"oneOf"`
	Ref         string            `json:"$ref"`
}

// readProp decodes a property schema; a boolean schema, or one that does
// not decode, is an empty prop (any value).
func readProp(raw json.RawMessage) *prop {
	p := new(prop)
	if json.Unmarshal(raw, p) != nil {
		return new(prop)
	}
	return p
}

// typeName names the type of values the property takes.
func (p *prop) typeName() string {
	var one string
	var many []string
	switch {
	case json.Unmarshal(p.Type, &one) == nil && one != "":
		if one == "array" && len(p.Items) > 0 {
			item := readProp(p.Items).typeName()
			if strings.Contains(item, "|") {
				item = "(" + item + ")"
			}
			return item + "[]"
		}
		return one
	case json.Unmarshal(p.Type, &many) == nil && len(many) > 0:
		return strings.Join(many, "|")
	case p.Ref != "":
		return p.Ref[strings.LastIndexByte(p.Ref, '/')+1:]
	case len(p.AnyOf) > 0 || len(p.OneOf) > 0:
		var names []string
		for _, alt := range append(slices.Clone(p.AnyOf), p.OneOf...) {
			if n := readProp(alt).typeName(); !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
		return strings.Join(names, "|")
	case len(p.Enum) > 0:
		return valueKinds(p.Enum)
	case len(p.Const) > 0:
		return valueKinds([]json.RawMessage{p.Const})
	}
	return "any"
}

// valueKinds names the JSON types of values: "string", "integer|null".
func valueKinds(values []json.RawMessage) string {
	var names []string
	for _, v := range values {
		var x any
		if json.Unmarshal(v, &x) != nil {
			continue
		}
		n := strings.TrimPrefix(strings.TrimPrefix(app.JSONKind(x), "a "), "an ")
		if n == "boolean" || n == "number" || n == "string" || n == "null" || n == "array" || n == "object" {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	if len(names) == 0 {
		return "any"
	}
	return strings.Join(names, "|")
}

// summary is the property's description on one line, followed by its
// allowed values and its default.
func (p *prop) summary() string {
	s := app.Flatten(p.Description)
	if s == "" {
		s = app.Flatten(p.Title)
	}
	var notes []string
	if len(p.Enum) > 0 {
		vals := make([]string, len(p.Enum))
		for i, v := range p.Enum {
			vals[i] = app.CompactJSON(v)
		}
		notes = append(notes, "one of: "+strings.Join(vals, ", "))
	}
	if len(p.Const) > 0 {
		notes = append(notes, "always "+app.CompactJSON(p.Const))
	}
	if len(p.Default) > 0 {
		notes = append(notes, "default: "+app.CompactJSON(p.Default))
	}
	if len(notes) > 0 {
		n := "(" + strings.Join(notes, "; ") + ")"
		if s == "" {
			return n
		}
		s += " " + n
	}
	return s
}
