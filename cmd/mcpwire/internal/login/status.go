package login

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
)

// runLoginStatus lists the tokens of the token store: all of them, or
// those sent to the server of --url (none is an error then).
func runLoginStatus(a *app.App, o *loginOptions) error {
	if o.Store == "" {
		_, err := app.TokenStorePath(a.Getenv)
		return err
	}
	list, err := readTokens(o.Store)
	if err != nil {
		return err
	}
	if o.URL != "" {
		if list = tokensFor(list, o.URL); len(list) == 0 {
			return fmt.Errorf("not logged in to %s (run mcpwire login --url %s)", o.URL, o.URL)
		}
	}
	now := a.Now()
	if a.Global.JSON {
		return app.WriteJSON(a.Stdout, statusJSON(o.Store, list, now))
	}
	if len(list) == 0 {
		return app.WriteText(a.Stdout, "Not logged in to any server (token store: "+o.Store+").")
	}
	return writeStatus(a.Stdout, "", o.Store, list, now)
}

// writeStatus writes title, then a block per token (the server, the
// authorization server, the scopes granted, when the token expires),
// then where the tokens are kept. Tokens themselves are never shown.
func writeStatus(w io.Writer, title, store string, list []storedToken, now time.Time) error {
	var b bytes.Buffer
	b.WriteString(title)
	for _, t := range list {
		b.WriteString(t.Resource + "\n")
		tb := &app.Table{}
		tb.Add("Issuer:", t.Issuer)
		scopes := strings.Join(t.Token.Scopes, " ")
		if scopes == "" {
			scopes = "(none)"
		}
		tb.Add("Scopes:", scopes)
		tb.Add("Expires:", expiry(&t, now))
		tb.Write(&b, "  ")
		b.WriteByte('\n')
	}
	b.WriteString("Token store: " + store + "\n")
	_, err := w.Write(b.Bytes())
	return err
}

// expiry says when a token expires, and what happens then.
func expiry(t *storedToken, now time.Time) string {
	renewable := t.Token.RefreshToken != ""
	switch exp := t.Token.Expiry; {
	case exp.IsZero() && renewable:
		return "unknown (renewable)"
	case exp.IsZero():
		return "unknown"
	case exp.After(now) && renewable:
		return "in " + roughly(exp.Sub(now)) + " (renewable)"
	case exp.After(now):
		return "in " + roughly(exp.Sub(now))
	case renewable:
		return roughly(now.Sub(exp)) + " ago (renewed when next used)"
	default:
		return roughly(now.Sub(exp)) + " ago: log in again"
	}
}

// roughly writes a duration to the second under a minute, to the minute
// under a day, and in days and hours beyond: 42s, 59m, 1h5m, 3d4h.
func roughly(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Round(time.Second)/time.Second))
	case d < 24*time.Hour:
		d = d.Round(time.Minute)
		h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
		switch {
		case h == 0:
			return fmt.Sprintf("%dm", m)
		case m == 0:
			return fmt.Sprintf("%dh", h)
		}
		return fmt.Sprintf("%dh%dm", h, m)
	}
	d = d.Round(time.Hour)
	days, h := int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour)
	if h == 0 {
		return fmt.Sprintf("%dd", days)
	}
	return fmt.Sprintf("%dd%dh", days, h)
}

// tokenStatus describes one stored token for --json, without the token.
type tokenStatus struct {
	Server    string     `json:"server"`
	Issuer    string     `json:"issuer"`
	Scopes    []string   `json:"scopes"`
	Expiry    *time.Time `json:"expiry,omitempty"`
	Expired   bool       `json:"expired"`
	Renewable bool       `json:"renewable"`
}

// statusJSON is the --json output of mcpwire login and login --status.
func statusJSON(store string, list []storedToken, now time.Time) any {
	out := struct {
		Store  string        `json:"store"`
		Tokens []tokenStatus `json:"tokens"`
	}{Store: store, Tokens: []tokenStatus{}}
	for _, t := range list {
		s := tokenStatus{
			Server:    t.Resource,
			Issuer:    t.Issuer,
			Scopes:    t.Token.Scopes,
			Renewable: t.Token.RefreshToken != "",
		}
		if s.Scopes == nil {
			s.Scopes = []string{}
		}
		if exp := t.Token.Expiry; !exp.IsZero() {
			exp = exp.UTC()
			s.Expiry = &exp
			s.Expired = !exp.After(now)
		}
		out.Tokens = append(out.Tokens, s)
	}
	return out
}
