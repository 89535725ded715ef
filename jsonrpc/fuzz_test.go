package jsonrpc

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzDecode checks that the decoder never panics, that whatever it
// accepts is valid JSON, and that an accepted message survives encoding
// and decoding again unchanged.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`,
		`{"jsonrpc":"2.0","method":"update","params":{"a":[1,{"b":null}]}}`,
		`{"jsonrpc":"2.0","result":{"x":"\u00e9\n"},"id":"a"}`,
		`{"jsonrpc":"2.0","error":{"code":-32601,"message":"m","data":[true]},"id":null}`,
		`[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},1,{"foo":"boo"}]`,
		`{"jsonrpc":"2.0","method":"m","id":123456789012345678901234567890}`,
		`[]`, `{"jsonrpc":"2.0","method":"a","method":"b"}`, "\xff",
	} {
		f.Add([]byte(seed))
	}
	lim := &Limits{MaxDepth: 32, MaxBatchSize: 64}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data, lim)
		if err != nil {
			if _, ok := err.(*DecodeError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		out, err := Encode(m)
		if err != nil {
			if b, ok := m.(*Batch); ok && len(b.Messages)+len(b.Invalid) == 0 {
				return
			}
			t.Fatalf("cannot encode what was decoded from %q: %v", data, err)
		}
		again, err := Decode(out, lim)
		if err != nil {
			t.Fatalf("re-decoding %q (from %q): %v", out, data, err)
		}
		out2, _ := Encode(again)
		if string(out) != string(out2) {
			t.Fatalf("round trip changed the message:\n%s\n%s", out, out2)
		}
		if r, ok := m.(*Request); ok {
			r2 := again.(*Request)
			if r.ID != r2.ID || r.Method != r2.Method || !reflect.DeepEqual(compact(r.Params), compact(r2.Params)) {
				t.Fatalf("request changed: %+v vs %+v", r, r2)
			}
		}
	})
}

func compact(raw json.RawMessage) string {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
