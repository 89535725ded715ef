package talk

import (
	"context"
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// A tool may ask something back in the middle of a call, and so may a
// prompt being rendered or a resource being read: the user (elicitation:
// a form, or a URL to visit) or the model (sampling). In a session the
// server sends the client a request; in the stateless era the server
// answers input_required and the client asks again with the answers.
// mcpwire call, get and read can answer neither (they have no form to
// show and no model), and say so the same way in both eras: they declare
// both capabilities, so that the server asks rather than fails in words
// of its own (a stateless server refuses a request that needs a
// capability the client lacks; a session's handler fails with whatever
// its server says), note the first question, end the request, refuse the
// question in the protocol's terms (an elicitation cancelled, a sampling
// request rejected), and report what was asked and what can answer it:
// mcpwire inspect.

// unanswered notes the question a server asks during one request of the
// verb (call, get, read).
type unanswered struct {
	verb string // the command: "call", "get" or "read"

	mu     sync.Mutex
	cancel context.CancelFunc // ends the call; nil until it starts
	asked  string             // the first question, worded for the report
	answer string             // what answers it in mcpwire inspect
}

// options returns the client's options: handlers for both kinds of
// questions, which declare the capabilities.
func (u *unanswered) options() *client.Options {
	return &client.Options{Elicit: u.elicit, ElicitURL: true, Sample: u.sample}
}

// start returns the context of the call, which a question ends.
func (u *unanswered) start(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	u.mu.Lock()
	u.cancel = cancel
	u.mu.Unlock()
	return ctx, cancel
}

// note records a question, if it is the first, and ends the call.
func (u *unanswered) note(asked, answer string) {
	u.mu.Lock()
	if u.asked == "" {
		u.asked, u.answer = asked, answer
	}
	cancel := u.cancel
	u.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

func (u *unanswered) elicit(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	what := "a question"
	if p.Mode == mcp.ElicitModeURL {
		what = "to visit a URL"
	}
	u.note(fmt.Sprintf("asks the user %s (%s)", what, quoteClipped(p.Message, 120)), "which shows the question and sends your answer")
	return &mcp.ElicitResult{Action: mcp.ElicitCancel}, nil
}

func (u *unanswered) sample(context.Context, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	u.note("asks the model for a completion (sampling)", "where you answer as the model")
	return nil, jsonrpc.NewError(mcp.CodeUserRejected, "mcpwire "+u.verb+" cannot answer sampling requests")
}

// err returns the error that reports the question asked by the server's
// kind ("tool", "prompt", "resource") of this name, or nil if it asked
// none.
func (u *unanswered) err(kind, name string) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.asked == "" {
		return nil
	}
	return app.Failure(fmt.Errorf("%s %q %s, which mcpwire %s cannot answer: %s it from mcpwire inspect, %s", kind, name, u.asked, u.verb, u.verb, u.answer))
}

// quoteClipped quotes s as a Go string (the server's bytes never reach
// the terminal as they are), cut to n bytes at a character boundary.
func quoteClipped(s string, n int) string {
	if len(s) <= n {
		return fmt.Sprintf("%q", s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return fmt.Sprintf("%q...", s[:n])
}
