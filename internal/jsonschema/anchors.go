package jsonschema

import (
	"fmt"
	"maps"
	"net/url"
	"strconv"
	"strings"
)

// Anchors are plain-name fragments: "$ref": "#address" names the subschema
// that declares "$anchor": "address" (2020-12) or "$id": "#address"
// (draft-07). The fast engine resolves them as the full engine does:
//
//   - Before it compiles anything, the full engine collects anchors from
//     every place a subschema may be (subschemaPlaces), whether or not a
//     reference leads there, and a name declared twice is an error. A
//     declaration anywhere else, in an "enum" value or an unknown keyword,
//     declares nothing.
//   - A reference by JSON pointer may lead outside those places ("#/x"):
//     the full engine then collects the anchors below the target too, as
//     it compiles, so whether a name resolves can depend on the order in
//     which it compiles. When a reference in the document leads to such an
//     anchor, the fast engine declines the schema if it follows that
//     reference or one to a name it does not know.
//   - An anchor's name is checked by the meta-schema (2020-12 allows
//     ^[A-Za-z_][-A-Za-z0-9._]*$), where the meta-schema reaches.
//
// "$dynamicAnchor", and "$id" below the root (but for draft-07's "#name"),
// start resources and scopes the fast engine does not implement:
// declaresIdentifiers finds them, and the schema needs the full engine.

// declaresIdentifiers finds a "$dynamicAnchor", or an "$id" below the
// root, anywhere in a document of dialect d; draft-07 ids that are only a
// fragment ("#name") do not count, since they declare anchors. The full
// engine collects identifiers wherever a subschema may be, whether or not
// a reference leads there, and rejects duplicates; without it, they need
// it. The search looks at every object, inside "enum" values too: being
// wrong only asks for the full engine where it was not needed.
func declaresIdentifiers(root, t *tree, d dialect) *declined {
	if t.kind != kindObject && t.kind != kindArray {
		return nil
	}
	for i, key := range t.keys {
		v := t.vals[i]
		if v.kind != kindString {
			continue
		}
		switch {
		case key == "$dynamicAnchor":
			return &declined{keyword: key}
		case key == "$id" && t != root && !(d == draft7 && fragmentOnly(v.str)):
			return &declined{keyword: key, detail: "below the root"}
		}
	}
	for _, v := range t.vals {
		if dec := declaresIdentifiers(root, v, d); dec != nil {
			return dec
		}
	}
	return nil
}

// fragmentOnly reports whether an "$id" names no resource of its own: it
// is only a fragment, or empty.
func fragmentOnly(id string) bool {
	before, _, _ := strings.Cut(id, "#")
	return before == ""
}

// Where the full engine looks for subschemas, in every draft up to the
// document's (so "definitions", "dependencies" and "additionalItems" in
// 2020-12 too): the keyword's value, each member of its object value, or
// each element of its array value.
const (
	placeValue uint8 = 1 << iota
	placeMembers
	placeElements
)

var subschemaPlaces = func() (p [2]map[string]uint8) {
	p[draft7] = map[string]uint8{
		"definitions": placeMembers, "not": placeValue, "allOf": placeElements, "anyOf": placeElements,
		"oneOf": placeElements, "properties": placeMembers, "additionalProperties": placeValue,
		"patternProperties": placeMembers, "items": placeValue | placeElements, "additionalItems": placeValue,
		"dependencies": placeMembers, "propertyNames": placeValue, "contains": placeValue,
		"if": placeValue, "then": placeValue, "else": placeValue,
	}
	p[draft2020] = maps.Clone(p[draft7])
	maps.Copy(p[draft2020], map[string]uint8{
		"$defs": placeMembers, "dependentSchemas": placeMembers, "unevaluatedProperties": placeValue,
		"unevaluatedItems": placeValue, "contentSchema": placeValue, "prefixItems": placeElements,
	})
	return p
}()

// eachSubschema calls f with the subschemas of the schema object t, by
// the full engine's places, and their locations.
func eachSubschema(t *tree, d dialect, loc string, f func(sub *tree, loc string) error) error {
	for i, key := range t.keys {
		how := subschemaPlaces[d][key]
		if how == 0 {
			continue
		}
		v, at := t.vals[i], loc+"/"+escapePointer(key)
		if how&placeValue != 0 {
			if err := f(v, at); err != nil {
				return err
			}
		}
		if (how&placeMembers != 0 && v.kind == kindObject) || (how&placeElements != 0 && v.kind == kindArray) {
			for k, e := range v.vals {
				part := strconv.Itoa(k)
				if v.kind == kindObject {
					part = escapePointer(v.keys[k])
				}
				if err := f(e, at+"/"+part); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// declaredAnchor returns the anchor the object t declares, if any.
func declaredAnchor(t *tree, d dialect) (name string, ok bool, err error) {
	if d == draft2020 {
		if v := t.get("$anchor"); v != nil && v.kind == kindString {
			return v.str, true, nil
		}
		return "", false, nil
	}
	// Draft-07: "$id": "#name", unless a "$ref" hides it.
	v := t.get("$id")
	if v == nil || v.kind != kindString || t.get("$ref") != nil {
		return "", false, nil
	}
	_, frag, found := strings.Cut(v.str, "#")
	if !found {
		return "", false, nil
	}
	name, err = url.PathUnescape(frag)
	if err != nil {
		return "", false, fmt.Errorf("$id %q: bad escape in fragment", v.str)
	}
	if name == "" || name[0] == '/' {
		return "", false, nil // a JSON pointer
	}
	return name, true, nil
}

// An anchorIndex holds the anchors of a document: nil if it declares none.
type anchorIndex struct {
	dialect dialect
	names   map[string]*tree
	at      map[string]string // where each anchor is, for messages
	// walked holds the places the full engine collects anchors from.
	walked map[*tree]bool
	// outside says that some declaration is elsewhere, and that a
	// reference by JSON pointer leads to it.
	outside bool
}

// indexAnchors collects the anchors of the document root, which
// declaresIdentifiers has accepted. A name declared twice is an error.
func indexAnchors(root *tree, d dialect) (*anchorIndex, error) {
	total := countAnchors(root, d)
	if total == 0 {
		return nil, nil
	}
	a := &anchorIndex{dialect: d, names: map[string]*tree{}, at: map[string]string{}, walked: map[*tree]bool{}}
	var walk func(t *tree, loc string) error
	walk = func(t *tree, loc string) error {
		a.walked[t] = true
		if t.kind != kindObject {
			return nil
		}
		name, ok, err := declaredAnchor(t, d)
		if err != nil {
			return fmt.Errorf("schema at %s: %v", loc, err)
		}
		if ok {
			if _, dup := a.names[name]; dup {
				return fmt.Errorf("anchor %q is declared twice: at %s and at %s", name, a.at[name], loc)
			}
			a.names[name], a.at[name] = t, loc
		}
		return eachSubschema(t, d, loc, walk)
	}
	if err := walk(root, "#"); err != nil {
		return nil, err
	}
	a.outside = total > len(a.names) && a.refersOutside(root, root)
	return a, nil
}

// refersOutside reports whether a reference by JSON pointer, anywhere in
// t, leads outside the walked places to a value that declares an anchor
// (declaresBelow): the full engine would collect it as it compiles.
func (a *anchorIndex) refersOutside(root, t *tree) bool {
	if ref := t.get("$ref"); ref != nil && ref.kind == kindString && strings.HasPrefix(ref.str, "#") {
		if target, err := root.resolvePointer(ref.str); err == nil && a.declaresBelow(target) {
			return true
		}
	}
	for _, v := range t.vals {
		if a.refersOutside(root, v) {
			return true
		}
	}
	return false
}

// countAnchors counts the anchor declarations anywhere in t, in
// subschemas or not.
func countAnchors(t *tree, d dialect) int {
	n := 0
	if t.kind == kindObject {
		if _, ok, err := declaredAnchor(t, d); ok || err != nil {
			n++
		}
	}
	for _, v := range t.vals {
		n += countAnchors(v, d)
	}
	return n
}

// resolveRef finds the value a local reference ("#", "#/...", "#name")
// names; anchored says it names an anchor. a may be nil.
func (a *anchorIndex) resolveRef(root *tree, ref string) (target *tree, anchored bool, err error) {
	target, err = root.resolvePointer(ref)
	if err != errAnchorRef {
		return target, false, err
	}
	name, _ := url.PathUnescape(ref[1:]) // resolvePointer has unescaped it
	if a != nil {
		if t := a.names[name]; t != nil {
			return t, true, nil
		}
		if a.outside {
			// It may be declared where the full engine collects anchors
			// as it compiles.
			return nil, true, &declined{keyword: "$ref", detail: strconv.Quote(ref) + " (a reference to an anchor declared outside the schema's subschemas)", ref: ref}
		}
	}
	return nil, true, fmt.Errorf("$ref %q: no subschema declares the anchor %q", ref, name)
}

// checkTarget declines a reference that leads outside the places anchors
// are collected from, to a value that declares one there.
func (a *anchorIndex) checkTarget(target *tree, ref string) error {
	if a == nil || !a.outside || a.walked[target] || !a.declaresBelow(target) {
		return nil
	}
	return &declined{keyword: "$ref", detail: strconv.Quote(ref) + " (a reference to a location outside the schema's subschemas that declares an anchor)", ref: ref}
}

// declaresBelow reports whether t, or a subschema of it by the full
// engine's places, declares an anchor outside the walked places.
func (a *anchorIndex) declaresBelow(t *tree) bool {
	if a.walked[t] || t.kind != kindObject {
		return false
	}
	if _, ok, err := declaredAnchor(t, a.dialect); ok || err != nil {
		return true
	}
	found := eachSubschema(t, a.dialect, "", func(sub *tree, _ string) error {
		if a.declaresBelow(sub) {
			return errAnchorRef // any error stops the walk
		}
		return nil
	})
	return found != nil
}
