package jsonschema

import (
	"fmt"
	"strconv"
	"strings"
)

// Composition keywords (allOf, anyOf, oneOf, not, if/then/else,
// dependentSchemas) and $ref apply several subschemas to the same value.
// Nested and shared through $defs, they multiply: ten levels of anyOf with
// two branches each check one value a thousand times, and a $ref that leads
// back to itself without descending into the value never ends.
//
// checkComposition walks every subschema reachable from the root and
// computes its fan-out: how many subschemas one value is checked against
// through these keywords alone. A cycle is an error; so is a fan-out above
// the limit. This is the compile-time half of the bound; the step budget of
// the fast engine is the run-time half.

type fanout struct {
	root    *tree
	dialect dialect
	anchors *anchorIndex
	limit   int
	done    map[*tree]int  // fan-out of finished nodes
	active  map[*tree]int  // nodes on the current path: index in stack
	stack   []string       // locations on the current path
	pending []located      // reachable subschemas still to walk
	queued  map[*tree]bool // nodes ever queued
}

type located struct {
	t   *tree
	loc string
}

func checkComposition(root *tree, d dialect, anchors *anchorIndex, limit int) error {
	f := &fanout{
		root: root, dialect: d, anchors: anchors, limit: limit,
		done: map[*tree]int{}, active: map[*tree]int{}, queued: map[*tree]bool{root: true},
		pending: []located{{root, "#"}},
	}
	for len(f.pending) > 0 {
		next := f.pending[len(f.pending)-1]
		f.pending = f.pending[:len(f.pending)-1]
		if _, err := f.width(next.t, next.loc); err != nil {
			return err
		}
	}
	return nil
}

// width returns the fan-out of t, queueing the subschemas t descends into.
func (f *fanout) width(t *tree, loc string) (int, error) {
	if w, ok := f.done[t]; ok {
		return w, nil
	}
	if at, ok := f.active[t]; ok {
		cycle := append(f.stack[at:len(f.stack):len(f.stack)], loc)
		return 0, fmt.Errorf("$ref cycle: %s (a value would be checked against it forever)", strings.Join(cycle, " → "))
	}
	if t.kind != kindObject {
		f.done[t] = 1
		return 1, nil
	}
	f.active[t] = len(f.stack)
	f.stack = append(f.stack, loc)
	w := 1
	for _, s := range f.edges(t, loc) {
		if !s.same {
			if !f.queued[s.t] {
				f.queued[s.t] = true
				f.pending = append(f.pending, located{s.t, s.loc})
			}
			continue
		}
		sw, err := f.width(s.t, s.loc)
		if err != nil {
			return 0, err
		}
		if w += sw; w > f.limit {
			return 0, fmt.Errorf("schema at %s is too complex: one value would be checked against more than %d subschemas through $ref and composition keywords", loc, f.limit)
		}
	}
	f.stack = f.stack[:len(f.stack)-1]
	delete(f.active, t)
	f.done[t] = w
	return w, nil
}

type edge struct {
	t    *tree
	loc  string
	same bool // applies to the same value, rather than to a part of it
}

// edges lists the subschemas of the schema object t.
func (f *fanout) edges(t *tree, loc string) []edge {
	var out []edge
	add := func(v *tree, l string, same bool) {
		if v != nil && (v.kind == kindObject || v.kind == kindBoolean) {
			out = append(out, edge{v, l, same})
		}
	}
	each := func(v *tree, l string, same bool) {
		if v == nil {
			return
		}
		for k, e := range v.vals {
			part := strconv.Itoa(k)
			if v.kind == kindObject {
				part = escapePointer(v.keys[k])
			}
			add(e, l+"/"+part, same)
		}
	}
	if ref := t.get("$ref"); ref != nil && ref.kind == kindString && strings.HasPrefix(ref.str, "#") {
		if target, _, err := f.anchors.resolveRef(f.root, ref.str); err == nil {
			add(target, ref.str, true)
		}
		if f.dialect == draft7 {
			return out
		}
	}
	for k, key := range t.keys {
		v := t.vals[k]
		l := loc + "/" + escapePointer(key)
		switch key {
		case "allOf", "anyOf", "oneOf":
			each(v, l, true)
		case "not", "if", "then", "else":
			add(v, l, true)
		case "dependentSchemas", "dependencies":
			each(v, l, true)
		case "properties", "patternProperties":
			each(v, l, false)
		case "prefixItems":
			each(v, l, false)
		case "items":
			if v.kind == kindArray {
				each(v, l, false)
			} else {
				add(v, l, false)
			}
		case "additionalProperties", "propertyNames", "additionalItems", "contains",
			"unevaluatedProperties", "unevaluatedItems":
			add(v, l, false)
		}
	}
	return out
}
