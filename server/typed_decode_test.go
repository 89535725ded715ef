package server

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

type flatArgs struct {
	Text  string  `json:"text"`
	N     int8    `json:"n,omitempty"`
	U     uint16  `json:"u"`
	F     float32 `json:"f"`
	B     bool    `json:"b"`
	Plain string
}

// TestFlatDecoderMatchesEncodingJSON checks that the fast decoder of typed
// tool arguments gives what encoding/json gives, or declines.
func TestFlatDecoderMatchesEncodingJSON(t *testing.T) {
	d := newFlatDecoder(reflect.TypeFor[flatArgs]())
	if d == nil {
		t.Fatal("flatArgs should be decodable without encoding/json")
	}
	for _, c := range []struct {
		in   string
		fast bool // the fast decoder takes it
	}{
		{`{"text":"hi","n":-3,"u":7,"f":1.5,"b":true,"Plain":"p"}`, true},
		{` { "text" : "a\"b\\u00e9\n" , "b" : false } `, true},
		{`{"text":null,"n":null}`, true},
		{`{"other":{"x":[1,2,{"y":"}"}]},"text":"t"}`, true},
		{`{}`, true},
		{`{"TEXT":"case"}`, false}, // encoding/json matches it case-insensitively
		{`{"plain":"p"}`, false},   // likewise
		{`{"te\u0078t":"escaped key"}`, false},
		{`{"n":300}`, false}, // overflows int8: encoding/json's error
		{`{"n":1.5}`, false},
		{`{"n":1e2}`, false},
		{`{"u":-1}`, false},
		{`{"f":1e40}`, false}, // overflows float32
		{`{"text":5}`, false},
		{`{"b":"true"}`, false},
		{`[]`, false},
		{`null`, false},
	} {
		var fast flatArgs
		took := d.decode([]byte(c.in), reflect.ValueOf(&fast).Elem())
		if took != c.fast {
			t.Errorf("decode(%s) took it: %v, want %v", c.in, took, c.fast)
		}
		if !took {
			continue
		}
		var want flatArgs
		if err := json.Unmarshal([]byte(c.in), &want); err != nil {
			t.Errorf("decode(%s) took what encoding/json refuses: %v", c.in, err)
		} else if fast != want {
			t.Errorf("decode(%s) = %+v, encoding/json: %+v", c.in, fast, want)
		}
	}
}

type withTime struct {
	At time.Time `json:"at"`
}

type withNested struct {
	Inner struct{ X int } `json:"inner"`
}

type withSkipped struct {
	A string `json:"-"`
}

type withStringOpt struct {
	N int `json:"n,string"`
}

type withFold struct {
	A string `json:"a"`
	B string `json:"A"`
}

// TestFlatDecoderDeclinesTypes checks which argument types keep
// encoding/json.
func TestFlatDecoderDeclinesTypes(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[withTime](), reflect.TypeFor[withNested](), reflect.TypeFor[withSkipped](),
		reflect.TypeFor[withStringOpt](), reflect.TypeFor[withFold](), reflect.TypeFor[map[string]any](),
		reflect.TypeFor[time.Time](),
	} {
		if newFlatDecoder(typ) != nil {
			t.Errorf("newFlatDecoder(%v) is not nil", typ)
		}
	}
	if newFlatDecoder(reflect.TypeFor[struct{}]()) == nil {
		t.Error("newFlatDecoder(struct{}) is nil")
	}
}

// FuzzFlatDecoder checks that whatever the fast decoder takes, it decodes
// as encoding/json does.
func FuzzFlatDecoder(f *testing.F) {
	for _, s := range []string{
		`{"text":"hi","n":-3,"u":7,"f":1.5,"b":true,"Plain":"p"}`,
		`{"text":"a\"b\\u00e9\n","b":false}`, `{"TEXT":"x"}`, `{"n":300}`, `{"f":1e40}`,
		`{"text":"\ud83d\ude00"}`, `{"text":"\udc00"}`, `{"u":18446744073709551615}`,
	} {
		f.Add([]byte(s))
	}
	d := newFlatDecoder(reflect.TypeFor[flatArgs]())
	f.Fuzz(func(t *testing.T, in []byte) {
		if !json.Valid(in) {
			return // the strict decoder has refused it long before
		}
		var fast flatArgs
		if !d.decode(in, reflect.ValueOf(&fast).Elem()) {
			return
		}
		var want flatArgs
		if err := json.Unmarshal(in, &want); err != nil {
			t.Fatalf("decode(%s) took what encoding/json refuses: %v", in, err)
		}
		if fast != want {
			t.Fatalf("decode(%s) = %+v, encoding/json: %+v", in, fast, want)
		}
	})
}
