package jsonschema

import (
	"encoding/json"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"
)

type docArgs struct {
	Text  string   `json:"text" jsonschema:"the text to translate"`
	To    string   `json:"to,omitempty" jsonschema:"target language; default English"`
	Tags  []string `json:"tags,omitzero"`
	Limit *int     `json:"limit"`
}

type base struct {
	ID      string `json:"id"`
	Created time.Time
}

type Shared struct {
	Note string `json:"note,omitempty"`
}

type withEmbedding struct {
	base           // unexported embedded struct: fields promoted
	*Shared        // embedded pointer: fields promoted
	Named   Shared `json:"named"` // tagged: a member, not promoted
	ID      int    `json:"id"`    // shallower: hides base.ID
	//lint:ignore U1000 unexported fields are left out; that is the test
	skipped int
	Ignored string `json:"-"`
	//lint:ignore SA5008 the tag "-," names the member "-"; that is the test
	Dash  string  `json:"-,"`
	Count int64   `json:"count,string"`
	Ratio float64 `json:",omitempty"`
}

type conflictA struct{ X int }
type conflictB struct{ X string }
type conflicting struct {
	conflictA
	conflictB // X at the same depth in both: encoding/json drops it
	Y         int
}

type taggedWins struct {
	conflictA
	B struct {
		X bool `json:"X"`
	} `json:"-"`
	conflictC
}
type conflictC struct {
	Z int `json:"X"` // tagged, same depth as conflictA.X: wins
}

type treeNode struct {
	Value    int         `json:"value"`
	Children []*treeNode `json:"children,omitempty"`
}

type tree2 struct {
	Root *leaf2 `json:"root"`
}
type leaf2 struct {
	Name string `json:"name"`
	Next *leaf2 `json:"next,omitempty"`
}

type ping struct {
	Pong *pong `json:"pong,omitempty"`
}
type pong struct {
	Ping ping `json:"ping"`
}

type generic[T any] struct {
	V    T           `json:"v"`
	Next *generic[T] `json:"next,omitempty"`
}
type holder struct {
	G generic[int] `json:"g"`
}

type level uint8

func (l level) MarshalText() ([]byte, error) { return []byte("info"), nil }

type custom struct{}

func (custom) MarshalJSON() ([]byte, error) { return []byte(`[1]`), nil }

func TestFor(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  func() (*Schema, error)
		want string
	}{
		{"package doc example", func() (*Schema, error) { return For[docArgs](nil) },
			`{"type":"object","properties":{"text":{"type":"string","description":"the text to translate"},"to":{"type":"string","description":"target language; default English"},"tags":{"type":["array","null"],"items":{"type":"string"}},"limit":{"type":["integer","null"],"minimum":-9223372036854775808,"maximum":9223372036854775807}},"required":["text"],"additionalProperties":false}`},
		{"scalars", func() (*Schema, error) {
			return For[struct {
				B   bool
				I   int8
				U   uint16
				F   float32
				S   string
				Raw []byte
				Arr [2]bool
				N   json.Number
				T   time.Time
				R   json.RawMessage
				A   any
				IP  netip.Addr
				L   level
				C   custom
			}](nil)
		}, `{"type":"object","properties":{"B":{"type":"boolean"},"I":{"type":"integer","minimum":-128,"maximum":127},"U":{"type":"integer","minimum":0,"maximum":65535},"F":{"type":"number","minimum":-3.4028234663852886e+38,"maximum":3.4028234663852886e+38},"S":{"type":"string"},"Raw":{"type":["string","null"],"contentEncoding":"base64"},"Arr":{"type":"array","items":{"type":"boolean"},"minItems":2,"maxItems":2},"N":{"type":"number"},"T":{"type":"string","format":"date-time"},"R":{},"A":{},"IP":{"type":"string"},"L":{"type":"string"},"C":{}},"required":["B","I","U","F","S","Raw","Arr","N","T","R","A","IP","L","C"],"additionalProperties":false}`},
		{"maps", func() (*Schema, error) {
			return For[struct {
				M map[string]int  `json:"m"`
				I map[int]bool    `json:"i"`
				U map[uint]string `json:"u,omitempty"`
			}](nil)
		}, `{"type":"object","properties":{"m":{"type":["object","null"],"additionalProperties":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}},"i":{"type":["object","null"],"propertyNames":{"pattern":"^-?[0-9]+$"},"additionalProperties":{"type":"boolean"}},"u":{"type":["object","null"],"propertyNames":{"pattern":"^[0-9]+$"},"additionalProperties":{"type":"string"}}},"required":["m","i"],"additionalProperties":false}`},
		{"embedding and tags", func() (*Schema, error) { return For[withEmbedding](nil) },
			`{"type":"object","properties":{"Created":{"type":"string","format":"date-time"},"note":{"type":"string"},"named":{"type":"object","properties":{"note":{"type":"string"}},"additionalProperties":false},"id":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807},"-":{"type":"string"},"count":{"type":"string"},"Ratio":{"type":"number"}},"required":["Created","named","id","-","count"],"additionalProperties":false}`},
		{"conflicts hide each other", func() (*Schema, error) { return For[conflicting](nil) },
			`{"type":"object","properties":{"Y":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}},"required":["Y"],"additionalProperties":false}`},
		{"tagged field wins a conflict", func() (*Schema, error) { return For[taggedWins](nil) },
			`{"type":"object","properties":{"X":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}},"required":["X"],"additionalProperties":false}`},
		{"recursive root", func() (*Schema, error) { return For[treeNode](nil) },
			`{"type":"object","properties":{"value":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807},"children":{"type":["array","null"],"items":{"anyOf":[{"$ref":"#"},{"type":"null"}]}}},"required":["value"],"additionalProperties":false}`},
		{"recursive field", func() (*Schema, error) { return For[tree2](nil) },
			`{"type":"object","properties":{"root":{"anyOf":[{"$ref":"#/$defs/leaf2"},{"type":"null"}]}},"additionalProperties":false,"$defs":{"leaf2":{"type":"object","properties":{"name":{"type":"string"},"next":{"anyOf":[{"$ref":"#/$defs/leaf2"},{"type":"null"}]}},"required":["name"],"additionalProperties":false}}}`},
		{"mutual recursion", func() (*Schema, error) { return For[pong](nil) },
			`{"type":"object","properties":{"ping":{"type":"object","properties":{"pong":{"anyOf":[{"$ref":"#"},{"type":"null"}]}},"additionalProperties":false}},"required":["ping"],"additionalProperties":false}`},
		{"generic recursive type", func() (*Schema, error) { return For[holder](nil) },
			`{"type":"object","properties":{"g":{"$ref":"#/$defs/generic_int_"}},"required":["g"],"additionalProperties":false,"$defs":{"generic_int_":{"type":"object","properties":{"v":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807},"next":{"anyOf":[{"$ref":"#/$defs/generic_int_"},{"type":"null"}]}},"required":["v"],"additionalProperties":false}}}`},
		{"pointer root", func() (*Schema, error) { return For[*docArgs](&InferOptions{AllowAdditionalProperties: true}) },
			`{"type":"object","properties":{"text":{"type":"string","description":"the text to translate"},"to":{"type":"string","description":"target language; default English"},"tags":{"type":["array","null"],"items":{"type":"string"}},"limit":{"type":["integer","null"],"minimum":-9223372036854775808,"maximum":9223372036854775807}},"required":["text"]}`},
		{"type schemas", func() (*Schema, error) {
			return For[struct {
				When time.Time  `json:"when" jsonschema:"when it happens"`
				Lvl  *level     `json:"lvl"`
				IP   netip.Addr `json:"ip"`
			}](&InferOptions{TypeSchemas: map[reflect.Type]json.RawMessage{
				reflect.TypeFor[time.Time](): json.RawMessage(`{"type":"string","description":"RFC 3339","pattern":"^\\d{4}"}`),
				reflect.TypeFor[level]():     json.RawMessage(`{"enum":["debug","info"]}`),
			}})
		}, `{"type":"object","properties":{"when":{"type":"string","description":"when it happens","pattern":"^\\d{4}"},"lvl":{"anyOf":[{"enum":["debug","info"]},{"type":"null"}]},"ip":{"type":"string"}},"required":["when","ip"],"additionalProperties":false}`},
		{"descriptions are escaped", func() (*Schema, error) {
			return For[struct {
				A string `json:"a" jsonschema:"say \"hi\" <b>, then\tgo"`
			}](nil)
		}, `{"type":"object","properties":{"a":{"type":"string","description":"say \"hi\" <b>, then\tgo"}},"required":["a"],"additionalProperties":false}`},
		{"safe integers", func() (*Schema, error) {
			return For[struct {
				I   int64   `json:"i"`
				U   uint64  `json:"u"`
				P   uintptr `json:"p"`
				I32 int32   `json:"i32"`
				U32 uint32  `json:"u32"`
				F   float64 `json:"f"`
			}](&InferOptions{SafeIntegers: true})
		}, `{"type":"object","properties":{"i":{"type":"integer","minimum":-9007199254740991,"maximum":9007199254740991},"u":{"type":"integer","minimum":0,"maximum":9007199254740991},"p":{"type":"integer","minimum":0,"maximum":9007199254740991},"i32":{"type":"integer","minimum":-2147483648,"maximum":2147483647},"u32":{"type":"integer","minimum":0,"maximum":4294967295},"f":{"type":"number"}},"required":["i","u","p","i32","u32","f"],"additionalProperties":false}`},
		{"slice root", func() (*Schema, error) { return For[[]treeNode](nil) },
			`{"type":["array","null"],"items":{"$ref":"#/$defs/treeNode"},"$defs":{"treeNode":{"type":"object","properties":{"value":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807},"children":{"type":["array","null"],"items":{"anyOf":[{"$ref":"#/$defs/treeNode"},{"type":"null"}]}}},"required":["value"],"additionalProperties":false}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := tc.got()
			if err != nil {
				t.Fatal(err)
			}
			if got := string(s.JSON()); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			if s.fast == nil {
				t.Error("inferred schemas should use the fast engine")
			}
			if again, _ := tc.got(); string(again.JSON()) != string(s.JSON()) {
				t.Error("inference is not deterministic")
			}
		})
	}
}

func TestForErrorsNameTheField(t *testing.T) {
	type item struct {
		Fn func() `json:"fn"`
	}
	for _, tc := range []struct {
		got  func() (*Schema, error)
		want string
	}{
		{func() (*Schema, error) {
			return For[struct {
				C chan int `json:"c"`
			}](nil)
		}, "jsonschema: struct { C chan int \"json:\\\"c\\\"\" }.C: cannot express Go type chan int in JSON Schema"},
		{func() (*Schema, error) {
			return For[struct{ Items []item }](nil)
		}, "Items[].Fn: cannot express Go type func() in JSON Schema"},
		{func() (*Schema, error) { return For[map[string]complex128](nil) }, "map[string]complex128[key]: cannot express Go type complex128"},
		{func() (*Schema, error) { return For[map[[2]int]string](nil) }, "map key type [2]int cannot be a JSON member name"},
		{func() (*Schema, error) { return For[int](nil) }, ""},
		{func() (*Schema, error) {
			return For[struct {
				Skip func() `json:"-"`
				ok   chan int
			}](nil)
		}, ""},
	} {
		_, err := tc.got()
		if tc.want == "" {
			if err != nil {
				t.Errorf("unexpected error %v", err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error = %v, want it to contain %q", err, tc.want)
		}
	}
}

// What encoding/json writes for a type must validate against the schema
// inferred for it: zero values and full ones.
func TestInferredSchemaAcceptsWhatGoWrites(t *testing.T) {
	n := 3
	values := []any{
		docArgs{}, docArgs{Text: "a", To: "fr", Tags: []string{"x"}, Limit: &n},
		withEmbedding{}, withEmbedding{Shared: &Shared{Note: "n"}, Count: 7, Ratio: 0.5},
		treeNode{}, treeNode{Value: 1, Children: []*treeNode{{Value: 2}, nil, {Children: []*treeNode{{}}}}},
		tree2{}, tree2{Root: &leaf2{Name: "a", Next: &leaf2{Name: "b"}}},
		pong{}, pong{Ping: ping{Pong: &pong{}}},
		holder{G: generic[int]{V: 1, Next: &generic[int]{V: 2}}},
		struct {
			Raw []byte
			Arr [2]bool
			M   map[int]uint
			T   time.Time
			IP  netip.Addr
			R   json.RawMessage
		}{Raw: []byte("hi"), M: map[int]uint{-1: 2}, R: json.RawMessage(`{"x":[1]}`)},
	}
	for _, v := range values {
		s, err := forType(reflect.TypeOf(v), nil)
		if err != nil {
			t.Fatal(err)
		}
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(data); err != nil {
			t.Errorf("%T: %s: %v", v, data, err)
		}
	}
}

func TestInferredSchemaRejects(t *testing.T) {
	s, err := For[docArgs](nil)
	if err != nil {
		t.Fatal(err)
	}
	got := errString(s.Validate(json.RawMessage(`{"txt":"hello","limit":"3"}`)))
	want := `instance: unexpected property "txt" (allowed: "text", "to", "tags", "limit"); instance/limit: expected integer or null, got string "3"; instance: missing required property "text"`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

type list []list

type dict map[string]*dict

func TestForRecursiveNonStructTypes(t *testing.T) {
	s, err := For[struct {
		L list `json:"l"`
		D dict `json:"d"`
	}](nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{"l":{"$ref":"#/$defs/list"},"d":{"$ref":"#/$defs/dict"}},"required":["l","d"],"additionalProperties":false,"$defs":{"list":{"type":["array","null"],"items":{"$ref":"#/$defs/list"}},"dict":{"type":["object","null"],"additionalProperties":{"anyOf":[{"$ref":"#/$defs/dict"},{"type":"null"}]}}}}`
	if got := string(s.JSON()); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if err := s.Validate(json.RawMessage(`{"l":[[],[[]],null],"d":{"a":{"b":null}}}`)); err != nil {
		t.Error(err)
	}
}
