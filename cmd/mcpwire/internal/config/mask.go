package config

import (
	"net/url"
	"strings"
)

// Mask stands for a secret in what mcpwire prints.
const Mask = "****"

// Target returns what s starts or reaches, as written in its file (its
// variables unexpanded) and fit to print: the command line, its
// arguments quoted as a shell would need, or the URL; a password in a
// URL and the values of a URL's query are masked.
func (s *Server) Target() string {
	if s.Kind != Stdio {
		return MaskURL(s.URL)
	}
	parts := []string{shellQuote(MaskURL(s.Command))}
	for _, a := range s.Args {
		parts = append(parts, shellQuote(MaskURL(a)))
	}
	return strings.Join(parts, " ")
}

// Settings returns the names of s's env variables (stdio) or headers
// (http, sse), each with its value masked: "GITHUB_TOKEN=****",
// "Authorization: ****". A variable VS Code removes is "NAME (unset)".
func (s *Server) Settings() []string {
	var out []string
	if s.Kind != Stdio {
		for _, h := range s.Headers {
			out = append(out, h.Name+": "+Mask)
		}
		return out
	}
	if s.EnvFile != "" {
		out = append(out, "envFile "+s.EnvFile)
	}
	for _, e := range s.Env {
		if e.Unset {
			out = append(out, e.Name+" (unset)")
			continue
		}
		out = append(out, e.Name+"="+Mask)
	}
	return out
}

// Written returns what Target and Settings return, unmasked and with
// the directory the command starts in: all that says what runs, as the
// file writes it (variables unexpanded). It is for an entry someone must
// trust as shown (a project's file, which a repository brings): the
// values are the file's text, and a variable in a header or a URL is
// where a secret of the person's would go.
func (s *Server) Written() (target string, settings []string) {
	if s.Kind != Stdio {
		for _, h := range s.Headers {
			settings = append(settings, h.Name+": "+h.Value)
		}
		return s.URL, settings
	}
	parts := []string{shellQuote(s.Command)}
	for _, a := range s.Args {
		parts = append(parts, shellQuote(a))
	}
	if s.Cwd != "" {
		settings = append(settings, "cwd "+s.Cwd)
	}
	if s.EnvFile != "" {
		settings = append(settings, "envFile "+s.EnvFile)
	}
	for _, e := range s.Env {
		if e.Unset {
			settings = append(settings, e.Name+" (unset)")
			continue
		}
		settings = append(settings, e.Name+"="+e.Value)
	}
	return strings.Join(parts, " "), settings
}

// MaskURL masks the password and the query values of s, if it is a URL
// that has them; other strings are returned as they are.
func MaskURL(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return s
	}
	changed := false
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
		changed = true
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			q[k] = []string{"xxxxx"}
		}
		u.RawQuery = q.Encode()
		changed = true
	}
	if !changed {
		return s
	}
	return strings.ReplaceAll(u.String(), "xxxxx", Mask)
}

// shellQuote returns s as a POSIX shell word.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
