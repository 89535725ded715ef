package inspect

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Questions are what the server asks the person through the client: an
// elicitation (a form, or a URL to visit) or a sampling request (the
// person plays the model). The client's handler asks the hub, which shows
// the question to every page; the first answer wins. A question waits
// for its answer at most the answer timeout, and not at all once no page
// has been open for the grace period; at most maxQuestions wait at once.

// The kinds of questions.
const (
	askElicit = "elicit" // elicitation/create: params are mcp.ElicitParams
	askSample = "sample" // sampling/createMessage: params are mcp.CreateMessageParams
)

// A question waits for the person's answer.
type question struct {
	ID       string          `json:"id"`
	Kind     string          `json:"kind"`
	Params   json.RawMessage `json:"params"`
	Deadline time.Time       `json:"deadline"`

	done   chan struct{}   // closed once answered or abandoned
	answer json.RawMessage // the page's answer, once done (nil if abandoned)
	err    error           // why it was abandoned
}

// Why a question ends without an answer.
var (
	errAnswerTimeout = errors.New("the person did not answer in time")
	errPageAway      = errors.New("no inspector page is open to answer")
	errClosing       = errors.New("the inspector is closing")
	errNoQuestion    = errors.New("no such question: it was answered already, or withdrawn")
)

// ask shows a question of kind with params to the pages and waits for the
// answer: the page's JSON, or an error when ctx ends, the timeout passes,
// the pages are gone, or too many questions are waiting already.
func (h *hub) ask(ctx context.Context, kind string, params any, timeout time.Duration, max int) (json.RawMessage, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	q := &question{ID: rand.Text()[:12], Kind: kind, Params: p, Deadline: time.Now().Add(timeout).UTC(), done: make(chan struct{})}
	h.mu.Lock()
	switch {
	case h.closed:
		h.mu.Unlock()
		return nil, errClosing
	case len(h.questions) >= max:
		h.mu.Unlock()
		return nil, fmt.Errorf("%d questions are waiting for the person already", max)
	}
	h.questions = append(h.questions, q)
	if h.streams == 0 {
		h.armAway()
	}
	h.notify()
	h.mu.Unlock()

	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-q.done:
	case <-t.C:
		h.resolve(q, nil, errAnswerTimeout)
	case <-ctx.Done():
		h.resolve(q, nil, ctx.Err())
	}
	<-q.done
	return q.answer, q.err
}

// resolve ends q with answer or err, unless it has ended already, and
// withdraws it from the pages; it reports whether it ended q.
func (h *hub) resolve(q *question, answer json.RawMessage, err error) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	i := slices.Index(h.questions, q)
	if i < 0 {
		return false
	}
	h.questions = slices.Delete(h.questions, i, i+1)
	q.answer, q.err = answer, err
	close(q.done)
	h.notify()
	return true
}

// reply answers the question id with the page's answer.
func (h *hub) reply(id string, answer json.RawMessage) error {
	h.mu.Lock()
	var q *question
	for _, x := range h.questions {
		if x.ID == id {
			q = x
		}
	}
	h.mu.Unlock()
	if q == nil || !h.resolve(q, answer, nil) {
		return errNoQuestion
	}
	return nil
}

// abandon ends every waiting question with err.
func (h *hub) abandon(err error) {
	h.mu.Lock()
	qs := slices.Clone(h.questions)
	h.mu.Unlock()
	for _, q := range qs {
		h.resolve(q, nil, err)
	}
}
