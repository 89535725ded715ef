package jsonrpc

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestDecodeStrict(t *testing.T) {
	deep := strings.Repeat("[", 200) + strings.Repeat("]", 200)
	cases := []struct {
		name   string
		in     string
		code   Code // 0: valid
		echoID string
	}{
		{"call", `{"jsonrpc":"2.0","id":1,"method":"m","params":{}}`, 0, ""},
		{"whitespace around", " \t\r\n{\"jsonrpc\":\"2.0\",\"method\":\"m\"}\n ", 0, ""},
		{"escaped member names", `{"jsonrpc":"2.0","\u006dethod":"m","id":1}`, 0, ""},
		{"upper-case member", `{"jsonrpc":"2.0","Method":"m","id":1}`, CodeInvalidRequest, ""},
		{"upper-case jsonrpc", `{"JSONRPC":"2.0","method":"m","id":1}`, CodeInvalidRequest, "1"},
		{"upper-case id", `{"jsonrpc":"2.0","method":"m","ID":1}`, CodeInvalidRequest, ""},
		{"unknown member", `{"jsonrpc":"2.0","method":"m","id":1,"extra":true}`, CodeInvalidRequest, "1"},
		{"duplicate method", `{"jsonrpc":"2.0","method":"a","method":"b","id":1}`, CodeInvalidRequest, "1"},
		{"duplicate via escape", `{"jsonrpc":"2.0","method":"a","\u006dethod":"b","id":1}`, CodeInvalidRequest, "1"},
		{"duplicate key in params", `{"jsonrpc":"2.0","method":"m","id":7,"params":{"a":1,"b":{"x":1,"x":2}}}`, CodeInvalidRequest, "7"},
		{"duplicate key in a big object", `{"jsonrpc":"2.0","method":"m","id":7,"params":{` + manyKeys(40, "k5") + `}}`, CodeInvalidRequest, "7"},
		{"big object without duplicates", `{"jsonrpc":"2.0","method":"m","id":7,"params":{` + manyKeys(40, "") + `}}`, 0, ""},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","method":"m","id":1}`, CodeInvalidRequest, "1"},
		{"jsonrpc number", `{"jsonrpc":2.0,"method":"m","id":1}`, CodeInvalidRequest, "1"},
		{"jsonrpc missing", `{"method":"m","id":1}`, CodeInvalidRequest, "1"},
		{"params scalar", `{"jsonrpc":"2.0","method":"m","params":3,"id":1}`, CodeInvalidRequest, "1"},
		{"params string", `{"jsonrpc":"2.0","method":"m","params":"x","id":1}`, CodeInvalidRequest, "1"},
		{"id bool", `{"jsonrpc":"2.0","method":"m","id":true}`, CodeInvalidRequest, ""},
		{"id object", `{"jsonrpc":"2.0","method":"m","id":{}}`, CodeInvalidRequest, ""},
		{"id array", `{"jsonrpc":"2.0","method":"m","id":[1]}`, CodeInvalidRequest, ""},
		{"id fraction", `{"jsonrpc":"2.0","method":"m","id":1.5}`, CodeInvalidRequest, ""},
		{"id exponent", `{"jsonrpc":"2.0","method":"m","id":1e3}`, CodeInvalidRequest, ""},
		{"id null in a request", `{"jsonrpc":"2.0","method":"m","id":null}`, CodeInvalidRequest, ""},
		{"id huge", `{"jsonrpc":"2.0","method":"m","id":123456789012345678901234567890}`, 0, ""},
		{"id negative", `{"jsonrpc":"2.0","method":"m","id":-9223372036854775808}`, 0, ""},
		{"method number", `{"jsonrpc":"2.0","method":1,"id":1}`, CodeInvalidRequest, "1"},
		{"request with result", `{"jsonrpc":"2.0","method":"m","id":1,"result":1}`, CodeInvalidRequest, "1"},
		{"response with both", `{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"x"}}`, CodeInvalidRequest, ""},
		{"response without id", `{"jsonrpc":"2.0","result":1}`, CodeInvalidRequest, ""},
		{"result with null id", `{"jsonrpc":"2.0","result":1,"id":null}`, CodeInvalidRequest, ""},
		{"error with null id", `{"jsonrpc":"2.0","error":{"code":-32700,"message":"x"},"id":null}`, 0, ""},
		{"error without code", `{"jsonrpc":"2.0","error":{"message":"x"},"id":1}`, CodeInvalidRequest, ""},
		{"error code fraction", `{"jsonrpc":"2.0","error":{"code":1.5,"message":"x"},"id":1}`, CodeInvalidRequest, ""},
		{"error code string", `{"jsonrpc":"2.0","error":{"code":"1","message":"x"},"id":1}`, CodeInvalidRequest, ""},
		{"error unknown member", `{"jsonrpc":"2.0","error":{"code":1,"message":"x","Data":1},"id":1}`, CodeInvalidRequest, ""},
		{"neither method nor result", `{"jsonrpc":"2.0","id":1}`, CodeInvalidRequest, ""},
		{"not an object", `"hello"`, CodeInvalidRequest, ""},
		{"number", `42`, CodeInvalidRequest, ""},
		{"empty", ``, CodeParseError, ""},
		{"blank", "  \n", CodeParseError, ""},
		{"truncated", `{"jsonrpc":"2.0","method":"m"`, CodeParseError, ""},
		{"trailing garbage", `{"jsonrpc":"2.0","method":"m"} x`, CodeParseError, ""},
		{"two messages", `{"jsonrpc":"2.0","method":"m"}{"jsonrpc":"2.0","method":"m"}`, CodeParseError, ""},
		{"bad UTF-8 in string", "{\"jsonrpc\":\"2.0\",\"method\":\"m\xff\"}", CodeParseError, ""},
		{"bad UTF-8 in params", "{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"a\":\"\xc3\x28\"}}", CodeParseError, ""},
		{"surrogate half in UTF-8", "{\"jsonrpc\":\"2.0\",\"method\":\"\xed\xa0\x80\"}", CodeParseError, ""},
		{"control char", "{\"jsonrpc\":\"2.0\",\"method\":\"a\x01\"}", CodeParseError, ""},
		{"bad escape", `{"jsonrpc":"2.0","method":"\x"}`, CodeParseError, ""},
		{"leading zero", `{"jsonrpc":"2.0","method":"m","params":[01]}`, CodeParseError, ""},
		{"single quotes", `{'jsonrpc':'2.0'}`, CodeParseError, ""},
		{"byte order mark", "\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"method\":\"m\"}", CodeParseError, ""},
		{"too deep", `{"jsonrpc":"2.0","method":"m","params":` + deep + `}`, CodeInvalidRequest, ""},
		{"syntax error beats duplicate", `{"jsonrpc":"2.0","method":"m","method":"m",}`, CodeParseError, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Decode([]byte(tc.in), nil)
			if tc.code == 0 {
				if err != nil {
					t.Fatalf("Decode(%s) = %v, want a message", tc.in, err)
				}
				return
			}
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("Decode(%s) = %v, %v; want a DecodeError with code %d", tc.in, m, err, tc.code)
			}
			if de.Err.Code != tc.code {
				t.Errorf("code = %d (%s), want %d", de.Err.Code, de.Err.Message, tc.code)
			}
			if got := de.ID.String(); tc.echoID == "" && got != "null" || tc.echoID != "" && got != tc.echoID {
				t.Errorf("id = %s, want %q (null when empty)", got, tc.echoID)
			}
		})
	}
}

func manyKeys(n int, dup string) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":%d`, i, i)
	}
	if dup != "" {
		fmt.Fprintf(&b, `,%q:0`, dup)
	}
	return b.String()
}

func TestDecodeLimits(t *testing.T) {
	msg := `{"jsonrpc":"2.0","method":"m","params":{"a":[[[1]]]}}`
	if _, err := Decode([]byte(msg), &Limits{MaxMessageSize: len(msg)}); err != nil {
		t.Fatalf("at the size limit: %v", err)
	}
	_, err := Decode([]byte(msg), &Limits{MaxMessageSize: len(msg) - 1})
	if ErrorCode(err) != CodeInvalidRequest || !strings.Contains(err.Error(), "exceeds the limit") {
		t.Errorf("over the size limit: %v", err)
	}
	// Depth: the message object is 1, params 2, the arrays 3..5.
	if _, err := Decode([]byte(msg), &Limits{MaxDepth: 5}); err != nil {
		t.Fatalf("at the depth limit: %v", err)
	}
	if _, err := Decode([]byte(msg), &Limits{MaxDepth: 4}); ErrorCode(err) != CodeInvalidRequest {
		t.Errorf("over the depth limit: %v", err)
	}
	batch := `[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b"}]`
	if _, err := Decode([]byte(batch), &Limits{MaxBatchSize: 2}); err != nil {
		t.Fatalf("at the batch limit: %v", err)
	}
	if _, err := Decode([]byte(batch), &Limits{MaxBatchSize: 1}); ErrorCode(err) != CodeInvalidRequest {
		t.Errorf("over the batch limit: %v", err)
	}
	if _, err := Decode([]byte(batch), &Limits{MaxBatchSize: -1}); err != nil {
		t.Errorf("no batch limit: %v", err)
	}
}

func TestDecodeKeepsParamsVerbatim(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":"a\"b","method":"tools/call","params":{"name":"x", "arguments":{"s":"\u00e9\n"}}}`
	m, err := Decode([]byte(in), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := m.(*Request)
	if r.ID != StringID(`a"b`) || r.Method != "tools/call" {
		t.Errorf("got id %s method %q", r.ID, r.Method)
	}
	if want := `{"name":"x", "arguments":{"s":"\u00e9\n"}}`; string(r.Params) != want {
		t.Errorf("params = %s, want %s", r.Params, want)
	}
}

func TestDecoderInternsKnownMethods(t *testing.T) {
	d := NewDecoder(Limits{}, "tools/call")
	frame := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`)
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := d.Decode(frame); err != nil {
			t.Fatal(err)
		}
	})
	// One allocation for the Request and nothing for the method name.
	if allocs > 1 {
		t.Errorf("Decode allocated %.0f times, want at most 1", allocs)
	}
}

func TestIDRoundTrip(t *testing.T) {
	for _, in := range []string{`0`, `-1`, `9223372036854775807`, `-9223372036854775808`, `9223372036854775808`, `-9223372036854775809`, `123456789012345678901234567890`, `""`, `"x"`, `"\u00e9"`} {
		var id ID
		if err := json.Unmarshal([]byte(in), &id); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		out, _ := json.Marshal(id)
		var a, b any
		json.Unmarshal([]byte(in), &a)
		json.Unmarshal(out, &b)
		if in[0] != '"' && string(out) != in || fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("%s round-tripped to %s", in, out)
		}
	}
	if _, ok := Int64ID(5).Int64(); !ok {
		t.Error("Int64ID(5).Int64() not ok")
	}
	if Int64ID(5) == StringID("5") {
		t.Error("integer 5 and string \"5\" must differ")
	}
	for _, bad := range []string{`1.0`, `true`, `{}`, `[]`, `"`, `01`} {
		var id ID
		if err := json.Unmarshal([]byte(bad), &id); err == nil {
			t.Errorf("%s accepted as an id", bad)
		}
	}
}

func TestEncode(t *testing.T) {
	cases := []struct {
		m    Message
		want string
	}{
		{&Request{ID: Int64ID(1), Method: "m"}, `{"jsonrpc":"2.0","id":1,"method":"m"}`},
		{&Request{Method: "n", Params: json.RawMessage("{\n  \"a\": 1\n}")}, `{"jsonrpc":"2.0","method":"n","params":{"a":1}}`},
		{&Response{ID: StringID("x"), Result: json.RawMessage(`{}`)}, `{"jsonrpc":"2.0","id":"x","result":{}}`},
		{&Response{Error: &Error{Message: "boom"}}, `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"boom"}}`},
		{&Response{ID: Int64ID(2), Error: &Error{Code: -1, Message: "no", Data: json.RawMessage(`{"a":1}`)}}, `{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"no","data":{"a":1}}}`},
		{&Request{ID: Int64ID(1), Method: "bad\xffutf8\n"}, `{"jsonrpc":"2.0","id":1,"method":"bad\ufffdutf8\n"}`},
	}
	for _, tc := range cases {
		b, err := Encode(tc.m)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.want {
			t.Errorf("Encode = %s\nwant     %s", b, tc.want)
		}
	}
	b, _ := Encoder{OmitNullID: true}.Append(nil, &Response{Error: NewError(CodeParseError, "")})
	if want := `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`; string(b) != want {
		t.Errorf("OmitNullID: %s, want %s", b, want)
	}
	for _, bad := range []Message{nil, &Request{}, &Response{ID: Int64ID(1)}, &Batch{}} {
		if _, err := Encode(bad); err == nil {
			t.Errorf("Encode(%#v) succeeded", bad)
		}
	}
}

func TestDecodeErrorWithoutID(t *testing.T) {
	m, err := Decode([]byte(`{"jsonrpc":"2.0","error":{"code":-32700,"message":"x"}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := m.(*Response); r.ID.IsValid() || r.Error.Code != CodeParseError {
		t.Errorf("got %+v", r)
	}
}
