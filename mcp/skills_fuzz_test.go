package mcp

import (
	"encoding/json"
	"testing"
)

// FuzzSkillDecoders feeds arbitrary bytes to the decoders of the skills
// and Apps extensions, which read with the package's own scanner: none
// may panic; an entry that decodes encodes to what decodes to it again;
// Validate, SplitSkillURI and Check never panic; and a frontmatter
// field seen twice (after its escapes are decoded) is refused.
func FuzzSkillDecoders(f *testing.F) {
	for _, s := range []string{
		`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":[{"uri":"skill://a/SKILL.md","digest":"sha256:` + "0000000000000000000000000000000000000000000000000000000000000000" + `","size":3}]}`,
		`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","\u006eame":"b"},"resources":"dynamic"}`,
		`{"uri":"x","frontmatter":{},"resources":[{"uri":"u","digest":"d","size":-1}]}`,
		`{"resourceUri":"ui://a","visibility":["app","model"]}`,
		`{"csp":{"connectDomains":["https://a"]},"permissions":{"camera":{}},"prefersBorder":true}`,
		`{"mimeTypes":["text/html;profile=mcp-app"]}`, `null`, `[]`, `{"a":1`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var s Skill
		if err := s.UnmarshalJSON(data); err == nil {
			s.Validate()
			SplitSkillURI(s.URI)
			s.Frontmatter.Check()
			s.Frontmatter.Differences(s.Frontmatter)
			b, err := s.MarshalJSON()
			if err != nil {
				t.Fatalf("%s: decoded, but does not encode: %v", data, err)
			}
			var again Skill
			if err := again.UnmarshalJSON(b); err != nil {
				t.Fatalf("%s: encoded as %s, which does not decode: %v", data, b, err)
			}
			if again.URI != s.URI || again.Dynamic != s.Dynamic || len(again.Resources) != len(s.Resources) ||
				len(again.Frontmatter.Differences(s.Frontmatter)) > 0 {
				t.Fatalf("%s: encoded as %s, which decodes to another entry", data, b)
			}
		}
		var fm SkillFrontmatter
		if fm.UnmarshalJSON(data) == nil && json.Valid(data) {
			var m map[string]json.RawMessage
			if json.Unmarshal(data, &m) == nil && len(m) != len(fm) {
				t.Fatalf("%s: %d fields, encoding/json finds %d (a duplicate taken)", data, len(fm), len(m))
			}
		}
		var tm AppToolMeta
		tm.UnmarshalJSON(data)
		var rm AppResourceMeta
		if rm.UnmarshalJSON(data) == nil && rm.CSP != nil {
			rm.CSP.Check()
		}
		var as AppsSettings
		as.UnmarshalJSON(data)
		var r SkillResource
		if r.UnmarshalJSON(data) == nil && r.Size < 0 {
			t.Fatalf("%s: a negative size decoded", data)
		}
	})
}
