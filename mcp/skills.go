package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// The Skills extension (SEP-2640, io.modelcontextprotocol/skills,
// specification/stable/skills.mdx of modelcontextprotocol/ext-skills):
// a server serves Agent Skills (https://agentskills.io), directories of
// files with a SKILL.md at their root, as resources, conventionally
// skill://<skill-path>/<file-path>. skills/list enumerates the skills,
// skills/get returns one skill's entry by the URI of its SKILL.md, and,
// when the server declares directoryRead, resources/directory/read lists
// a directory. An entry carries the skill's frontmatter and the manifest
// of its files with their SHA-256 digests and sizes, against which a
// host verifies every file it reads.
//
// The extension is defined on the 2026-07-28 base protocol; mcpwire
// serves and speaks it in the legacy sessions too, where results carry no
// cache fields (ttlMs, cacheScope, resultType), as every other result.

// ExtensionSkills names the skills extension, declared in the server's
// extensions capability (settings: SkillsCapability).
const ExtensionSkills = "io.modelcontextprotocol/skills"

// Methods of the skills extension.
const (
	MethodListSkills    = "skills/list"
	MethodGetSkill      = "skills/get"
	MethodReadDirectory = "resources/directory/read"
)

// Names and limits of the skills extension.
const (
	// SkillFile is the file at the root of every skill, whose URI is the
	// skill's.
	SkillFile = "SKILL.md"
	// SkillScheme is the URI scheme servers should serve skills under.
	SkillScheme = "skill"
	// SkillResourcesDynamic is the resources of an entry whose content is
	// generated, so that no digests can be published.
	SkillResourcesDynamic = "dynamic"
	// MimeTypeDirectory is the MIME type of a directory resource.
	MimeTypeDirectory = "inode/directory"
	// MimeTypeMarkdown is the MIME type of SKILL.md.
	MimeTypeMarkdown = "text/markdown"
	// SkillsMetaPrefix is the _meta key prefix reserved for the extension
	// on skill resources.
	SkillsMetaPrefix = "io.modelcontextprotocol.skills/"
	// ReservedMetadataPrefix is the prefix of the keys of a frontmatter's
	// metadata reserved for MCP extensions.
	ReservedMetadataPrefix = "io.modelcontextprotocol/"

	// MaxSkillResources is the most files a skill may have, SKILL.md
	// included, that every host must accept.
	MaxSkillResources = 512
	// MaxSkillBytes is the largest total size of a skill's files that
	// every host must accept: 16 MiB.
	MaxSkillBytes = 16 << 20

	// MaxSkillNameLength, MaxSkillDescriptionLength and
	// MaxSkillCompatibilityLength are the Agent Skills specification's
	// bounds, in characters.
	MaxSkillNameLength          = 64
	MaxSkillDescriptionLength   = 1024
	MaxSkillCompatibilityLength = 500
)

// SkillsCapability is the server's settings of the skills extension, the
// value of capabilities.extensions["io.modelcontextprotocol/skills"]: {}
// declares skills/list and skills/get.
type SkillsCapability struct {
	// DirectoryRead: the server answers resources/directory/read.
	DirectoryRead bool `json:"directoryRead,omitempty"`
}

// Skills returns the settings of the skills extension the server
// declared, and whether it declared the extension. Settings that are not
// an object read as none.
func (c ServerCapabilities) Skills() (SkillsCapability, bool) {
	raw, ok := c.Extensions[ExtensionSkills]
	if !ok {
		return SkillsCapability{}, false
	}
	var s SkillsCapability
	if v, found, err := findMember(raw, "directoryRead"); err == nil && found {
		s.DirectoryRead = bytes.Equal(bytes.TrimSpace(v), []byte("true"))
	}
	return s, true
}

// A SkillResource is one file of a skill, with the digest and size of its
// content.
type SkillResource struct {
	// URI is the file's resource URI, under the skill's directory.
	URI string `json:"uri"`
	// Digest is the SHA-256 of the file's raw bytes, "sha256:" then 64
	// lowercase hexadecimal digits (SkillDigest).
	Digest string `json:"digest"`
	// Size is the length of the file's raw bytes.
	Size int64 `json:"size"`
}

// UnmarshalJSON implements json.Unmarshaler, case-sensitively; uri,
// digest and size are required.
func (r *SkillResource) UnmarshalJSON(data []byte) error {
	*r = SkillResource{}
	var has [3]bool
	err := eachMember(data, func(key []byte, escaped bool, v []byte) (bool, error) {
		var err error
		switch {
		case keyIs(key, escaped, "uri"):
			r.URI, err = unquoteMember("skill resource", "uri", v)
			has[0] = true
		case keyIs(key, escaped, "digest"):
			r.Digest, err = unquoteMember("skill resource", "digest", v)
			has[1] = true
		case keyIs(key, escaped, "size"):
			if err = json.Unmarshal(v, &r.Size); err != nil || r.Size < 0 {
				err = fieldError("skill resource", "size", "a non-negative integer")
			}
			has[2] = true
		}
		return err != nil, err
	})
	if err == nil && isNull(data) {
		err = errNotObject
	}
	for i, name := range []string{"uri", "digest", "size"} {
		if err == nil && !has[i] {
			err = fmt.Errorf("mcp: a skill resource without %q", name)
		}
	}
	return err
}

// A Skill is the entry of one skill, as skills/list and skills/get
// return it: the URI of its SKILL.md, its frontmatter, and the manifest
// of its files. Validate checks it as a host must before loading it.
type Skill struct {
	// URI is the resource URI of the skill's SKILL.md:
	// skill://<skill-path>/SKILL.md, whose last path segment is the
	// skill's name.
	URI string
	// Frontmatter is the SKILL.md's YAML frontmatter, as JSON.
	Frontmatter SkillFrontmatter
	// Resources lists every file of the skill, SKILL.md included, each
	// once, when Dynamic is false. It is nil when the entry had no
	// resources, which makes it invalid.
	Resources []SkillResource
	// Dynamic reports that the skill's content is generated, so that it
	// has no manifest ("resources": "dynamic").
	Dynamic bool
}

// MarshalJSON implements json.Marshaler.
func (s Skill) MarshalJSON() ([]byte, error) {
	fm := s.Frontmatter
	if fm == nil {
		fm = SkillFrontmatter{}
	}
	var res any = s.Resources
	switch {
	case s.Dynamic:
		res = SkillResourcesDynamic
	case s.Resources == nil:
		res = []SkillResource{}
	}
	return json.Marshal(struct {
		URI         string           `json:"uri"`
		Frontmatter SkillFrontmatter `json:"frontmatter"`
		Resources   any              `json:"resources"`
	}{s.URI, fm, res})
}

// UnmarshalJSON implements json.Unmarshaler, case-sensitively: uri and
// frontmatter are required; resources, an array or "dynamic", may be
// missing (the entry is then invalid: see Validate).
func (s *Skill) UnmarshalJSON(data []byte) error {
	*s = Skill{}
	var hasURI bool
	err := eachMember(data, func(key []byte, escaped bool, v []byte) (bool, error) {
		var err error
		switch {
		case keyIs(key, escaped, "uri"):
			s.URI, err = unquoteMember("skill", "uri", v)
			hasURI = true
		case keyIs(key, escaped, "frontmatter"):
			err = s.Frontmatter.UnmarshalJSON(v)
		case keyIs(key, escaped, "resources"):
			switch firstByte(v) {
			case '"':
				if str, ok := rawString(v); !ok || str != SkillResourcesDynamic {
					err = fieldError("skill", "resources", `an array or "dynamic"`)
				}
				s.Dynamic = true
			case '[':
				s.Resources = []SkillResource{}
				err = eachElement(v, func(elem []byte) error {
					var r SkillResource
					if err := r.UnmarshalJSON(elem); err != nil {
						return err
					}
					s.Resources = append(s.Resources, r)
					return nil
				})
			default:
				err = fieldError("skill", "resources", `an array or "dynamic"`)
			}
		}
		return err != nil, err
	})
	switch {
	case err != nil:
		return err
	case isNull(data):
		return errNotObject
	case !hasURI:
		return fmt.Errorf(`mcp: a skill without "uri"`)
	case s.Frontmatter == nil:
		return fmt.Errorf(`mcp: the skill %s has no "frontmatter"`, s.URI)
	}
	return nil
}

// Clone returns a deep copy of the entry: its frontmatter and manifest
// are its own.
func (s *Skill) Clone() Skill {
	c := *s
	if s.Frontmatter != nil {
		c.Frontmatter = make(SkillFrontmatter, len(s.Frontmatter))
		for k, v := range s.Frontmatter {
			c.Frontmatter[k] = slices.Clone(v)
		}
	}
	if s.Resources != nil {
		c.Resources = slices.Clone(s.Resources)
	}
	return c
}

// Resource returns the entry of the skill's file named by uri, and
// whether the manifest lists it.
func (s *Skill) Resource(uri string) (SkillResource, bool) {
	i := slices.IndexFunc(s.Resources, func(r SkillResource) bool { return r.URI == uri })
	if i < 0 {
		return SkillResource{}, false
	}
	return s.Resources[i], true
}

// ListSkillsParams are the params of skills/list.
type ListSkillsParams struct {
	Cursor Cursor      `json:"cursor,omitempty"`
	Meta   RequestMeta `json:"_meta,omitzero"`
}

// ListSkillsResult answers skills/list: one page of entries. It is
// cacheable in the modern era.
type ListSkillsResult struct {
	Skills     []Skill    `json:"skills"`
	NextCursor Cursor     `json:"nextCursor,omitempty"`
	TTLMs      *int64     `json:"ttlMs,omitempty"`
	CacheScope CacheScope `json:"cacheScope,omitempty"`
	Meta       Meta       `json:"_meta,omitempty"`
	ResultType ResultType `json:"resultType,omitempty"`
}

// MarshalJSON implements json.Marshaler, writing skills as [] when empty.
func (r ListSkillsResult) MarshalJSON() ([]byte, error) {
	type plain ListSkillsResult
	if r.Skills == nil {
		r.Skills = []Skill{}
	}
	return json.Marshal(plain(r))
}

// GetSkillParams are the params of skills/get.
type GetSkillParams struct {
	// URI is the URI of the skill's SKILL.md.
	URI  string      `json:"uri"`
	Meta RequestMeta `json:"_meta,omitzero"`
}

// GetSkillResult answers skills/get. It is cacheable in the modern era.
type GetSkillResult struct {
	Skill      Skill      `json:"skill"`
	TTLMs      *int64     `json:"ttlMs,omitempty"`
	CacheScope CacheScope `json:"cacheScope,omitempty"`
	Meta       Meta       `json:"_meta,omitempty"`
	ResultType ResultType `json:"resultType,omitempty"`
}

// ReadDirectoryParams are the params of resources/directory/read.
type ReadDirectoryParams struct {
	// URI is the directory's URI, without a trailing slash.
	URI    string      `json:"uri"`
	Cursor Cursor      `json:"cursor,omitempty"`
	Meta   RequestMeta `json:"_meta,omitzero"`
}

// ReadDirectoryResult answers resources/directory/read: one page of the
// directory's direct children, files with their resource metadata and
// subdirectories with MimeTypeDirectory.
type ReadDirectoryResult struct {
	Resources  []Resource `json:"resources"`
	NextCursor Cursor     `json:"nextCursor,omitempty"`
	Meta       Meta       `json:"_meta,omitempty"`
	ResultType ResultType `json:"resultType,omitempty"`
}

// MarshalJSON implements json.Marshaler, writing resources as [] when
// empty.
func (r ReadDirectoryResult) MarshalJSON() ([]byte, error) {
	type plain ReadDirectoryResult
	if r.Resources == nil {
		r.Resources = []Resource{}
	}
	return json.Marshal(plain(r))
}

// UnknownSkillError reports that no skill is served at uri: -32602 in
// both eras. It carries no data: the URI may well be a resource, only not
// a skill's (IsResourceNotFound is false for it).
func UnknownSkillError(uri string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "No skill is served at "+clipURI(uri))
}

// NotDirectoryError reports that uri is not a directory resource the
// server serves (none, or a file): -32602 in both eras.
func NotDirectoryError(uri string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidParams, clipURI(uri)+" is not a directory resource")
}

// clipURI bounds a URI quoted in an error message.
func clipURI(uri string) string {
	const max = 200
	if len(uri) <= max {
		return uri
	}
	return uri[:max] + "..."
}
