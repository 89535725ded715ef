package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

type numArgs struct {
	I   int               `json:"i,omitempty"`
	I8  int8              `json:"i8,omitempty"`
	I16 int16             `json:"i16,omitempty"`
	I32 int32             `json:"i32,omitempty"`
	I64 int64             `json:"i64,omitempty"`
	U   uint              `json:"u,omitempty"`
	U8  uint8             `json:"u8,omitempty"`
	U16 uint16            `json:"u16,omitempty"`
	U32 uint32            `json:"u32,omitempty"`
	U64 uint64            `json:"u64,omitempty"`
	F32 float32           `json:"f32,omitempty"`
	P   *int              `json:"p,omitempty"`
	S   []int16           `json:"s,omitempty"`
	M   map[string]uint8  `json:"m,omitempty"`
	N   *numInner         `json:"n,omitempty"`
	A   [2]int64          `json:"a,omitzero"`
	Q   int64             `json:"q,omitempty,string"`
	Any any               `json:"any,omitempty"`
	Raw json.RawMessage   `json:"raw,omitempty"`
	Num json.Number       `json:"num,omitempty"`
	MM  map[string][]*int `json:"mm,omitempty"`
}

type numInner struct {
	X int32 `json:"x"`
}

// numCall is a call of a typed tool with numeric arguments and what it
// must give: the decoded arguments (as JSON) or an error result whose
// text holds every string of errs.
type numCall struct {
	args string
	want string   // the arguments as the handler got them, re-encoded
	errs []string // the call is an error result naming these
}

func runNumCalls(t *testing.T, tool string, calls []numCall) {
	t.Helper()
	s := server.New(mcp.Implementation{Name: "test", Version: "1"}, nil)
	handler := func(ctx context.Context, r *server.Request, in numArgs) (string, error) {
		b, err := json.Marshal(in)
		return string(b), err
	}
	var err error
	switch tool {
	case "inferred":
		err = server.AddTool(s, &mcp.Tool{Name: tool}, handler)
	case "given":
		// A schema given by hand, with no bounds: the decoding alone must
		// check the range of each Go type.
		err = server.AddTool(s, &mcp.Tool{Name: tool, InputSchema: json.RawMessage(`{"type":"object"}`)}, handler)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []mcp.Version{mcp.LatestLegacy, mcp.Latest} {
		cs := connect(t, s, &client.Options{Version: v})
		for _, c := range calls {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(c.args)})
			if err != nil {
				t.Errorf("%s %s: a protocol error, not a tool result: %v", tool, c.args, err)
				continue
			}
			text := res.Content[0].(*mcp.TextContent).Text
			if c.errs == nil {
				if res.IsError || text != c.want {
					t.Errorf("%s %s: got %q (isError %v), want %s", tool, c.args, text, res.IsError, c.want)
				}
				continue
			}
			if !res.IsError {
				t.Errorf("%s %s: succeeded with %s, want an error naming %q", tool, c.args, text, c.errs)
				continue
			}
			for _, e := range c.errs {
				if !strings.Contains(text, e) {
					t.Errorf("%s %s: error %q does not name %q", tool, c.args, text, e)
				}
			}
		}
	}
}

// TestTypedToolIntegerArguments: a typed tool's Go integer arguments
// took only integers written without a fraction or an exponent, and were
// bounded by nothing but encoding/json. 1.0 and 1e1, integers by JSON
// Schema and accepted by the validator, were refused ("cannot unmarshal
// number 1.0 into Go struct field"), and a number beyond the Go type's
// range was refused in encoding/json's words, without the bound.
func TestTypedToolIntegerArguments(t *testing.T) {
	zero := `{}`
	with := func(members string) string { return `{` + members + `}` }
	common := []numCall{
		{args: `{"i":1.0}`, want: with(`"i":1`)},
		{args: `{"i":1e1}`, want: with(`"i":10`)},
		{args: `{"i":-25.0e0}`, want: with(`"i":-25`)},
		{args: `{"i":0.0}`, want: zero},
		{args: `{"i":-0.0e5}`, want: zero},
		{args: `{"i8":-1.28e2,"i16":3.2767E+4,"u8":2.55e2,"u16":65535.000}`, want: with(`"i8":-128,"i16":32767,"u8":255,"u16":65535`)},
		{args: `{"i64":9007199254740991.0}`, want: with(`"i64":9007199254740991`)},
		{args: `{"i64":-9.007199254740991e15}`, want: with(`"i64":-9007199254740991`)},
		{args: `{"u32":4.294967295e9,"i32":-2147483648e0}`, want: with(`"i32":-2147483648,"u32":4294967295`)},
		{args: `{"p":2e0}`, want: with(`"p":2`)},
		{args: `{"s":[1.0,2e0,-3]}`, want: with(`"s":[1,2,-3]`)},
		{args: `{"m":{"a":2.55e2,"b":1}}`, want: with(`"m":{"a":255,"b":1}`)},
		{args: `{"n":{"x":2.147483647e9}}`, want: with(`"n":{"x":2147483647}`)},
		{args: `{"a":[1e1,20.0]}`, want: `{"a":[10,20]}`},
		{args: `{"mm":{"k":[1e2,null]}}`, want: with(`"mm":{"k":[100,null]}`)},
		// Numbers that go to no Go integer are left as they are.
		{args: `{"any":1e1,"raw":1.0e1,"num":1E1}`, want: with(`"any":10,"raw":1.0e1,"num":1E1`)},
		{args: `{"f32":1.5e1}`, want: with(`"f32":15`)},

		{args: `{"i8":300}`, errs: []string{"i8", "127"}},
		{args: `{"i8":1.28e2}`, errs: []string{"i8", "127"}},
		{args: `{"i8":-129}`, errs: []string{"i8", "-128"}},
		{args: `{"u":-1}`, errs: []string{"u", "minimum 0"}},
		{args: `{"u8":-1e0}`, errs: []string{"u8", "minimum 0"}},
		{args: `{"u16":65536}`, errs: []string{"u16", "65535"}},
		{args: `{"i32":2147483648}`, errs: []string{"i32", "2147483647"}},
		{args: `{"u32":4294967296}`, errs: []string{"u32", "4294967295"}},
		{args: `{"i":1.5}`, errs: []string{"i", "integer"}},
		{args: `{"i":1e-999999999}`, errs: []string{"i", "integer"}},
		{args: `{"s":[1,2.5]}`, errs: []string{"s/1", "integer"}},
		{args: `{"m":{"a":256}}`, errs: []string{"m/a", "255"}},
		{args: `{"n":{"x":2147483648}}`, errs: []string{"n/x", "2147483647"}},
		{args: `{"p":1e999999999}`, errs: []string{"p"}},
		{args: `{"f32":1e39}`, errs: []string{"f32", "3.4028234663852886e+38"}},
	}
	t.Run("inferred", func(t *testing.T) {
		// The inferred schema bounds 64-bit types to the integers a client
		// can send exactly, ±(2^53-1).
		runNumCalls(t, "inferred", append(common,
			numCall{args: `{"i64":9007199254740992}`, errs: []string{"i64", "maximum 9007199254740991"}},
			numCall{args: `{"i64":-9007199254740992}`, errs: []string{"i64", "minimum -9007199254740991"}},
			numCall{args: `{"u64":1e19}`, errs: []string{"u64", "maximum 9007199254740991"}},
			numCall{args: `{"i":1e300}`, errs: []string{"i", "maximum 9007199254740991"}},
			numCall{args: `{"u":9007199254740993}`, errs: []string{"u", "maximum 9007199254740991"}},
		))
	})
	t.Run("given", func(t *testing.T) {
		// With a schema given by hand, the Go type's whole range.
		runNumCalls(t, "given", append(common,
			numCall{args: `{"i64":9.223372036854775807e18}`, want: with(`"i64":9223372036854775807`)},
			numCall{args: `{"i64":-9223372036854775808.0}`, want: with(`"i64":-9223372036854775808`)},
			numCall{args: `{"u64":1.8446744073709551615e19}`, want: with(`"u64":18446744073709551615`)},
			numCall{args: `{"i64":9223372036854775808}`, errs: []string{"i64", "9223372036854775807"}},
			numCall{args: `{"u64":1.8446744073709551616e19}`, errs: []string{"u64", "18446744073709551615"}},
			numCall{args: `{"i":1e300}`, errs: []string{"i", "9223372036854775807"}},
			numCall{args: `{"i":1e999999999}`, errs: []string{"i", "9223372036854775807"}},
			numCall{args: `{"f32":-1e39}`, errs: []string{"f32", "-3.4028234663852886e+38"}},
		))
	})
}

// TestTypedToolIntegerSchemas checks the bounds inferred for each Go
// integer type.
func TestTypedToolIntegerSchemas(t *testing.T) {
	s := server.New(mcp.Implementation{Name: "test", Version: "1"}, nil)
	if err := server.AddTool(s, &mcp.Tool{Name: "t"}, func(ctx context.Context, r *server.Request, in numArgs) (numArgs, error) {
		return in, nil
	}); err != nil {
		t.Fatal(err)
	}
	tool := s.Tools()[0]
	var in, out struct {
		Properties map[string]struct {
			Minimum json.RawMessage `json:"minimum"`
			Maximum json.RawMessage `json:"maximum"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(tool.InputSchema, &in); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(tool.OutputSchema, &out); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, min, max, outMin, outMax string
	}{
		{"i8", "-128", "127", "-128", "127"},
		{"i16", "-32768", "32767", "-32768", "32767"},
		{"i32", "-2147483648", "2147483647", "-2147483648", "2147483647"},
		{"i64", "-9007199254740991", "9007199254740991", "-9223372036854775808", "9223372036854775807"},
		{"u8", "0", "255", "0", "255"},
		{"u16", "0", "65535", "0", "65535"},
		{"u32", "0", "4294967295", "0", "4294967295"},
		{"u64", "0", "9007199254740991", "0", "18446744073709551615"},
		{"f32", "-3.4028234663852886e+38", "3.4028234663852886e+38", "-3.4028234663852886e+38", "3.4028234663852886e+38"},
	} {
		p, q := in.Properties[c.name], out.Properties[c.name]
		if string(p.Minimum) != c.min || string(p.Maximum) != c.max {
			t.Errorf("input %s: minimum %s, maximum %s; want %s, %s", c.name, p.Minimum, p.Maximum, c.min, c.max)
		}
		if string(q.Minimum) != c.outMin || string(q.Maximum) != c.outMax {
			t.Errorf("output %s: minimum %s, maximum %s; want %s, %s", c.name, q.Minimum, q.Maximum, c.outMin, c.outMax)
		}
	}
}
