package jsonschema

import (
	"reflect"
	"testing"
)

func TestEachMember(t *testing.T) {
	type kv struct {
		k, v    string
		escaped bool
	}
	for _, c := range []struct {
		in     string
		object bool
		want   []kv
	}{
		{`{}`, true, nil},
		{` { "a" : 1 , "b\"c" : {"x":[1,"}"]} ,"":null } `, true, []kv{{"a", "1", false}, {`b\"c`, `{"x":[1,"}"]}`, true}, {"", "null", false}}},
		{`[1]`, false, nil},
		{`"s"`, false, nil},
		{``, false, nil},
	} {
		var got []kv
		ok := EachMember([]byte(c.in), func(key []byte, escaped bool, value []byte) bool {
			got = append(got, kv{string(key), string(value), escaped})
			return true
		})
		if ok != c.object || !reflect.DeepEqual(got, c.want) {
			t.Errorf("EachMember(%s) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.object)
		}
	}
	n := 0
	EachMember([]byte(`{"a":1,"b":2}`), func([]byte, bool, []byte) bool { n++; return false })
	if n != 1 {
		t.Errorf("EachMember went on after fn returned false: %d calls", n)
	}
}
