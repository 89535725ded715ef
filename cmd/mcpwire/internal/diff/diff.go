// Package diff is mcpwire diff, and the diff of mcpwire inspect's
// Reconnect: what changed between two connections to a server, or two
// recordings of one. A Snapshot is what a client knows of a server after
// connecting and listing: its name and version, protocol revision,
// capabilities, instructions, tools, resources, templates and prompts;
// Compare lists the changes from one to the other.
//
//	diff.go     Snapshot, Compare, the Changes
//	record.go   a Snapshot from a recording (mcpwire tap's format)
//	family.go   mcpwire diff
package diff

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// A Snapshot is what a client knows of a server. Each list maps an
// item's key (a tool's or prompt's name, a resource's URI, a template's
// URI template) to the item as JSON.
type Snapshot struct {
	Server       string          `json:"server"` // "name version"
	Protocol     string          `json:"protocol"`
	Capabilities json.RawMessage `json:"capabilities,omitempty"`
	Instructions string          `json:"instructions,omitempty"`
	Tools        map[string]json.RawMessage
	Resources    map[string]json.RawMessage
	Templates    map[string]json.RawMessage
	Prompts      map[string]json.RawMessage
}

// Items makes one list of a Snapshot from items, by their key. Items
// that do not encode are left out.
func Items[T any](items []T, key func(*T) string) map[string]json.RawMessage {
	m := make(map[string]json.RawMessage, len(items))
	for i := range items {
		if b, err := json.Marshal(&items[i]); err == nil {
			m[key(&items[i])] = b
		}
	}
	return m
}

// A Change is one difference between two snapshots.
type Change struct {
	// What changed: "server", "protocol", "capabilities",
	// "instructions", "tool", "resource", "template", "prompt".
	What string `json:"what"`
	// Name is the item's key (a tool's name...), "" for the others.
	Name string `json:"name,omitempty"`
	// Op is "added", "removed" or "changed".
	Op string `json:"op"`
	// Fields are the members of an item that changed (description,
	// inputSchema...), or the capabilities that changed.
	Fields []string `json:"fields,omitempty"`
	// Before and After are the values, as compact JSON or text, for a
	// change of a value that is not an item.
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
}

// String words the change for a person.
func (c *Change) String() string {
	switch {
	case c.Name != "" && len(c.Fields) > 0:
		return fmt.Sprintf("%s %q %s: %s", c.What, c.Name, c.Op, strings.Join(c.Fields, ", "))
	case c.Name != "":
		return fmt.Sprintf("%s %q %s", c.What, c.Name, c.Op)
	case len(c.Fields) > 0:
		return fmt.Sprintf("%s %s: %s", c.What, c.Op, strings.Join(c.Fields, ", "))
	}
	return fmt.Sprintf("%s %s: %s → %s", c.What, c.Op, orNone(c.Before), orNone(c.After))
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return clip(s, 200)
}

// clip shortens s to n bytes.
func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// Compare returns the changes from a to b: the server, protocol,
// capabilities (by member), instructions, then each list's items added,
// removed or changed (by member, "_meta" ignored), in key order.
func Compare(a, b *Snapshot) []Change {
	var out []Change
	value := func(what, x, y string) {
		if x != y {
			out = append(out, Change{What: what, Op: "changed", Before: x, After: y})
		}
	}
	value("server", a.Server, b.Server)
	value("protocol", a.Protocol, b.Protocol)
	if f := members(a.Capabilities, b.Capabilities, ""); len(f) > 0 {
		out = append(out, Change{What: "capabilities", Op: "changed", Fields: f})
	}
	value("instructions", a.Instructions, b.Instructions)
	for _, l := range []struct {
		what string
		x, y map[string]json.RawMessage
	}{{"tool", a.Tools, b.Tools}, {"resource", a.Resources, b.Resources}, {"template", a.Templates, b.Templates}, {"prompt", a.Prompts, b.Prompts}} {
		keys := slices.Sorted(maps.Keys(l.x))
		for k := range l.y {
			if _, ok := l.x[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			x, inX := l.x[k]
			y, inY := l.y[k]
			switch {
			case !inY:
				out = append(out, Change{What: l.what, Name: k, Op: "removed"})
			case !inX:
				out = append(out, Change{What: l.what, Name: k, Op: "added"})
			default:
				if f := members(x, y, "_meta"); len(f) > 0 {
					out = append(out, Change{What: l.what, Name: k, Op: "changed", Fields: f})
				}
			}
		}
	}
	return out
}

// members returns the top-level members of two JSON objects whose
// values differ (decoded, so that the order of members and spacing do
// not count), skipping ignore; a value that is not an object is "(all)".
func members(x, y json.RawMessage, ignore string) []string {
	var a, b map[string]any
	if len(x) == 0 && len(y) == 0 {
		return nil
	}
	ea, eb := json.Unmarshal(orEmpty(x), &a), json.Unmarshal(orEmpty(y), &b)
	if ea != nil || eb != nil {
		if string(x) != string(y) {
			return []string{"(all)"}
		}
		return nil
	}
	var out []string
	for k, va := range a {
		if k == ignore {
			continue
		}
		if vb, ok := b[k]; !ok || !reflect.DeepEqual(va, vb) {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok && k != ignore {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func orEmpty(b json.RawMessage) json.RawMessage {
	if len(b) == 0 || string(b) == "null" {
		return json.RawMessage("{}")
	}
	return b
}

// Write writes the changes for a person, one per line, or that there are
// none.
func Write(w io.Writer, changes []Change) error {
	var b strings.Builder
	if len(changes) == 0 {
		b.WriteString("no changes\n")
	}
	for i := range changes {
		b.WriteString(changes[i].String() + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
