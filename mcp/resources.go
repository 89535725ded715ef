package mcp

import (
	"encoding/base64"
	"encoding/json"
)

// Resources follow schema/2025-11-25, with the 2026-07-28 additions
// (cacheable results, input responses on resources/read).

// Resource is a resource the server can read, as listed by resources/list.
type Resource struct {
	URI string `json:"uri"`
	// Name identifies the resource; Title is its display name.
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
	// Size is the raw size in bytes (before base64), if known.
	Size        *int64       `json:"size,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Icons       []Icon       `json:"icons,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

// ResourceTemplate describes a family of resources by an RFC 6570 URI
// template, as listed by resources/templates/list.
type ResourceTemplate struct {
	URITemplate string       `json:"uriTemplate"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	MimeType    string       `json:"mimeType,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Icons       []Icon       `json:"icons,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

// ResourceContents is the contents of a resource: text
// (TextResourceContents) or binary (BlobResourceContents).
//
// Blob is the base64 text as on the wire, for the reasons given at
// ImageContent; build binary contents with NewBlobContents and read them
// with Bytes. When Blob is set the contents are binary and "blob" is
// written; otherwise they are text and "text" is written, even when
// empty, as the schema requires. (Empty binary contents are therefore
// written as empty text.)
type ResourceContents struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType,omitempty"`
	Text     string `json:"text"`
	Blob     string `json:"blob"`
	Meta     Meta   `json:"_meta,omitempty"`
}

// NewBlobContents returns binary contents holding data, base64-encoded.
func NewBlobContents(uri, mimeType string, data []byte) ResourceContents {
	return ResourceContents{URI: uri, MimeType: mimeType, Blob: base64.StdEncoding.EncodeToString(data)}
}

// IsBlob reports whether c holds binary contents.
func (c *ResourceContents) IsBlob() bool { return c.Blob != "" }

// Bytes returns the contents as bytes: the decoded blob, or the text.
func (c *ResourceContents) Bytes() ([]byte, error) {
	if c.Blob != "" {
		return DecodeBase64(c.Blob)
	}
	return []byte(c.Text), nil
}

// MarshalJSON implements json.Marshaler, writing exactly one of text and
// blob.
func (c ResourceContents) MarshalJSON() ([]byte, error) {
	if c.Blob != "" {
		return json.Marshal(struct {
			URI      string `json:"uri"`
			MimeType string `json:"mimeType,omitempty"`
			Blob     string `json:"blob"`
			Meta     Meta   `json:"_meta,omitempty"`
		}{c.URI, c.MimeType, c.Blob, c.Meta})
	}
	return json.Marshal(struct {
		URI      string `json:"uri"`
		MimeType string `json:"mimeType,omitempty"`
		Text     string `json:"text"`
		Meta     Meta   `json:"_meta,omitempty"`
	}{c.URI, c.MimeType, c.Text, c.Meta})
}

// ListResourcesParams are the params of resources/list.
type ListResourcesParams struct {
	Cursor Cursor      `json:"cursor,omitempty"`
	Meta   RequestMeta `json:"_meta,omitzero"`
}

// ListResourcesResult answers resources/list. It is cacheable in the
// modern era (see ListToolsResult).
type ListResourcesResult struct {
	Resources  []Resource `json:"resources"`
	NextCursor Cursor     `json:"nextCursor,omitempty"`
	TTLMs      *int64     `json:"ttlMs,omitempty"`
	CacheScope CacheScope `json:"cacheScope,omitempty"`
	Meta       Meta       `json:"_meta,omitempty"`
	ResultType ResultType `json:"resultType,omitempty"`
}

// MarshalJSON implements json.Marshaler, writing resources as [] when
// empty.
func (r ListResourcesResult) MarshalJSON() ([]byte, error) {
	type plain ListResourcesResult
	if r.Resources == nil {
		r.Resources = []Resource{}
	}
	return json.Marshal(plain(r))
}

// ListResourceTemplatesParams are the params of resources/templates/list.
type ListResourceTemplatesParams struct {
	Cursor Cursor      `json:"cursor,omitempty"`
	Meta   RequestMeta `json:"_meta,omitzero"`
}

// ListResourceTemplatesResult answers resources/templates/list. It is
// cacheable in the modern era (see ListToolsResult).
type ListResourceTemplatesResult struct {
	ResourceTemplates []ResourceTemplate `json:"resourceTemplates"`
	NextCursor        Cursor             `json:"nextCursor,omitempty"`
	TTLMs             *int64             `json:"ttlMs,omitempty"`
	CacheScope        CacheScope         `json:"cacheScope,omitempty"`
	Meta              Meta               `json:"_meta,omitempty"`
	ResultType        ResultType         `json:"resultType,omitempty"`
}

// MarshalJSON implements json.Marshaler, writing resourceTemplates as []
// when empty.
func (r ListResourceTemplatesResult) MarshalJSON() ([]byte, error) {
	type plain ListResourceTemplatesResult
	if r.ResourceTemplates == nil {
		r.ResourceTemplates = []ResourceTemplate{}
	}
	return json.Marshal(plain(r))
}

// ReadResourceParams are the params of resources/read. In the modern era a
// retry after an InputRequiredResult also carries InputResponses and the
// echoed RequestState.
type ReadResourceParams struct {
	URI            string         `json:"uri"`
	InputResponses InputResponses `json:"inputResponses,omitempty"`
	RequestState   string         `json:"requestState,omitempty"`
	Meta           RequestMeta    `json:"_meta,omitzero"`
}

// ReadResourceResult answers resources/read. It is cacheable in the modern
// era (see ListToolsResult). An unknown resource is an error
// (ResourceNotFoundError), never an empty Contents.
type ReadResourceResult struct {
	Contents   []ResourceContents `json:"contents"`
	TTLMs      *int64             `json:"ttlMs,omitempty"`
	CacheScope CacheScope         `json:"cacheScope,omitempty"`
	Meta       Meta               `json:"_meta,omitempty"`
	ResultType ResultType         `json:"resultType,omitempty"`
}

// MarshalJSON implements json.Marshaler, writing contents as [] when
// empty.
func (r ReadResourceResult) MarshalJSON() ([]byte, error) {
	type plain ReadResourceResult
	if r.Contents == nil {
		r.Contents = []ResourceContents{}
	}
	return json.Marshal(plain(r))
}

// SubscribeParams are the params of resources/subscribe (legacy era).
type SubscribeParams struct {
	URI  string      `json:"uri"`
	Meta RequestMeta `json:"_meta,omitzero"`
}

// UnsubscribeParams are the params of resources/unsubscribe (legacy era).
type UnsubscribeParams struct {
	URI  string      `json:"uri"`
	Meta RequestMeta `json:"_meta,omitzero"`
}

// ResourceUpdatedNotificationParams are the params of
// notifications/resources/updated. URI may name a sub-resource of the one
// subscribed to.
type ResourceUpdatedNotificationParams struct {
	URI  string `json:"uri"`
	Meta Meta   `json:"_meta,omitempty"`
}
