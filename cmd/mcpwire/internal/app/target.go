package app

import (
	"strings"
)

// ParseTarget returns the server one word of the command line names, for
// the flags that name a second server (mcpwire bench --compare): an http
// or https URL, @NAME (a server of the hosts' configuration files), or a
// command line, split into words as a shell would (single and double
// quotes, backslash escapes; no variables, no globbing). The target gets
// the observer of --trace; a URL gets the token store, but not --header,
// which belongs to --url.
func (a *App) ParseTarget(flag, spec string) (Target, error) {
	t := Target{Observer: a.Global.Target.Observer}
	switch {
	case strings.HasPrefix(spec, "http://") || strings.HasPrefix(spec, "https://"):
		if err := checkServerURL(spec); err != nil {
			return Target{}, err
		}
		t.URL = spec
		t.TokenStore, _ = TokenStorePath(a.Getenv)
		return t, nil
	case strings.HasPrefix(spec, "@") && len(spec) > 1:
		if err := a.configTarget(&t, spec[1:]); err != nil {
			return Target{}, err
		}
		return t, nil
	}
	words, err := SplitWords(spec)
	if err != nil {
		return Target{}, UsageErrorf("%s %q: %v", flag, spec, err)
	}
	if len(words) == 0 {
		return Target{}, UsageErrorf("%s: name a server: a URL, @NAME, or a command line", flag)
	}
	t.Command = words
	return t, nil
}

// SplitWords splits a command line into words as a POSIX shell does,
// without expanding anything: words are separated by blanks; single
// quotes keep everything up to the next one; double quotes keep
// everything but \" and \\; a backslash outside quotes keeps the next
// character.
func SplitWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\\':
			if i+1 >= len(s) {
				return nil, errorString("a backslash ends the line")
			}
			i++
			w.WriteByte(s[i])
			inWord = true
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errorString("a single quote is not closed")
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				w.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errorString("a double quote is not closed")
			}
			inWord = true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// errorString is an error that is its message.
type errorString string

func (e errorString) Error() string { return string(e) }

// Name names the server t for messages: @NAME for a configured server,
// its URL, or its command line.
func (t *Target) Name() string {
	switch {
	case t.Config != nil:
		return "@" + t.Config.Name
	case t.URL != "":
		return t.URL
	}
	return strings.Join(t.Command, " ")
}
