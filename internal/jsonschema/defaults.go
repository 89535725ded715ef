package jsonschema

import (
	"encoding/json"
	"fmt"
)

// A propertyDefault is a "default" declared on a top-level property.
type propertyDefault struct {
	name  string
	key   []byte // the name as a JSON string
	value []byte // the default, as written
}

// rootDefaults collects the defaults of the root's own properties.
func rootDefaults(root *tree) []propertyDefault {
	props := root.get("properties")
	if props == nil || props.kind != kindObject {
		return nil
	}
	var out []propertyDefault
	for k, name := range props.keys {
		if def := props.vals[k].get("default"); def != nil {
			key, _ := json.Marshal(name)
			out = append(out, propertyDefault{name: name, key: key, value: def.raw})
		}
	}
	return out
}

// ApplyDefaults returns instance with the defaults of the schema's
// top-level properties added for the members it lacks, as an elicitation
// form or a tool's input is completed before use. Members present, even
// null, are kept; nested defaults are not applied. An instance that is not
// an object, or lacks nothing, is returned unchanged (not copied). The
// added members are appended after the existing ones.
func (s *Schema) ApplyDefaults(instance json.RawMessage) (json.RawMessage, error) {
	if len(s.defaults) == 0 {
		return instance, nil
	}
	if err := checkSyntax(instance, MaxInstanceDepth); err != nil {
		return nil, fmt.Errorf("jsonschema: %w", err)
	}
	d := instance
	start := skipWS(d, 0)
	if d[start] != '{' {
		return instance, nil
	}
	present := make([]bool, len(s.defaults))
	missing := len(s.defaults)
	empty := true
	i := skipWS(d, start+1)
	for d[i] != '}' {
		empty = false
		keyEnd, escaped := skipString(d, i)
		key := d[i+1 : keyEnd-1]
		if escaped {
			key = appendUnescaped(nil, d[i:keyEnd])
		}
		for k, def := range s.defaults {
			if !present[k] && def.name == string(key) {
				present[k] = true
				missing--
			}
		}
		v := skipWS(d, skipWS(d, keyEnd)+1)
		if i = skipWS(d, skipValue(d, v)); d[i] == ',' {
			i = skipWS(d, i+1)
		}
	}
	if missing == 0 {
		return instance, nil
	}
	out := make([]byte, 0, len(d)+64)
	out = append(out, d[:i]...)
	for k, def := range s.defaults {
		if present[k] {
			continue
		}
		if !empty {
			out = append(out, ',')
		}
		empty = false
		out = append(out, def.key...)
		out = append(out, ':')
		out = append(out, def.value...)
	}
	return append(out, d[i:]...), nil
}
