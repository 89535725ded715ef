package mcp

import (
	"bytes"
	"fmt"

	"github.com/mcpwire/mcpwire/internal/jsonscan"
)

// ResultType says how to read a result (2026-07-28): the final result of
// the method, an InputRequiredResult, or (tasks extension) a task. Legacy
// results have none; a receiver treats an absent resultType as complete.
type ResultType string

// The result types.
const (
	ResultTypeComplete      ResultType = "complete"
	ResultTypeInputRequired ResultType = "input_required"
	ResultTypeTask          ResultType = "task" // tasks extension: a DetailedTask
)

// resultTypes are the known result types, so that reading one does not
// allocate.
var resultTypes = [...]ResultType{ResultTypeComplete, ResultTypeInputRequired, ResultTypeTask}

// CacheScope says who may reuse a cacheable result (2026-07-28), like the
// public and private directives of HTTP Cache-Control.
type CacheScope string

// The cache scopes.
const (
	// CacheScopePublic: the result holds nothing user-specific; any cache,
	// shared gateways included, may serve it across authorization contexts.
	CacheScopePublic CacheScope = "public"
	// CacheScopePrivate: the result may be reused only within the same
	// authorization context.
	CacheScopePrivate CacheScope = "private"
)

// Cursor is an opaque pagination position. Clients pass back the
// nextCursor of one page to get the next, and never parse, build or keep
// cursors across sessions.
type Cursor string

// RequestParams are the params of requests that carry nothing but _meta:
// ping, roots/list.
type RequestParams struct {
	Meta RequestMeta `json:"_meta,omitzero"`
}

// NotificationParams are the params of notifications that carry nothing
// but _meta: notifications/initialized and the list_changed notifications.
type NotificationParams struct {
	Meta Meta `json:"_meta,omitempty"`
}

// EmptyResult is a result without content, written {} (or with resultType
// and _meta when set): the answer to ping, resources/subscribe,
// logging/setLevel, tasks/update, and the graceful end of
// subscriptions/listen.
type EmptyResult struct {
	Meta       Meta       `json:"_meta,omitempty"`
	ResultType ResultType `json:"resultType,omitempty"`
}

// ResultTypeOf returns the resultType of an encoded result object, or
// ResultTypeComplete when it has none (as legacy results never do).
func ResultTypeOf(result []byte) (ResultType, error) {
	v, found, err := findMember(result, "resultType")
	if err != nil || !found {
		return ResultTypeComplete, err
	}
	s, ok := internRaw(v, resultTypes[:])
	if !ok {
		return "", fmt.Errorf("mcp: resultType must be a string")
	}
	return s, nil
}

// AddDefaultMembers returns the encoded JSON object obj with every member
// of the encoded object defaults that obj lacks added in front; the _meta
// members of both are merged the same way, key by key. obj's own members
// always win. Neither input is modified.
//
// Engines use it to give handler results the members an era requires
// without touching the (possibly shared) result values: for a modern
// response, defaults is precomputed once, for example
//
//	{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{...}}}
//
// plus "ttlMs" and "cacheScope" for cacheable results.
func AddDefaultMembers(obj, defaults []byte) ([]byte, error) {
	return addMissing(obj, defaults, true)
}

func addMissing(obj, defaults []byte, mergeMeta bool) ([]byte, error) {
	obj = bytes.TrimSpace(obj)
	var (
		keys      [][]byte // obj's keys (raw)
		metaStart = -1     // offset of obj's _meta value
		metaEnd   int
	)
	err := eachMember(obj, func(key []byte, escaped bool, v []byte) (bool, error) {
		if mergeMeta && keyIs(key, escaped, "_meta") && firstByte(v) == '{' {
			metaStart = cap(obj) - cap(v)
			metaEnd = metaStart + len(v)
		}
		keys = append(keys, key)
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	if firstByte(obj) != '{' {
		return nil, errNotObject
	}
	has := func(k []byte) bool {
		for _, x := range keys {
			if bytes.Equal(x, k) {
				return true
			}
		}
		return false
	}
	var (
		add     []byte // members to insert, each followed by ','
		metaDef []byte // defaults' _meta, to merge into obj's
	)
	err = eachMember(defaults, func(key []byte, escaped bool, v []byte) (bool, error) {
		if mergeMeta && metaStart >= 0 && keyIs(key, escaped, "_meta") {
			metaDef = v
			return false, nil
		}
		if !has(key) {
			add = append(add, '"')
			add = append(add, key...)
			add = append(add, '"', ':')
			add = append(add, v...)
			add = append(add, ',')
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	if len(add) == 0 && metaDef == nil {
		return obj, nil
	}
	rest := obj[1:]
	if firstByte(rest) == '}' && len(add) > 0 {
		add = add[:len(add)-1] // obj is {}: no comma before its end
		rest = rest[jsonscan.SkipSpace(rest, 0):]
	}
	out := make([]byte, 0, len(obj)+len(add)+len(metaDef)+1)
	out = append(out, '{')
	out = append(out, add...)
	if metaDef == nil {
		return append(out, rest...), nil
	}
	meta, err := addMissing(obj[metaStart:metaEnd], metaDef, false)
	if err != nil {
		return nil, err
	}
	out = append(out, obj[1:metaStart]...)
	out = append(out, meta...)
	return append(out, obj[metaEnd:]...), nil
}
