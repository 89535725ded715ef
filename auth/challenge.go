package auth

import (
	"net/http"
	"strings"
)

// A Challenge is one authentication challenge of a WWW-Authenticate
// header (RFC 9110 §11.6.1), for example
//
//	Bearer error="insufficient_scope", scope="files:read files:write",
//	       resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
type Challenge struct {
	// Scheme is the authentication scheme as sent ("Bearer"); schemes
	// compare case-insensitively.
	Scheme string
	// Token68 is the scheme's token68 form, when it used one instead of
	// parameters.
	Token68 string
	// Params holds the auth-params, names lower-cased, values unquoted.
	// A repeated name keeps its first value.
	Params map[string]string
}

// Param returns the value of the named auth-param ("" if absent); name is
// matched case-insensitively.
func (c Challenge) Param(name string) string { return c.Params[strings.ToLower(name)] }

// Scopes returns the space-delimited scope param as a list.
func (c Challenge) Scopes() []string { return strings.Fields(c.Param("scope")) }

// Limits on what ParseChallenges reads.
const (
	maxChallengeHeaderBytes = 16 << 10
	maxChallenges           = 16
	maxChallengeParams      = 32
)

// ParseChallenges parses WWW-Authenticate header field values, each of
// which may hold several challenges. It is lenient, as clients must be:
// a malformed part ends the value it appears in, and what was parsed
// before it is kept. Values beyond 16 KiB in total, challenges beyond 16
// and parameters beyond 32 per challenge are ignored.
func ParseChallenges(values []string) []Challenge {
	var out []Challenge
	budget := maxChallengeHeaderBytes
	for _, v := range values {
		if len(v) > budget {
			v = v[:budget]
		}
		budget -= len(v)
		p := challengeParser{s: v}
		for len(out) < maxChallenges {
			c, ok := p.next()
			if !ok {
				break
			}
			out = append(out, c)
		}
	}
	return out
}

// BearerChallenge returns the first Bearer challenge of h's
// WWW-Authenticate fields.
func BearerChallenge(h http.Header) (Challenge, bool) {
	for _, c := range ParseChallenges(h.Values("WWW-Authenticate")) {
		if strings.EqualFold(c.Scheme, "Bearer") {
			return c, true
		}
	}
	return Challenge{}, false
}

type challengeParser struct {
	s string
	i int
}

func isTokenChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

func isToken68Char(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("-._~+/", c) >= 0
}

func (p *challengeParser) skipSpace() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *challengeParser) skipSpaceAndCommas() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == ',') {
		p.i++
	}
}

func (p *challengeParser) token() string {
	j := p.i
	for p.i < len(p.s) && isTokenChar(p.s[p.i]) {
		p.i++
	}
	return p.s[j:p.i]
}

// atParam reports whether an auth-param (token BWS "=" BWS value) starts
// at the current position, without moving.
func (p *challengeParser) atParam() bool {
	q := *p
	if q.token() == "" {
		return false
	}
	q.skipSpace()
	if q.i >= len(q.s) || q.s[q.i] != '=' {
		return false
	}
	q.i++
	q.skipSpace()
	// "abc==" is a token68, not the param "abc" with value "=".
	return q.i < len(q.s) && q.s[q.i] != '=' && q.s[q.i] != ','
}

func (p *challengeParser) quoted() (string, bool) {
	var b strings.Builder
	p.i++ // opening quote
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), true
		case c == '\\' && p.i+1 < len(p.s):
			b.WriteByte(p.s[p.i+1])
			p.i += 2
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return b.String(), false
}

// next parses one challenge; ok is false at the end or on garbage.
func (p *challengeParser) next() (Challenge, bool) {
	p.skipSpaceAndCommas()
	scheme := p.token()
	if scheme == "" {
		return Challenge{}, false
	}
	c := Challenge{Scheme: scheme, Params: map[string]string{}}
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] != ',' && !p.atParam() {
		// token68
		j := p.i
		for p.i < len(p.s) && isToken68Char(p.s[p.i]) {
			p.i++
		}
		for p.i < len(p.s) && p.s[p.i] == '=' {
			p.i++
		}
		c.Token68 = p.s[j:p.i]
		if c.Token68 == "" {
			p.i = len(p.s) // garbage: stop this value
		}
		return c, true
	}
	for len(c.Params) < maxChallengeParams {
		p.skipSpace()
		for p.i < len(p.s) && p.s[p.i] == ',' {
			// a comma either separates params or ends the challenge
			save := p.i
			p.i++
			p.skipSpace()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				continue
			}
			if !p.atParam() {
				p.i = save + 1
				return c, true
			}
		}
		if !p.atParam() {
			if p.i < len(p.s) {
				p.i = len(p.s) // garbage
			}
			return c, true
		}
		name := strings.ToLower(p.token())
		p.skipSpace()
		p.i++ // '='
		p.skipSpace()
		var val string
		if p.i < len(p.s) && p.s[p.i] == '"' {
			v, ok := p.quoted()
			val = v
			if !ok {
				if _, dup := c.Params[name]; !dup {
					c.Params[name] = val
				}
				return c, true
			}
		} else {
			val = p.token()
		}
		if _, dup := c.Params[name]; !dup {
			c.Params[name] = val
		}
	}
	return c, true
}

// formatChallenge renders a challenge: scheme then each non-empty
// name/value pair as name="value", values quoted with \ escapes and
// control characters dropped.
func formatChallenge(scheme string, kv ...string) string {
	var b strings.Builder
	b.WriteString(scheme)
	first := true
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			continue
		}
		if first {
			b.WriteByte(' ')
			first = false
		} else {
			b.WriteString(", ")
		}
		b.WriteString(kv[i])
		b.WriteString(`="`)
		for _, r := range kv[i+1] {
			switch {
			case r == '"' || r == '\\':
				b.WriteByte('\\')
				b.WriteRune(r)
			case r < 0x20 || r == 0x7f:
				// dropped: not allowed in a header
			default:
				b.WriteRune(r)
			}
		}
		b.WriteByte('"')
	}
	return b.String()
}
