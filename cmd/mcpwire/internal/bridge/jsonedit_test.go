package bridge

import "testing"

// TestFindMemberComparesDecodedKeys: a member is found by its decoded
// name, as the peer that reads the message finds it, whatever escapes its
// key was written with; a byte search for the name misses those.
func TestFindMemberComparesDecodedKeys(t *testing.T) {
	for _, tc := range []struct {
		data string
		path []string
		want string // "" for none
	}{
		{`{"_meta":{"progressToken":7}}`, []string{"_meta", "progressToken"}, `7`},
		{`{"_meta":{"progress\u0054oken":7}}`, []string{"_meta", "progressToken"}, `7`},
		{`{"\u005fmeta" : { "a":1, "progress\u0054oken" : "x\"y" } }`, []string{"_meta", "progressToken"}, `"x\"y"`},
		{`{"_meta":{"io.modelcontextprotocol\/logLevel":"info"}}`, []string{"_meta", "io.modelcontextprotocol/logLevel"}, `"info"`},
		{`{"progressToken":{"progressToken":1}}`, []string{"_meta", "progressToken"}, ``},
		{`{"_meta":{"progresstoken":7}}`, []string{"_meta", "progressToken"}, ``}, // names are case-sensitive
		{`{"_meta":{"x":"progressToken"}}`, []string{"_meta", "progressToken"}, ``},
		{`{"_meta":[{"progressToken":7}]}`, []string{"_meta", "progressToken"}, ``},
		{` {"requestState":"s\u0041"}`, []string{"requestState"}, `"s\u0041"`},
		{`null`, []string{"requestState"}, ``},
		{``, []string{"requestState"}, ``},
	} {
		if got := string(member([]byte(tc.data), tc.path...)); got != tc.want {
			t.Errorf("member(%s, %q) = %q, want %q", tc.data, tc.path, got, tc.want)
		}
	}
	out, old, ok := replaceMember([]byte(`{"a":1,"_meta":{"progress\u0054oken":"mine"},"b":2}`), []byte(`"bridge"`), "_meta", "progressToken")
	if !ok || string(old) != `"mine"` || string(out) != `{"a":1,"_meta":{"progress\u0054oken":"bridge"},"b":2}` {
		t.Errorf("replaceMember: %s, %s, %v", out, old, ok)
	}
	if id, ok := memberID([]byte(`{"_meta":{"progressToken":"\u0061b"}}`), "_meta", "progressToken"); !ok || id.String() != `"ab"` {
		t.Errorf("memberID: %s, %v", id, ok)
	}
}

// TestIDsAreRandomAndUnique: the pool's ids are 128 bits of crypto/rand
// each, handed out once (a block of crypto/rand is read at a time).
func TestIDsAreRandomAndUnique(t *testing.T) {
	var s idSource
	seen := map[string]bool{}
	for i := range 3 * idBlock / 16 {
		id := s.next()
		if len(id) != 26 || seen[id] {
			t.Fatalf("id %d: %q (seen before: %v)", i, id, seen[id])
		}
		seen[id] = true
	}
}
