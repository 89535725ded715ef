package inspect

import (
	"net/http"
	"sync/atomic"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/netlog"
)

// The Network view: every HTTP exchange of a session over HTTP goes into
// the journal as it happens ("http" entries, netlog's events: the
// request, the answer's headers, each SSE event, the end), its secrets
// masked as mcpwire servers masks them. The journal bounds them with the
// frames; netlog bounds each exchange (the events of one stream, the
// data of one event).

// kindHTTP is the journal's kind of netlog's events.
const kindHTTP = "http"

// netLog puts the HTTP exchanges of the inspector's sessions into the
// journal, numbered across the sessions (a reconnection's exchanges are
// new ones).
type netLog struct {
	hub *hub
	ids atomic.Int64 // the exchanges of every session, numbered from 1
}

// wrap returns the WrapHTTP of a session to the server t names: the
// values of the headers a configuration file set are masked too.
func (n *netLog) wrap(t *app.Target) func(http.RoundTripper) http.RoundTripper {
	secret := map[string]bool{}
	if t.Config != nil {
		for _, h := range t.Headers {
			secret[http.CanonicalHeaderKey(h.Key)] = true
		}
	}
	return func(next http.RoundTripper) http.RoundTripper {
		return &netlog.Transport{Next: next, Secret: secret, Sink: func(e *netlog.Event) { n.hub.add(kindHTTP, e) }, IDs: &n.ids}
	}
}
