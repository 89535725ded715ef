package mcp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/internal/frontmatter"
)

// The rules of the skills extension and of the Agent Skills
// specification, as functions: what a server checks before it serves a
// skill, and a host before it loads one.

// SkillFrontmatter is a skill's SKILL.md YAML frontmatter rendered as a
// JSON object: every field the author wrote, by name, its value as JSON
// (name and description always, license, compatibility, metadata,
// allowed-tools and any other). ParseSkillFrontmatter reads one from a
// SKILL.md; Differences compares two field by field.
type SkillFrontmatter map[string]json.RawMessage

// NewSkillFrontmatter returns the frontmatter of the two fields every
// skill has.
func NewSkillFrontmatter(name, description string) SkillFrontmatter {
	n, _ := json.Marshal(name)
	d, _ := json.Marshal(description)
	return SkillFrontmatter{"name": n, "description": d}
}

// UnmarshalJSON implements json.Unmarshaler: a JSON object,
// case-sensitive, each field once.
func (f *SkillFrontmatter) UnmarshalJSON(data []byte) error {
	if firstByte(data) != '{' {
		return fieldError("skill", "frontmatter", "an object")
	}
	m := SkillFrontmatter{}
	err := eachMember(data, func(key []byte, escaped bool, v []byte) (bool, error) {
		k, _ := keyString(key, escaped)
		if _, dup := m[k]; dup {
			return true, fmt.Errorf("mcp: the frontmatter field %q appears twice", k)
		}
		m[k] = append(json.RawMessage(nil), bytes.TrimSpace(v)...)
		return false, nil
	})
	if err != nil {
		return err
	}
	*f = m
	return nil
}

// String returns the field's value when it is a string.
func (f SkillFrontmatter) String(field string) (string, bool) {
	raw, ok := f[field]
	if !ok {
		return "", false
	}
	return rawString(raw)
}

// Name returns the name field, or "".
func (f SkillFrontmatter) Name() string {
	s, _ := f.String("name")
	return s
}

// Description returns the description field, or "".
func (f SkillFrontmatter) Description() string {
	s, _ := f.String("description")
	return s
}

// ErrNoSkillFrontmatter reports a SKILL.md that does not begin with a
// YAML frontmatter block between --- lines.
var ErrNoSkillFrontmatter = frontmatter.ErrNone

// ParseSkillFrontmatter reads the YAML frontmatter at the head of a
// SKILL.md (see package internal/frontmatter for the YAML it reads: the
// subset frontmatter is written in, under the YAML 1.2 core schema;
// anchors, aliases, tags and duplicate keys are refused).
func ParseSkillFrontmatter(skillMD []byte) (SkillFrontmatter, error) {
	raw, err := frontmatter.Parse(skillMD)
	if err != nil {
		return nil, fmt.Errorf("mcp: SKILL.md: %w", err)
	}
	var f SkillFrontmatter
	if err := f.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	return f, nil
}

// Differences returns the names of the fields whose values differ between
// f and g, or that only one has, sorted: none when the two are identical
// in content. Values are compared as JSON values (numbers by value,
// objects whatever their member order).
func (f SkillFrontmatter) Differences(g SkillFrontmatter) []string {
	var diff []string
	for k, v := range f {
		if w, ok := g[k]; !ok || !sameJSON(v, w) {
			diff = append(diff, k)
		}
	}
	for k := range g {
		if _, ok := f[k]; !ok {
			diff = append(diff, k)
		}
	}
	slices.Sort(diff)
	return diff
}

// sameJSON reports whether a and b encode the same JSON value.
func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	va, erra := decodeNumbers(a)
	vb, errb := decodeNumbers(b)
	return erra == nil && errb == nil && equalJSON(va, vb)
}

func decodeNumbers(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

// equalJSON compares decoded JSON values, numbers exactly by value.
func equalJSON(a, b any) bool {
	switch a := a.(type) {
	case json.Number:
		b, ok := b.(json.Number)
		if !ok {
			return false
		}
		x, okx := canonNumber(string(a))
		y, oky := canonNumber(string(b))
		if !okx || !oky {
			return a == b
		}
		return x == y
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, v := range a {
			w, ok := b[k]
			if !ok || !equalJSON(v, w) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !equalJSON(a[i], b[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

// decimal is a number's value: its sign, its significant digits (no
// leading or trailing zero; "0" for zero) and the power of ten they are
// multiplied by.
type decimal struct {
	neg    bool
	digits string
	exp    int64
}

// canonNumber returns the value of a JSON number, compared without
// arithmetic on big numbers (whose cost a huge exponent would make the
// sender's choice). It reports false for an exponent beyond ±2^62.
func canonNumber(s string) (decimal, bool) {
	var d decimal
	if d.neg = strings.HasPrefix(s, "-"); d.neg {
		s = s[1:]
	}
	mant, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	whole, frac, _ := strings.Cut(mant, ".")
	if hasExp {
		e, err := strconv.ParseInt(exp, 10, 64)
		if err != nil || e > 1<<62 || e < -(1<<62) {
			return d, false
		}
		d.exp = e
	}
	digits := strings.TrimLeft(whole+frac, "0")
	d.exp -= int64(len(frac))
	trimmed := strings.TrimRight(digits, "0")
	d.exp += int64(len(digits) - len(trimmed))
	if d.digits = trimmed; trimmed == "" {
		return decimal{digits: "0"}, true
	}
	return d, true
}

// ValidateSkillName checks a skill name against the Agent Skills naming
// rules: 1 to 64 characters, lowercase letters a-z, digits and hyphens,
// neither beginning nor ending with a hyphen, without two hyphens in a
// row.
func ValidateSkillName(name string) error {
	switch {
	case name == "":
		return errors.New("mcp: the skill name is empty")
	case len(name) > MaxSkillNameLength:
		return fmt.Errorf("mcp: the skill name %q is longer than %d characters", clipURI(name), MaxSkillNameLength)
	case name[0] == '-' || name[len(name)-1] == '-':
		return fmt.Errorf("mcp: the skill name %q begins or ends with a hyphen", name)
	case strings.Contains(name, "--"):
		return fmt.Errorf("mcp: the skill name %q has two hyphens in a row", name)
	}
	for _, c := range []byte(name) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return fmt.Errorf("mcp: the skill name %q has characters other than a-z, 0-9 and -", strings.ToValidUTF8(name, "?"))
		}
	}
	return nil
}

// Check checks the frontmatter against the Agent Skills specification:
// name (see ValidateSkillName) and description (1 to 1024 characters)
// are strings; license, if present, a string; compatibility, if present,
// 1 to 500 characters; metadata, if present, an object of strings;
// allowed-tools, if present, a string. Other fields pass.
func (f SkillFrontmatter) Check() error {
	name, ok := f.String("name")
	if !ok {
		return errors.New("mcp: the frontmatter has no name (a string)")
	}
	if err := ValidateSkillName(name); err != nil {
		return err
	}
	desc, ok := f.String("description")
	if n := utf8.RuneCountInString(desc); !ok || n == 0 || n > MaxSkillDescriptionLength {
		return fmt.Errorf("mcp: the frontmatter's description must be a string of 1 to %d characters", MaxSkillDescriptionLength)
	}
	for _, field := range []string{"license", "allowed-tools"} {
		if _, present := f[field]; present {
			if _, ok := f.String(field); !ok {
				return fmt.Errorf("mcp: the frontmatter's %s must be a string", field)
			}
		}
	}
	if _, present := f["compatibility"]; present {
		c, ok := f.String("compatibility")
		if n := utf8.RuneCountInString(c); !ok || n == 0 || n > MaxSkillCompatibilityLength {
			return fmt.Errorf("mcp: the frontmatter's compatibility must be a string of 1 to %d characters", MaxSkillCompatibilityLength)
		}
	}
	if raw, present := f["metadata"]; present {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil || m == nil {
			return errors.New("mcp: the frontmatter's metadata must be a mapping of strings to strings")
		}
		for k, v := range m {
			if _, ok := rawString(v); !ok {
				return fmt.Errorf("mcp: the frontmatter's metadata %q is not a string", k)
			}
		}
	}
	return nil
}

// SkillDigest returns the digest of a skill file's raw bytes, as entries
// carry it: "sha256:" then 64 lowercase hexadecimal digits.
func SkillDigest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// ValidSkillDigest reports whether d has the form of SkillDigest.
func ValidSkillDigest(d string) bool {
	h, ok := strings.CutPrefix(d, "sha256:")
	return ok && len(h) == 64 && strings.Trim(h, "0123456789abcdef") == ""
}

// SplitSkillURI splits the URI of a skill's SKILL.md,
// <scheme>://<skill-path>/SKILL.md, into the skill's directory URI (the
// URI without /SKILL.md) and its name (the last segment of skill-path),
// which it checks against the naming rules. It refuses a URI whose path
// could lead elsewhere once resolved: empty, "." or ".." segments, a
// query or fragment, backslashes and percent-encoded dots, slashes and
// backslashes.
func SplitSkillURI(uri string) (dir, name string, err error) {
	scheme, rest, ok := strings.Cut(uri, "://")
	if !ok || !validScheme(scheme) {
		return "", "", fmt.Errorf("mcp: the skill URI %q is not of the form scheme://skill-path/SKILL.md", clipURI(uri))
	}
	segs := strings.Split(rest, "/")
	if len(segs) < 2 || segs[len(segs)-1] != SkillFile {
		return "", "", fmt.Errorf("mcp: the skill URI %q does not end in /%s after a skill path", clipURI(uri), SkillFile)
	}
	if err := safePath(segs); err != nil {
		return "", "", fmt.Errorf("mcp: the skill URI %q: %w", clipURI(uri), err)
	}
	name = segs[len(segs)-2]
	if err := ValidateSkillName(name); err != nil {
		return "", "", fmt.Errorf("mcp: the skill URI %q: %w", clipURI(uri), err)
	}
	return strings.TrimSuffix(uri, "/"+SkillFile), name, nil
}

// validScheme reports whether s is a URI scheme: a letter, then letters,
// digits, +, - and .
func validScheme(s string) bool {
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	return strings.Trim(strings.ToLower(s), "abcdefghijklmnopqrstuvwxyz0123456789+-.") == ""
}

// ValidateSkillFilePath checks the path of a skill's file in its URI,
// after the skill's directory ("references/FORMS.md"): segments neither
// empty, "." nor "..", without a query, fragment, backslash, space or
// control character, nor a percent-encoded dot, slash, backslash or NUL.
// A host that keeps skills on disk can join such a path to a directory
// without leaving it.
func ValidateSkillFilePath(rel string) error {
	if err := safePath(strings.Split(rel, "/")); err != nil {
		return fmt.Errorf("mcp: the skill file path %q: %w", clipURI(rel), err)
	}
	return nil
}

// safePath checks the segments of a URI's path (after "scheme://").
func safePath(segs []string) error {
	for _, s := range segs {
		switch {
		case s == "":
			return errors.New("an empty path segment")
		case s == "." || s == "..":
			return fmt.Errorf("a %q path segment", s)
		case strings.ContainsAny(s, "?#\\"):
			return errors.New("a query, a fragment or a backslash")
		}
		for _, enc := range []string{"%2e", "%2f", "%5c", "%00"} {
			if strings.Contains(strings.ToLower(s), enc) {
				return fmt.Errorf("a percent-encoded dot, slash, backslash or NUL (%s)", enc)
			}
		}
		for _, c := range []byte(s) {
			if c < 0x21 || c == 0x7f {
				return errors.New("a space or control character (percent-encode it)")
			}
		}
	}
	return nil
}

// Validate checks the entry as a host must before it loads the skill: a
// skill URI (SplitSkillURI) whose name is the frontmatter's name; a
// description; and, unless the skill is dynamic, a complete manifest:
// its SKILL.md listed, every file under the skill's directory with a
// safe path, once, with a well-formed digest and size, at most
// MaxSkillResources files of MaxSkillBytes in all. The error says what is
// wrong, naming the file.
func (s *Skill) Validate() error {
	dir, name, err := SplitSkillURI(s.URI)
	if err != nil {
		return err
	}
	if got, ok := s.Frontmatter.String("name"); !ok || got != name {
		return fmt.Errorf("mcp: the skill %s: its frontmatter's name %s is not %q, the last segment of its skill path", s.URI, quoteField(s.Frontmatter, "name"), name)
	}
	if d, ok := s.Frontmatter.String("description"); !ok || d == "" {
		return fmt.Errorf("mcp: the skill %s: its frontmatter has no description", s.URI)
	}
	if s.Dynamic {
		return nil
	}
	if s.Resources == nil {
		return fmt.Errorf("mcp: the skill %s: the entry has no resources (neither a manifest nor \"dynamic\")", s.URI)
	}
	if len(s.Resources) > MaxSkillResources {
		return fmt.Errorf("mcp: the skill %s has %d files, more than the %d a host must accept", s.URI, len(s.Resources), MaxSkillResources)
	}
	seen := make(map[string]bool, len(s.Resources))
	var total int64
	for _, r := range s.Resources {
		if r.URI != s.URI {
			rel, ok := strings.CutPrefix(r.URI, dir+"/")
			if !ok {
				return fmt.Errorf("mcp: the skill %s lists %s, which is not in its directory %s", s.URI, clipURI(r.URI), dir)
			}
			if err := safePath(strings.Split(rel, "/")); err != nil {
				return fmt.Errorf("mcp: the skill %s lists %s: %w", s.URI, clipURI(r.URI), err)
			}
		}
		if seen[r.URI] {
			return fmt.Errorf("mcp: the skill %s lists %s twice", s.URI, clipURI(r.URI))
		}
		seen[r.URI] = true
		if !ValidSkillDigest(r.Digest) {
			return fmt.Errorf("mcp: the skill %s: the digest of %s, %q, is not sha256: and 64 lowercase hexadecimal digits", s.URI, clipURI(r.URI), clipURI(r.Digest))
		}
		if r.Size < 0 || r.Size > MaxSkillBytes-total {
			return fmt.Errorf("mcp: the skill %s is larger than %d bytes, the most a host must accept", s.URI, MaxSkillBytes)
		}
		total += r.Size
	}
	if !seen[s.URI] {
		return fmt.Errorf("mcp: the skill %s does not list its own %s", s.URI, SkillFile)
	}
	return nil
}

// quoteField returns a field's JSON for a message, bounded.
func quoteField(f SkillFrontmatter, field string) string {
	raw, ok := f[field]
	if !ok {
		return "(absent)"
	}
	return clipURI(string(raw))
}
