package jsonscan

import (
	"strings"
	"testing"
)

// seeds are the starting corpus of FuzzScanner: each edge case on which
// the scanners that this package replaced disagreed, and the shapes of
// MCP messages.
var seeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"progressToken":1}}}`,
	`[{"jsonrpc":"2.0","method":"a"},1,{"foo":"boo"}]`,
	`{"a":1,"\u0061":2}`, `{"a":{"a":1},"b":[{"c":1,"c":2}]}`, `{"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k5":0}`,
	`{"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k\u0031":17,"k18":{"x":1,"x":2}}`,
	`"\ud800"`, `"\ud800\u0041"`, `"\udc00\ud800"`, `"\ud83d\ude00"`, `"\uDBFF\uDFFF"`, `"\u00e9\/\b\f\n\r\t\"\\"`,
	"\"\xff\"", "\"\xed\xa0\x80\"", "\"a\xc3\"", "{\"\xdf\":0}", "\"\xef\xbf\xbd\"", "\"\xff\\n\"",
	`0`, `-0`, `-`, `01`, `1.`, `.5`, `1e`, `1e+`, `1.5e-3`, `9223372036854775807`, `9223372036854775808`, `-9223372036854775808`, `-9223372036854775809`, `1E400`,
	`tru`, `nul`, `truex`, `[1,]`, `[,1]`, `{"a"}`, `{"a":1,}`, `{"a":1 "b":2}`, `{"a":tru}`, `{"a":1"b":2}`, `[}`, `{]`, `[1]]`, `1 2`, `"\`, `"\x"`, `"\u12"`, "\"a\tb\"",
	"\xef\xbb\xbf{}", ` { "a" : [ 1 , { } ] } `, `[[[[[[[[[[]]]]]]]]]]`, ``, ` `,
	// Strings whose escapes straddle the length at which skipping stops
	// looking byte by byte and starts searching for quotes.
	`["` + strings.Repeat("a", 30) + `\"x\\\"y"]`, `["` + strings.Repeat("a", 31) + `\"x"]`, `{"k":"` + strings.Repeat(`\\`, 20) + `"}`,
	`["` + strings.Repeat("a", 40) + `\\\\\"` + strings.Repeat("b", 40) + `\\"]`, `"` + strings.Repeat("a", 31) + `\`,
	// Strings read eight bytes at a time: a quote, an escape, a control
	// character or a non-ASCII byte on each side of a word's edge.
	`"` + strings.Repeat("a", 7) + `"`, `"` + strings.Repeat("a", 8) + `"`, `"` + strings.Repeat("a", 6) + `\n` + strings.Repeat("b", 9) + `"`,
	`"` + strings.Repeat("a", 7) + `\u00e9` + strings.Repeat("b", 7) + `"`, "\"" + strings.Repeat("a", 7) + "\x1f" + strings.Repeat("b", 8) + "\"",
	"\"" + strings.Repeat("a", 7) + "\xc3\xa9" + strings.Repeat("b", 8) + "\"", "\"" + strings.Repeat("a", 8) + "\xc3" + strings.Repeat("b", 8) + "\"",
	"\"" + strings.Repeat("a", 8) + "\x7f\xf4\x90\x80\x80" + `"`, `{"` + strings.Repeat(`\n`, 9) + `":"` + strings.Repeat(`a\"`, 6) + `"}`,
}

// FuzzScanner holds every claim of the package to encoding/json's
// verdict: validity, UTF-8, duplicate keys, depth, where values end, and
// the decoded values of strings and numbers; on text that is not JSON, the
// readers must stop without panicking.
func FuzzScanner(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		differential(t, data)
	})
}
