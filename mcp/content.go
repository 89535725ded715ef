package mcp

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Content blocks follow schema/2025-11-25 (ContentBlock and
// SamplingMessageContentBlock); 2026-07-28 has the same shapes.

// The values of the "type" member of content blocks.
const (
	ContentTypeText         = "text"
	ContentTypeImage        = "image"
	ContentTypeAudio        = "audio"         // 2025-03-26 on
	ContentTypeResourceLink = "resource_link" // 2025-06-18 on
	ContentTypeResource     = "resource"
	ContentTypeToolUse      = "tool_use"    // sampling, 2025-11-25 on
	ContentTypeToolResult   = "tool_result" // sampling, 2025-11-25 on
)

// Content is a content block: one of *TextContent, *ImageContent,
// *AudioContent, *ResourceLink, *EmbeddedResource, and in sampling
// messages *ToolUseContent and *ToolResultContent. The set is closed.
//
// On the wire a block is an object whose "type" member names its kind;
// the Go types carry no Type field, their MarshalJSON writes it.
// Decoding dispatches on "type" and rejects unknown kinds, and kinds not
// allowed where the block appears (tool_use in a tool result, say).
type Content interface {
	// Type returns the kind of the block, one of the ContentType constants.
	Type() string
	isContent()
}

// Role is the speaker of a message, or an intended audience.
type Role string

// The roles.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Annotations tell the client how to use or show an object.
type Annotations struct {
	// Audience lists who the data is for ("user", "assistant").
	Audience []Role `json:"audience,omitempty"`
	// Priority ranks importance from 0 (optional) to 1 (required).
	Priority *float64 `json:"priority,omitempty"`
	// LastModified is an ISO 8601 timestamp, kept as sent (2025-06-18 on).
	LastModified string `json:"lastModified,omitempty"`
}

// TextContent is text for or from a model.
type TextContent struct {
	Text        string       `json:"text"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

// ImageContent is an image for or from a model.
//
// Data is the base64 text as on the wire, not decoded bytes: a relay
// passes it on untouched, a client hands it to a model API that wants
// base64 anyway, and a peer's sloppy padding cannot fail the decoding of
// a whole result. Build one from bytes with NewImageContent; read the
// bytes with Bytes.
type ImageContent struct {
	Data        string       `json:"data"`
	MimeType    string       `json:"mimeType"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

// AudioContent is audio for or from a model (2025-03-26 on). Data is
// base64 text, as in ImageContent.
type AudioContent struct {
	Data        string       `json:"data"`
	MimeType    string       `json:"mimeType"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

// ResourceLink points at a resource the client may read (2025-06-18 on).
// It has every field of Resource.
type ResourceLink struct {
	Resource
}

// EmbeddedResource carries the contents of a resource inline.
type EmbeddedResource struct {
	Resource    ResourceContents `json:"resource"`
	Annotations *Annotations     `json:"annotations,omitempty"`
	Meta        Meta             `json:"_meta,omitempty"`
}

// ToolUseContent is a model's request to call a tool, in sampling
// (2025-11-25 on).
type ToolUseContent struct {
	// ID matches the ToolResultContent that answers this use.
	ID   string `json:"id"`
	Name string `json:"name"`
	// Input holds the tool arguments, a JSON object kept verbatim; nil is
	// written as {}.
	Input json.RawMessage `json:"input"`
	Meta  Meta            `json:"_meta,omitempty"`
}

// ToolResultContent answers a ToolUseContent, in sampling (2025-11-25 on).
type ToolResultContent struct {
	ToolUseID string `json:"toolUseId"`
	// Content is the unstructured result, like CallToolResult.Content.
	Content ContentList `json:"content"`
	// StructuredContent is the structured result, kept verbatim.
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	Meta              Meta            `json:"_meta,omitempty"`
}

func (*TextContent) isContent()       {}
func (*ImageContent) isContent()      {}
func (*AudioContent) isContent()      {}
func (*ResourceLink) isContent()      {}
func (*EmbeddedResource) isContent()  {}
func (*ToolUseContent) isContent()    {}
func (*ToolResultContent) isContent() {}

// Type returns "text".
func (*TextContent) Type() string { return ContentTypeText }

// Type returns "image".
func (*ImageContent) Type() string { return ContentTypeImage }

// Type returns "audio".
func (*AudioContent) Type() string { return ContentTypeAudio }

// Type returns "resource_link".
func (*ResourceLink) Type() string { return ContentTypeResourceLink }

// Type returns "resource".
func (*EmbeddedResource) Type() string { return ContentTypeResource }

// Type returns "tool_use".
func (*ToolUseContent) Type() string { return ContentTypeToolUse }

// Type returns "tool_result".
func (*ToolResultContent) Type() string { return ContentTypeToolResult }

// typed marshals v, which has no type member, after a leading "type".
func typed(kind string, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(b)+len(kind)+12)
	out = append(out, `{"type":"`...)
	out = append(out, kind...)
	out = append(out, '"')
	if len(b) > 2 {
		out = append(out, ',')
	}
	return append(out, b[1:]...), nil
}

// MarshalJSON implements json.Marshaler.
func (c TextContent) MarshalJSON() ([]byte, error) {
	return c.AppendJSON(make([]byte, 0, len(c.Text)+24))
}

// MarshalJSON implements json.Marshaler.
func (c ImageContent) MarshalJSON() ([]byte, error) {
	type plain ImageContent
	return typed(ContentTypeImage, plain(c))
}

// MarshalJSON implements json.Marshaler.
func (c AudioContent) MarshalJSON() ([]byte, error) {
	type plain AudioContent
	return typed(ContentTypeAudio, plain(c))
}

// MarshalJSON implements json.Marshaler.
func (c ResourceLink) MarshalJSON() ([]byte, error) {
	type plain Resource
	return typed(ContentTypeResourceLink, plain(c.Resource))
}

// MarshalJSON implements json.Marshaler.
func (c EmbeddedResource) MarshalJSON() ([]byte, error) {
	type plain EmbeddedResource
	return typed(ContentTypeResource, plain(c))
}

// MarshalJSON implements json.Marshaler.
func (c ToolUseContent) MarshalJSON() ([]byte, error) {
	type plain ToolUseContent
	if len(c.Input) == 0 {
		c.Input = json.RawMessage("{}")
	}
	return typed(ContentTypeToolUse, plain(c))
}

// MarshalJSON implements json.Marshaler.
func (c ToolResultContent) MarshalJSON() ([]byte, error) {
	type plain ToolResultContent
	return typed(ContentTypeToolResult, plain(c))
}

// NewImageContent returns an image block holding data, base64-encoded.
func NewImageContent(data []byte, mimeType string) *ImageContent {
	return &ImageContent{Data: base64.StdEncoding.EncodeToString(data), MimeType: mimeType}
}

// NewAudioContent returns an audio block holding data, base64-encoded.
func NewAudioContent(data []byte, mimeType string) *AudioContent {
	return &AudioContent{Data: base64.StdEncoding.EncodeToString(data), MimeType: mimeType}
}

// Bytes decodes the image data (see DecodeBase64).
func (c *ImageContent) Bytes() ([]byte, error) { return DecodeBase64(c.Data) }

// Bytes decodes the audio data (see DecodeBase64).
func (c *AudioContent) Bytes() ([]byte, error) { return DecodeBase64(c.Data) }

// DecodeBase64 decodes base64 data as peers send it: the standard
// alphabet with or without padding, or the URL-safe alphabet.
func DecodeBase64(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding,
		base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, errors.New("mcp: invalid base64 data")
}

// contentKinds is a set of content types allowed in one place.
type contentKinds uint8

const (
	kindText contentKinds = 1 << iota
	kindImage
	kindAudio
	kindResourceLink
	kindResource
	kindToolUse
	kindToolResult

	// blockKinds: ContentBlock (tool results, prompts, tool_result content).
	blockKinds = kindText | kindImage | kindAudio | kindResourceLink | kindResource
	// samplingKinds: SamplingMessageContentBlock.
	samplingKinds = kindText | kindImage | kindAudio | kindToolUse | kindToolResult
	allKinds      = blockKinds | samplingKinds
)

// UnmarshalContent decodes one content block of any kind.
func UnmarshalContent(data []byte) (Content, error) {
	if !json.Valid(data) {
		return nil, errors.New("mcp: content block: invalid JSON")
	}
	return decodeContent(data, allKinds, "")
}

// contentTypes are the known block types, so that reading one does not
// allocate.
var contentTypes = [...]string{ContentTypeText, ContentTypeImage, ContentTypeAudio,
	ContentTypeResourceLink, ContentTypeResource, ContentTypeToolUse, ContentTypeToolResult}

// decodeContent decodes one block of valid JSON (as an UnmarshalJSON
// method receives it), allowing only the kinds in allowed; where names the
// place for error messages.
func decodeContent(data []byte, allowed contentKinds, where string) (Content, error) {
	raw, found, err := findMember(data, "type")
	if err != nil {
		return nil, fmt.Errorf("mcp: content block: %w", err)
	}
	if !found {
		return nil, errors.New(`mcp: content block has no "type"`)
	}
	kind, ok := internRaw(raw, contentTypes[:])
	if !ok {
		return nil, errors.New(`mcp: content block "type" must be a string`)
	}
	var (
		c   Content
		bit contentKinds
	)
	switch kind {
	case ContentTypeText:
		c, bit = new(TextContent), kindText
	case ContentTypeImage:
		c, bit = new(ImageContent), kindImage
	case ContentTypeAudio:
		c, bit = new(AudioContent), kindAudio
	case ContentTypeResourceLink:
		c, bit = new(ResourceLink), kindResourceLink
	case ContentTypeResource:
		c, bit = new(EmbeddedResource), kindResource
	case ContentTypeToolUse:
		c, bit = new(ToolUseContent), kindToolUse
	case ContentTypeToolResult:
		c, bit = new(ToolResultContent), kindToolResult
	default:
		return nil, fmt.Errorf("mcp: unknown content type %q", kind)
	}
	if allowed&bit == 0 {
		return nil, fmt.Errorf("mcp: content type %q is not allowed in %s", kind, where)
	}
	if u, ok := c.(json.Unmarshaler); ok {
		// A hand-written decoder (text): data is valid, as encoding/json
		// would check first.
		err = u.UnmarshalJSON(data)
	} else {
		err = json.Unmarshal(data, c)
	}
	if err != nil {
		return nil, fmt.Errorf("mcp: %s content: %w", kind, err)
	}
	return c, nil
}

// ContentList is a list of content blocks (the schema's ContentBlock[]),
// as in CallToolResult.Content. It is a []Content with JSON methods:
// assign a []Content to it and range over it as usual. An empty list is
// written [] (never null); decoding allows text, image, audio,
// resource_link and resource blocks.
type ContentList []Content

// MarshalJSON implements json.Marshaler.
func (l ContentList) MarshalJSON() ([]byte, error) {
	return appendContents(nil, l)
}

// UnmarshalJSON implements json.Unmarshaler.
func (l *ContentList) UnmarshalJSON(data []byte) error {
	list, err := decodeContents(data, blockKinds, "a content list")
	*l = list
	return err
}

// Text returns the text of the list's text blocks, joined by newlines:
// "" when it has none.
func (l ContentList) Text() string {
	var b strings.Builder
	n := 0
	for _, c := range l {
		if t, ok := c.(*TextContent); ok {
			if n > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(t.Text)
			n++
		}
	}
	return b.String()
}

func appendContents(b []byte, list []Content) ([]byte, error) {
	b = append(b, '[')
	for i, c := range list {
		if c == nil {
			return nil, fmt.Errorf("mcp: content block %d is nil", i)
		}
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendContent(b, c); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

func decodeContents(data []byte, allowed contentKinds, where string) ([]Content, error) {
	var list []Content
	err := eachElement(data, func(elem []byte) error {
		c, err := decodeContent(elem, allowed, where)
		if err != nil {
			return err
		}
		list = append(list, c)
		return nil
	})
	return list, err
}

// SamplingContent is the content of a sampling message: one block or
// several (2025-11-25 allows an array; earlier revisions a single block).
// It decodes either form. It encodes exactly one block as a single
// object, the form every revision accepts, and any other number of blocks
// as an array. Decoding allows text, image, audio, tool_use and
// tool_result blocks.
type SamplingContent []Content

// MarshalJSON implements json.Marshaler.
func (s SamplingContent) MarshalJSON() ([]byte, error) {
	if len(s) == 1 {
		if s[0] == nil {
			return nil, errors.New("mcp: sampling content block is nil")
		}
		return json.Marshal(s[0])
	}
	return appendContents(nil, s)
}

// UnmarshalJSON implements json.Unmarshaler.
func (s *SamplingContent) UnmarshalJSON(data []byte) error {
	if firstByte(data) == '{' {
		c, err := decodeContent(data, samplingKinds, "sampling content")
		if err != nil {
			return err
		}
		*s = SamplingContent{c}
		return nil
	}
	list, err := decodeContents(data, samplingKinds, "sampling content")
	*s = list
	return err
}
