package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// TestCloneSharesNothing: a Clone equals its original and shares no
// pointer, map or slice with it, even when every field, down to the
// last, is set. The values are filled by reflection, so a field added to
// one of these types without its Clone copying it fails here (a field of
// a kind fill does not know fails too: teach fill, then Clone).
func TestCloneSharesNothing(t *testing.T) {
	for _, tc := range []struct {
		name  string
		orig  any
		clone func(orig any) any
	}{
		{"ClientCapabilities", new(ClientCapabilities), func(v any) any { c := v.(*ClientCapabilities).Clone(); return &c }},
		{"Implementation", new(Implementation), func(v any) any { c := v.(*Implementation).Clone(); return &c }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			fill(t, reflect.ValueOf(tc.orig).Elem(), tc.name, &n)
			clone := tc.clone(tc.orig)
			if !reflect.DeepEqual(clone, tc.orig) {
				t.Fatalf("the clone differs from the original:\n%+v\n%+v", clone, tc.orig)
			}
			shared(t, reflect.ValueOf(clone).Elem(), reflect.ValueOf(tc.orig).Elem(), tc.name)
		})
	}
}

// TestCloneKeepsNilAndEmpty: a nil map or slice stays nil and an empty
// one empty (reflect.DeepEqual, with which a server compares the states
// of its clients, tells them apart).
func TestCloneKeepsNilAndEmpty(t *testing.T) {
	var zc ClientCapabilities
	if c := zc.Clone(); !reflect.DeepEqual(c, zc) {
		t.Errorf("the clone of the zero capabilities is %+v", c)
	}
	ec := ClientCapabilities{Experimental: map[string]json.RawMessage{"x": {}}, Extensions: map[string]json.RawMessage{}}
	if c := ec.Clone(); !reflect.DeepEqual(c, ec) || c.Experimental["x"] == nil {
		t.Errorf("the clone of %+v is %+v", ec, c)
	}
	var zi Implementation
	if c := zi.Clone(); !reflect.DeepEqual(c, zi) {
		t.Errorf("the clone of the zero implementation is %+v", c)
	}
	ei := Implementation{Icons: []Icon{{Sizes: []string{}}}}
	if c := ei.Clone(); !reflect.DeepEqual(c, ei) {
		t.Errorf("the clone of %+v is %+v", ei, c)
	}
	ei.Icons = []Icon{}
	if c := ei.Clone(); !reflect.DeepEqual(c, ei) {
		t.Errorf("the clone of %+v is %+v", ei, c)
	}
}

// fill sets v, which is settable, and everything it holds to distinct
// non-zero values: every pointer set, two entries in every slice and map.
func fill(t *testing.T, v reflect.Value, path string, n *int) {
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprint("s", *n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(*n))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(*n))
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(t, p.Elem(), path, n)
		v.Set(p)
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				t.Fatalf("%s.%s: an unexported field; teach fill and shared about it", path, f.Name)
			}
			fill(t, v.Field(i), path+"."+f.Name, n)
		}
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fill(t, s.Index(i), fmt.Sprintf("%s[%d]", path, i), n)
		}
		v.Set(s)
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			t.Fatalf("%s: a map whose keys are not strings; teach fill about it", path)
		}
		m := reflect.MakeMap(v.Type())
		for i := range 2 {
			e := reflect.New(v.Type().Elem()).Elem()
			fill(t, e, fmt.Sprintf("%s[%d]", path, i), n)
			m.SetMapIndex(reflect.ValueOf(fmt.Sprint("k", *n, i)).Convert(v.Type().Key()), e)
		}
		v.Set(m)
	default:
		t.Fatalf("%s: a field of kind %s; teach fill and shared about it", path, v.Kind())
	}
}

// shared fails the test for each pointer, map or slice of a that is b's
// too. Pointers to values of no size are not compared: they hold nothing
// to change, and Go may give them all one address.
func shared(t *testing.T, a, b reflect.Value, path string) {
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return
		}
		if a.Pointer() == b.Pointer() && a.Type().Elem().Size() > 0 {
			t.Errorf("%s: the clone shares the original's pointer", path)
		}
		shared(t, a.Elem(), b.Elem(), path)
	case reflect.Struct:
		for i := range a.NumField() {
			shared(t, a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name)
		}
	case reflect.Slice:
		if a.Len() > 0 && b.Len() > 0 && a.Pointer() == b.Pointer() {
			t.Errorf("%s: the clone shares the original's slice", path)
		}
		for i := range min(a.Len(), b.Len()) {
			shared(t, a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.Map:
		if a.IsNil() || b.IsNil() {
			return
		}
		if a.Pointer() == b.Pointer() {
			t.Errorf("%s: the clone shares the original's map", path)
		}
		for it := a.MapRange(); it.Next(); {
			if bv := b.MapIndex(it.Key()); bv.IsValid() {
				shared(t, it.Value(), bv, fmt.Sprintf("%s[%v]", path, it.Key()))
			}
		}
	}
}
