package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
)

// The envelope of a modern request is the part of its _meta that a client
// sends unchanged with every request: the protocol version, the client's
// capabilities and its info. A client encodes it once (Envelope), a server
// decodes it once (EnvelopeCache).

// An Envelope is the part of a modern request's _meta that a client sends
// unchanged with every request: the protocol version, the client's
// capabilities and its info, encoded once. Stamp puts it in a request's
// RequestMeta; encoding that RequestMeta then copies the encoded members
// instead of writing them again. An Envelope is immutable and safe for
// concurrent use; the capabilities and info it was made from must not
// change afterwards.
type Envelope struct {
	link    envelopeLink // to itself
	version Version
	caps    *ClientCapabilities
	info    *Implementation
	raw     []byte // the three members, without braces
}

// NewEnvelope encodes the envelope of a client speaking revision v. Info
// may be nil (clientInfo is optional); caps may not.
func NewEnvelope(v Version, caps *ClientCapabilities, info *Implementation) (*Envelope, error) {
	if caps == nil {
		return nil, fmt.Errorf("mcp: an envelope needs the client capabilities")
	}
	m := RequestMeta{ProtocolVersion: v, ClientCapabilities: caps, ClientInfo: info}
	raw, err := m.appendJSON(nil)
	if err != nil {
		return nil, err
	}
	e := &Envelope{version: v, caps: caps, info: info, raw: raw[1 : len(raw)-1]}
	e.link.env = e
	return e, nil
}

// Version returns the envelope's protocol version.
func (e *Envelope) Version() Version { return e.version }

// Stamp fills in the envelope fields of m that are unset (the protocol
// version, capabilities and info), keeping those the caller set.
func (e *Envelope) Stamp(m *RequestMeta) {
	if m.ProtocolVersion == "" {
		m.ProtocolVersion = e.version
	}
	if m.ClientCapabilities == nil {
		m.ClientCapabilities = e.caps
	}
	if m.ClientInfo == nil {
		m.ClientInfo = e.info
	}
	m.link = &e.link
}

// envelopeLink ties a RequestMeta to the Envelope it was stamped with
// (for encoding it) or to the EnvelopeCache that its next decoding goes
// through: one field for both, which every params value carries.
type envelopeLink struct {
	env   *Envelope
	cache *EnvelopeCache
}

// envelope returns the Envelope m was stamped with, if its envelope fields
// are still the envelope's, so that its encoding stands for them.
func (m *RequestMeta) envelope() *Envelope {
	if m.link == nil {
		return nil
	}
	e := m.link.env
	if e == nil || m.ProtocolVersion != e.version || m.ClientCapabilities != e.caps || m.ClientInfo != e.info {
		return nil
	}
	return e
}

// An EnvelopeCache lets a server decode once the envelope that its
// clients send with every request: a request whose capabilities and
// client info are, byte for byte, those of the last envelope decoded
// through the cache gets the values decoded then, at no cost. Those values
// are shared between the requests: treat them as read-only, as a legacy
// session's capabilities and info are. The cache remembers one envelope,
// the last. Make one with NewEnvelopeCache; it is safe for concurrent use.
type EnvelopeCache struct {
	link envelopeLink // to itself
	last atomic.Pointer[envelopeStore]
}

// NewEnvelopeCache returns an empty cache.
func NewEnvelopeCache() *EnvelopeCache {
	c := new(EnvelopeCache)
	c.link.cache = c
	return c
}

// UseCache makes the next UnmarshalJSON of m decode the envelope through
// c (nil for none). UnmarshalJSON forgets c: set it before each decoding.
func (m *RequestMeta) UseCache(c *EnvelopeCache) {
	if c == nil {
		m.link = nil
		return
	}
	m.link = &c.link
}

// envelopeStore holds one decoded envelope, in one allocation, with the
// raw JSON it came from: raw[:infoAt] is the capabilities' JSON and
// raw[infoAt:] the client info's, which the info's strings slice.
type envelopeStore struct {
	caps             ClientCapabilities
	info             Implementation
	raw              string
	infoAt           int
	hasCaps, hasInfo bool
}

// matches reports whether the store holds the envelope of capsRaw and
// infoRaw (nil when absent).
func (e *envelopeStore) matches(capsRaw, infoRaw []byte) bool {
	return e.hasCaps == (capsRaw != nil) && e.hasInfo == (infoRaw != nil) &&
		string(capsRaw) == e.raw[:e.infoAt] && string(infoRaw) == e.raw[e.infoAt:]
}

// decodeEnvelope decodes the capabilities and client info of a request's
// _meta (raw JSON, nil when absent) into m, through cache if not nil.
func (m *RequestMeta) decodeEnvelope(capsRaw, infoRaw []byte, cache *EnvelopeCache) error {
	if cache != nil {
		if e := cache.last.Load(); e != nil && e.matches(capsRaw, infoRaw) {
			m.setEnvelope(e)
			return nil
		}
	}
	e := &envelopeStore{hasCaps: capsRaw != nil, hasInfo: infoRaw != nil}
	switch {
	case cache != nil: // keep both to compare the next envelope with
		var b strings.Builder
		b.Grow(len(capsRaw) + len(infoRaw))
		b.Write(capsRaw)
		b.Write(infoRaw)
		e.raw, e.infoAt = b.String(), len(capsRaw)
	case infoRaw != nil:
		e.raw = string(infoRaw)
	}
	if capsRaw != nil && !isEmptyObject(capsRaw) {
		if err := json.Unmarshal(capsRaw, &e.caps); err != nil {
			return fmt.Errorf("mcp: _meta[%q]: %w", MetaKeyClientCapabilities, err)
		}
	}
	if infoRaw != nil {
		if err := decodeImplementation(infoRaw, e.raw[e.infoAt:], &e.info); err != nil {
			return fmt.Errorf("mcp: _meta[%q]: %w", MetaKeyClientInfo, err)
		}
	}
	if cache != nil {
		cache.last.Store(e)
	}
	m.setEnvelope(e)
	return nil
}

// setEnvelope points m's capabilities and info at e's.
func (m *RequestMeta) setEnvelope(e *envelopeStore) {
	if e.hasCaps {
		m.ClientCapabilities = &e.caps
	}
	if e.hasInfo {
		m.ClientInfo = &e.info
	}
}
