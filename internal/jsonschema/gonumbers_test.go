package jsonschema

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

type numEmbedded struct {
	Deep int8 `json:"deep"`
}

type numLevel int

func (l *numLevel) UnmarshalJSON(b []byte) error { *l = numLevel(len(b)); return nil }

type numCases struct {
	numEmbedded
	I      int8               `json:"i"`
	U      uint64             `json:"u"`
	Q      int16              `json:"q,string"`
	Lvl    numLevel           `json:"lvl"`
	When   time.Time          `json:"when"`
	Any    any                `json:"any"`
	Num    json.Number        `json:"num"`
	Raw    json.RawMessage    `json:"raw"`
	F      float32            `json:"f"`
	D      float64            `json:"d"`
	S      []int32            `json:"s"`
	A      [2]uint8           `json:"a"`
	M      map[string]*uint16 `json:"m"`
	Next   *numCases          `json:"next"`
	Lower  int8               `json:"lower"`
	Folded int8               `json:"LOWER"` // a key matching neither exactly goes to the first
	Bytes  []byte             `json:"bytes"`
}

// TestNumbersNormalize checks which numbers Normalize rewrites, and into
// what, and which it reports.
func TestNumbersNormalize(t *testing.T) {
	p := NumbersOf(reflect.TypeFor[numCases]())
	if p == nil {
		t.Fatal("NumbersOf(numCases) is nil")
	}
	for _, c := range []struct {
		in, want string // want "" means unchanged
		errs     string // the violations, as Message("args") words them
	}{
		{in: `{"i":1,"u":18446744073709551615,"s":[1,-2],"deep":-128}`},
		{in: `{"i":1.0,"u":1.8446744073709551615e19,"s":[1e0,-2.0E+0],"deep":-1.28e2}`,
			want: `{"i":1,"u":18446744073709551615,"s":[1,-2],"deep":-128}`},
		{in: ` { "a" : [ 2.55e2 , 0.0 ] , "m" : { "x" : 6.5535e4 , "y" : null } } `,
			want: ` { "a" : [ 255 , 0 ] , "m" : { "x" : 65535 , "y" : null } } `},
		{in: `{"next":{"next":{"i":-0.0,"u":1e1}}}`, want: `{"next":{"next":{"i":0,"u":10}}}`},
		// Keys as encoding/json matches them: escaped, or equal but for case.
		{in: `{"\u0069":1e1,"I":2.0,"DEEP":3e0,"lOwEr":4.0}`, want: `{"\u0069":10,"I":2,"DEEP":3,"lOwEr":4}`},
		// Numbers that go to no Go integer stay as they are.
		{in: `{"q":"1.0","lvl":1.0,"any":1.0,"num":1e1,"raw":[1.0],"f":1e1,"d":2.5,"bytes":"AQ==","other":1.0}`},
		{in: `{"s":"x","m":[1.0],"i":"1.0","next":7}`},
		{in: `{"i":128}`, errs: `args/i: 128 is greater than the maximum 127 (Go int8)`},
		{in: `{"i":-1.29e2}`, errs: `args/i: -1.29e2 is less than the minimum -128 (Go int8)`},
		{in: `{"u":-1}`, errs: `args/u: -1 is less than the minimum 0 (Go uint64)`},
		{in: `{"u":1.8446744073709551616e19}`, errs: `args/u: 1.8446744073709551616e19 is greater than the maximum 18446744073709551615 (Go uint64)`},
		{in: `{"u":1e999999999999}`, errs: `args/u: 1e999999999999 is greater than the maximum 18446744073709551615 (Go uint64)`},
		{in: `{"s":[1,2.5],"m":{"a/b~":-1}}`, errs: `args/s/1: 2.5 is not an integer (Go int32); args/m/a~1b~0: -1 is less than the minimum 0 (Go uint16)`},
		{in: `{"i":1e-999999999}`, errs: `args/i: 1e-999999999 is not an integer (Go int8)`},
		{in: `{"f":3.5e38,"d":-1e309}`, errs: `args/f: 3.5e38 is greater than the maximum 3.4028234663852886e+38 (Go float32); args/d: -1e309 is less than the minimum -1.7976931348623157e+308 (Go float64)`},
		{in: `{"i":1` + strings.Repeat("0", 100) + `}`, errs: `args/i: 1000000000000000000000000000000000000000… is greater than the maximum 127 (Go int8)`},
	} {
		out, changed, err := p.Normalize([]byte(c.in))
		if c.errs != "" {
			var verr *ValidationError
			if !errors.As(err, &verr) || verr.Message("args") != c.errs {
				t.Errorf("Normalize(%s): error %v, want %s", c.in, err, c.errs)
			}
			continue
		}
		if err != nil {
			t.Errorf("Normalize(%s): %v", c.in, err)
			continue
		}
		want := c.want
		if want == "" {
			want = c.in
		}
		if changed != (c.want != "") || string(out) != want {
			t.Errorf("Normalize(%s) = %s (changed %v), want %s", c.in, out, changed, want)
		}
		var v numCases
		if err := json.Unmarshal(out, &v); err != nil && c.want != "" {
			t.Errorf("Normalize(%s) = %s, which encoding/json refuses: %v", c.in, out, err)
		}
	}
}

func TestNumbersOfTypesWithoutNumbers(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[struct{ S string }](), reflect.TypeFor[map[string]any](),
		reflect.TypeFor[struct {
			L numLevel
			T time.Time
			N json.Number
			Q int `json:",string"`
		}](),
	} {
		if NumbersOf(typ) != nil {
			t.Errorf("NumbersOf(%v) is not nil", typ)
		}
	}
	var p *Numbers
	if out, changed, err := p.Normalize([]byte(`{"i":1.0}`)); string(out) != `{"i":1.0}` || changed || err != nil {
		t.Errorf("a nil *Numbers changed %s", out)
	}
}

// FuzzNumbersNormalize checks Normalize against encoding/json: it reports
// only what encoding/json refuses, changes nothing encoding/json takes,
// and what it gives encoding/json takes as far as numbers go.
func FuzzNumbersNormalize(f *testing.F) {
	for _, s := range []string{
		`{"i":1.0,"u":1.8446744073709551615e19,"s":[1e0,-2.0E+0],"deep":-1.28e2}`,
		`{"a":[2.55e2,0.0],"m":{"x":6.5535e4}}`, `{"next":{"next":{"i":-0.0}}}`, `{"\u0069":1e1,"I":2.0}`,
		`{"i":128}`, `{"u":-1}`, `{"f":3.5e38,"d":-1e309}`, `{"s":[1,2.5]}`, `{"q":"1.0","lvl":1.0}`,
	} {
		f.Add([]byte(s))
	}
	p := NumbersOf(reflect.TypeFor[numCases]())
	f.Fuzz(func(t *testing.T, in []byte) {
		if !json.Valid(in) {
			return
		}
		var before numCases
		plainErr := json.Unmarshal(in, &before)
		out, changed, err := p.Normalize(in)
		if err != nil {
			if plainErr == nil {
				t.Fatalf("Normalize(%s) reports %v, yet encoding/json takes it", in, err)
			}
			return
		}
		if plainErr == nil && changed {
			t.Fatalf("Normalize(%s) = %s: changed what encoding/json takes", in, out)
		}
		if !json.Valid(out) {
			t.Fatalf("Normalize(%s) = %s: not JSON", in, out)
		}
		var after numCases
		var te *json.UnmarshalTypeError
		// (A ",string" field holds a string: JSON Schema's integers are
		// not its business.)
		if err := json.Unmarshal(out, &after); errors.As(err, &te) && strings.HasPrefix(te.Value, "number ") && te.Field != "q" {
			switch te.Type.Kind() {
			case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
				reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
				t.Fatalf("Normalize(%s) = %s, whose number encoding/json refuses: %v", in, out, err)
			}
		}
	})
}

// TestNumbersNormalizeGrowthIsBounded: what Normalize writes grows with
// the numbers it rewrites, at most to the 20 digits of a uint64 each,
// never with an exponent: 2e19 and 1e999999999 are beyond every Go
// integer, so they are reported, not written out.
func TestNumbersNormalizeGrowthIsBounded(t *testing.T) {
	p := NumbersOf(reflect.TypeFor[struct{ U []uint64 }]())
	const n = 1 << 16
	in := []byte(`{"U":[` + strings.Repeat(`1e18,`, n-1) + `1e18]}`)
	out, changed, err := p.Normalize(in)
	if err != nil || !changed {
		t.Fatalf("Normalize: %v (changed %v)", err, changed)
	}
	if len(out) > 4*len(in) {
		t.Errorf("%d bytes of 1e18 became %d", len(in), len(out))
	}
	in = []byte(`{"U":[` + strings.Repeat(`1e999999999,`, n-1) + `2e19]}`)
	out, _, err = p.Normalize(in)
	var verr *ValidationError
	if !errors.As(err, &verr) || len(verr.Violations) != maxViolations || verr.Omitted != n-maxViolations || len(out) != len(in) {
		t.Errorf("numbers beyond uint64: %d violations, %d omitted, %v", len(verr.Violations), verr.Omitted, err)
	}
}
