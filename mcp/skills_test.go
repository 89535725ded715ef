package mcp

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

const skillMD = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  version: \"2.1\"\n---\n\nBody.\n"

// validSkill returns a valid entry of two files.
func validSkill() Skill {
	return Skill{
		URI:         "skill://pdf-processing/SKILL.md",
		Frontmatter: NewSkillFrontmatter("pdf-processing", "Extract, fill, and assemble PDF documents"),
		Resources: []SkillResource{
			{URI: "skill://pdf-processing/SKILL.md", Digest: SkillDigest([]byte(skillMD)), Size: int64(len(skillMD))},
			{URI: "skill://pdf-processing/references/FORMS.md", Digest: SkillDigest([]byte("forms")), Size: 5},
		},
	}
}

func TestSkillJSON(t *testing.T) {
	s := validSkill()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Skill
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
	if back.URI != s.URI || len(back.Resources) != 2 || back.Resources[1] != s.Resources[1] || len(back.Frontmatter.Differences(s.Frontmatter)) != 0 {
		t.Errorf("round trip: %+v", back)
	}
	dyn := Skill{URI: s.URI, Frontmatter: s.Frontmatter, Dynamic: true}
	b, _ = json.Marshal(dyn)
	if !strings.Contains(string(b), `"resources":"dynamic"`) {
		t.Errorf("dynamic skill: %s", b)
	}
	if err := json.Unmarshal(b, &back); err != nil || !back.Dynamic || back.Resources != nil {
		t.Errorf("dynamic skill decodes as %+v, %v", back, err)
	}
	b, _ = json.Marshal(ListSkillsResult{})
	if string(b) != `{"skills":[]}` {
		t.Errorf("empty list: %s", b)
	}
	b, _ = json.Marshal(ReadDirectoryResult{})
	if string(b) != `{"resources":[]}` {
		t.Errorf("empty directory: %s", b)
	}
}

func TestSkillDecodingIsStrict(t *testing.T) {
	const fm = `"frontmatter":{"name":"a","description":"b"}`
	for _, tc := range []struct {
		name, json string
	}{
		{"uppercase member", `{"URI":"skill://a/SKILL.md",` + fm + `,"resources":[]}`},
		{"no uri", `{` + fm + `,"resources":[]}`},
		{"no frontmatter", `{"uri":"skill://a/SKILL.md","resources":[]}`},
		{"frontmatter not an object", `{"uri":"skill://a/SKILL.md","frontmatter":[],"resources":[]}`},
		{"resources a number", `{"uri":"skill://a/SKILL.md",` + fm + `,"resources":5}`},
		{"resources another string", `{"uri":"skill://a/SKILL.md",` + fm + `,"resources":"static"}`},
		{"resource without size", `{"uri":"skill://a/SKILL.md",` + fm + `,"resources":[{"uri":"skill://a/SKILL.md","digest":"x"}]}`},
		{"negative size", `{"uri":"skill://a/SKILL.md",` + fm + `,"resources":[{"uri":"skill://a/SKILL.md","digest":"x","size":-1}]}`},
		{"fractional size", `{"uri":"skill://a/SKILL.md",` + fm + `,"resources":[{"uri":"skill://a/SKILL.md","digest":"x","size":1.5}]}`},
		{"uri a number", `{"uri":1,` + fm + `,"resources":[]}`},
		{"duplicate frontmatter field", `{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","name":"b"},"resources":[]}`},
		{"null", `null`},
	} {
		var s Skill
		if err := json.Unmarshal([]byte(tc.json), &s); err == nil {
			t.Errorf("%s: %s decoded as %+v", tc.name, tc.json, s)
		}
	}
	// An entry without resources decodes, and is invalid.
	var s Skill
	if err := json.Unmarshal([]byte(`{"uri":"skill://a/SKILL.md",`+fm+`}`), &s); err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "no resources") {
		t.Errorf("Validate of an entry without resources: %v", err)
	}
}

func TestSkillValidate(t *testing.T) {
	if s := validSkill(); s.Validate() != nil {
		t.Fatalf("a valid skill: %v", s.Validate())
	}
	digest := SkillDigest(nil)
	for _, tc := range []struct {
		name   string
		change func(*Skill)
		want   string
	}{
		{"name differs from the URI", func(s *Skill) { s.Frontmatter["name"] = json.RawMessage(`"other"`) }, "is not"},
		{"name missing", func(s *Skill) { delete(s.Frontmatter, "name") }, "(absent)"},
		{"no description", func(s *Skill) { delete(s.Frontmatter, "description") }, "description"},
		{"bad name in URI", func(s *Skill) { s.URI = "skill://PDF/SKILL.md" }, "a-z"},
		{"not a SKILL.md", func(s *Skill) { s.URI = "skill://pdf-processing/README.md" }, "does not end"},
		{"no SKILL.md listed", func(s *Skill) { s.Resources = s.Resources[1:] }, "does not list its own"},
		{"file outside the directory", func(s *Skill) { s.Resources[1].URI = "skill://other/x.md" }, "not in its directory"},
		{"dot-dot", func(s *Skill) { s.Resources[1].URI = "skill://pdf-processing/../other/SKILL.md" }, `".."`},
		{"encoded dot-dot", func(s *Skill) { s.Resources[1].URI = "skill://pdf-processing/%2e%2e/x" }, "percent-encoded"},
		{"encoded slash", func(s *Skill) { s.Resources[1].URI = "skill://pdf-processing/a%2Fb" }, "percent-encoded"},
		{"empty segment", func(s *Skill) { s.Resources[1].URI = "skill://pdf-processing//x" }, "empty"},
		{"query", func(s *Skill) { s.Resources[1].URI = "skill://pdf-processing/x?y" }, "query"},
		{"backslash", func(s *Skill) { s.Resources[1].URI = `skill://pdf-processing/a\..\b` }, "backslash"},
		{"listed twice", func(s *Skill) { s.Resources[1] = s.Resources[0] }, "twice"},
		{"bad digest", func(s *Skill) { s.Resources[1].Digest = "sha256:ABC" }, "digest"},
		{"uppercase digest", func(s *Skill) { s.Resources[1].Digest = strings.ToUpper(digest) }, "digest"},
		{"too large", func(s *Skill) { s.Resources[1].Size = MaxSkillBytes }, "larger"},
		{"sizes overflow", func(s *Skill) { s.Resources[0].Size = 1 << 62; s.Resources[1].Size = 1 << 62 }, "larger"},
		{"too many files", func(s *Skill) {
			for i := range MaxSkillResources {
				s.Resources = append(s.Resources, SkillResource{URI: "skill://pdf-processing/f" + strings.Repeat("x", i), Digest: digest})
			}
		}, "more than"},
		{"no resources", func(s *Skill) { s.Resources = nil }, "no resources"},
	} {
		s := validSkill()
		tc.change(&s)
		err := s.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Validate() = %v, want an error with %q", tc.name, err, tc.want)
		}
	}
	// Dynamic skills have no manifest to check.
	s := validSkill()
	s.Resources, s.Dynamic = nil, true
	if err := s.Validate(); err != nil {
		t.Errorf("dynamic skill: %v", err)
	}
	// Nested skill paths and other schemes are skills too.
	s = Skill{URI: "github://acme/billing/refunds/SKILL.md", Frontmatter: NewSkillFrontmatter("refunds", "x"),
		Resources: []SkillResource{{URI: "github://acme/billing/refunds/SKILL.md", Digest: digest}}}
	if err := s.Validate(); err != nil {
		t.Errorf("nested skill: %v", err)
	}
}

func TestValidateSkillName(t *testing.T) {
	for name, ok := range map[string]bool{
		"pdf-processing": true, "a": true, "a1-b2": true, strings.Repeat("a", 64): true,
		"": false, strings.Repeat("a", 65): false, "-a": false, "a-": false, "a--b": false,
		"PDF": false, "a_b": false, "a.b": false, "ä": false, "a b": false,
	} {
		if err := ValidateSkillName(name); (err == nil) != ok {
			t.Errorf("ValidateSkillName(%q) = %v", name, err)
		}
	}
}

func TestSplitSkillURI(t *testing.T) {
	dir, name, err := SplitSkillURI("skill://acme/billing/refunds/SKILL.md")
	if err != nil || dir != "skill://acme/billing/refunds" || name != "refunds" {
		t.Errorf("SplitSkillURI = %q, %q, %v", dir, name, err)
	}
	for _, uri := range []string{
		"skill://SKILL.md", "skill:///SKILL.md", "pdf/SKILL.md", "://pdf/SKILL.md", "1x://pdf/SKILL.md",
		"skill://pdf/SKILL.md?x", "skill://../pdf/SKILL.md", "skill://a/./pdf/SKILL.md", "skill://a%2Fb/pdf/SKILL.md",
		"skill://pdf/skill.md", "skill://a b/pdf/SKILL.md",
	} {
		if _, _, err := SplitSkillURI(uri); err == nil {
			t.Errorf("SplitSkillURI(%q) accepted it", uri)
		}
	}
}

func TestParseSkillFrontmatter(t *testing.T) {
	f, err := ParseSkillFrontmatter([]byte(skillMD))
	if err != nil {
		t.Fatal(err)
	}
	if f.Name() != "pdf-processing" || f.Description() != "Extract, fill, and assemble PDF documents" || string(f["metadata"]) != `{"version":"2.1"}` {
		t.Errorf("ParseSkillFrontmatter = %v", f)
	}
	if err := f.Check(); err != nil {
		t.Errorf("Check: %v", err)
	}
	if _, err := ParseSkillFrontmatter([]byte("# no frontmatter")); !errors.Is(err, ErrNoSkillFrontmatter) {
		t.Errorf("no frontmatter: %v", err)
	}
	if _, err := ParseSkillFrontmatter([]byte("---\nname: a\nname: b\n---\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("duplicate key: %v", err)
	}
}

func TestSkillFrontmatterDifferences(t *testing.T) {
	a := SkillFrontmatter{"name": json.RawMessage(`"x"`), "n": json.RawMessage(`1.0`), "m": json.RawMessage(`{"a":1,"b":[2]}`)}
	b := SkillFrontmatter{"name": json.RawMessage(`"x"`), "n": json.RawMessage(`1`), "m": json.RawMessage(`{"b":[2.00],"a":1e0}`)}
	if d := a.Differences(b); len(d) != 0 {
		t.Errorf("equal frontmatters differ in %v", d)
	}
	b["extra"] = json.RawMessage(`null`)
	b["name"] = json.RawMessage(`"y"`)
	a["gone"] = json.RawMessage(`true`)
	if d := a.Differences(b); strings.Join(d, ",") != "extra,gone,name" {
		t.Errorf("Differences = %v", d)
	}
	if d := a.Differences(SkillFrontmatter{"n": json.RawMessage(`"1"`)}); len(d) != len(a) {
		t.Errorf("a string and a number are the same: %v", d)
	}
}

func TestSkillFrontmatterCheck(t *testing.T) {
	ok := NewSkillFrontmatter("a", "b")
	for _, tc := range []struct {
		field, value string
	}{
		{"name", `"A"`}, {"name", `1`}, {"description", `""`}, {"description", `"` + strings.Repeat("é", 1025) + `"`},
		{"license", `1`}, {"compatibility", `""`}, {"compatibility", `"` + strings.Repeat("x", 501) + `"`},
		{"metadata", `"x"`}, {"metadata", `{"version":2.1}`}, {"allowed-tools", `["Bash"]`},
	} {
		f := SkillFrontmatter{}
		for k, v := range ok {
			f[k] = v
		}
		f[tc.field] = json.RawMessage(tc.value)
		if err := f.Check(); err == nil {
			t.Errorf("Check accepted %s: %s", tc.field, tc.value)
		}
	}
	long := NewSkillFrontmatter("a", strings.Repeat("é", 1024))
	long["x-custom"] = json.RawMessage(`[1]`)
	if err := long.Check(); err != nil {
		t.Errorf("Check: %v", err)
	}
}

func TestSkillsCapability(t *testing.T) {
	c := ServerCapabilities{}
	if _, ok := c.Skills(); ok {
		t.Error("no extension declared, but Skills reports one")
	}
	c.Extensions = map[string]json.RawMessage{ExtensionSkills: json.RawMessage(`{"directoryRead":true}`)}
	if s, ok := c.Skills(); !ok || !s.DirectoryRead {
		t.Errorf("Skills() = %+v, %v", s, ok)
	}
	c.Extensions[ExtensionSkills] = json.RawMessage(`{}`)
	if s, ok := c.Skills(); !ok || s.DirectoryRead {
		t.Errorf("Skills() = %+v, %v", s, ok)
	}
	for _, m := range []string{MethodListSkills, MethodGetSkill, MethodReadDirectory} {
		if !IsSkillsExtensionMethod(m) || HasMethod(Version20260728, m) || HasMethod(Version20251125, m) {
			t.Errorf("%s: an extension method of no core revision", m)
		}
	}
}
