package inspect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
)

// TestJournalBounded checks that the journal keeps at most its number of
// entries and bytes, newest first, and that a stream that fell behind is
// told how many entries it lost.
func TestJournalBounded(t *testing.T) {
	h := newHub(3, 1<<20, time.Minute, nil)
	for i := range 5 {
		h.add(kindNote, map[string]int{"n": i})
	}
	s := &stream{asked: map[string]bool{}}
	b := h.pending(s)
	if b.lost != 2 || len(b.entries) != 3 || b.entries[0].id != 3 || string(b.entries[2].data) != `{"n":4}` {
		t.Errorf("lost %d, entries %v", b.lost, b.entries)
	}
	if b.state != nil {
		t.Errorf("a state was sent before one was set")
	}
	h.add(kindNote, map[string]int{"n": 5})
	if b := h.pending(s); b.lost != 0 || len(b.entries) != 1 || b.entries[0].id != 6 {
		t.Errorf("the next batch: lost %d, entries %v", b.lost, b.entries)
	}

	// By bytes: the newest entry stays, even alone and larger.
	h = newHub(100, 20, time.Minute, nil)
	h.add(kindNote, []byte(`"0123456789"`))
	h.add(kindNote, []byte(`"abcdefghij"`))
	h.add(kindNote, []byte(`"`+strings.Repeat("x", 40)+`"`))
	es, dropped := h.entries(kindNote)
	if len(es) != 1 || dropped != 2 || es[0].id != 3 {
		t.Errorf("kept %d entries (dropped %d)", len(es), dropped)
	}
}

// TestStreamGoesOn checks that a stream that reconnects after the entry
// it read last (Last-Event-ID) gets the rest only, and the state first.
func TestStreamGoesOn(t *testing.T) {
	h := newHub(100, 1<<20, time.Minute, nil)
	h.setState([]byte(`{"status":"connected"}`))
	for i := range 4 {
		h.add(kindFrame, map[string]int{"n": i})
	}
	s := &stream{cursor: 2, asked: map[string]bool{}}
	b := h.pending(s)
	var buf bytes.Buffer
	if err := b.writeSSE(&buf); err != nil {
		t.Fatal(err)
	}
	want := "event: state\ndata: {\"status\":\"connected\"}\n\n" +
		"id: 3\nevent: frame\ndata: {\"n\":2}\n\n" +
		"id: 4\nevent: frame\ndata: {\"n\":3}\n\n"
	if buf.String() != want {
		t.Errorf("the stream wrote\n%s\nwant\n%s", buf.String(), want)
	}
	if b := h.pending(s); b.state != nil || len(b.entries) != 0 {
		t.Errorf("a batch with nothing new: %+v", b)
	}
	h.close()
	if b := h.pending(s); !b.closed {
		t.Errorf("the stream of a closed hub goes on")
	}
}

// TestQuestionAnswered checks the way of a question: shown to the
// streams, answered once, withdrawn.
func TestQuestionAnswered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHub(100, 1<<20, 15*time.Second, func() { t.Error("the page was taken for away") })
		if !h.join(1) {
			t.Fatal("a first stream was refused")
		}
		s := &stream{asked: map[string]bool{}}
		var answer json.RawMessage
		var err error
		done := make(chan struct{})
		go func() {
			answer, err = h.ask(context.Background(), askElicit, map[string]string{"message": "Name?"}, time.Minute, 4)
			close(done)
		}()
		synctest.Wait()
		b := h.pending(s)
		if len(b.asked) != 1 || b.asked[0].Kind != askElicit || string(b.asked[0].Params) != `{"message":"Name?"}` {
			t.Fatalf("the stream was asked %v", b.asked)
		}
		id := b.asked[0].ID
		if err := h.reply(id, json.RawMessage(`{"action":"accept","content":{"name":"Ada"}}`)); err != nil {
			t.Fatal(err)
		}
		<-done
		if err != nil || string(answer) != `{"action":"accept","content":{"name":"Ada"}}` {
			t.Errorf("the answer: %s, %v", answer, err)
		}
		if err := h.reply(id, json.RawMessage(`{}`)); !errors.Is(err, errNoQuestion) {
			t.Errorf("a second answer: %v", err)
		}
		if b := h.pending(s); len(b.answered) != 1 || b.answered[0] != id {
			t.Errorf("the question was not withdrawn from the stream: %v", b.answered)
		}
		h.leave()
		h.close()
	})
}

// TestQuestionBounds checks the bounds of a question's wait: the answer
// timeout, the requester's context, the number of questions waiting, and
// no page open for the grace period.
func TestQuestionBounds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		away := 0
		var h *hub
		h = newHub(100, 1<<20, 15*time.Second, func() { away++; h.abandon(errPageAway) })
		h.join(1) // a page is open

		start := time.Now()
		_, err := h.ask(context.Background(), askSample, struct{}{}, time.Minute, 4)
		if !errors.Is(err, errAnswerTimeout) || time.Since(start) != time.Minute {
			t.Errorf("after %v: %v, want the answer timeout after 1m", time.Since(start), err)
		}

		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err = h.ask(ctx, askSample, struct{}{}, time.Minute, 4)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("a question whose request ended: %v", err)
		}

		// At most max wait at once.
		errs := make(chan error, 3)
		for range 3 {
			go func() {
				_, err := h.ask(context.Background(), askElicit, struct{}{}, time.Hour, 2)
				errs <- err
			}()
		}
		synctest.Wait()
		if err := <-errs; err == nil || !strings.Contains(err.Error(), "2 questions are waiting") {
			t.Errorf("a third question: %v", err)
		}

		// The page goes: after the grace period, the questions are
		// abandoned; a page that comes back in time keeps them.
		h.leave()
		time.Sleep(10 * time.Second)
		h.join(1)
		time.Sleep(time.Minute)
		if away != 0 {
			t.Errorf("the questions were abandoned while a page was open")
		}
		h.leave()
		time.Sleep(15 * time.Second)
		for range 2 {
			if err := <-errs; !errors.Is(err, errPageAway) {
				t.Errorf("a question once the page is away: %v", err)
			}
		}
		if away != 1 {
			t.Errorf("the page went away %d times", away)
		}

		// A question asked with no page open waits for one, the grace
		// period only.
		start = time.Now()
		_, err = h.ask(context.Background(), askElicit, struct{}{}, time.Hour, 2)
		if !errors.Is(err, errPageAway) || time.Since(start) != 15*time.Second {
			t.Errorf("after %v: %v, want the page away after 15s", time.Since(start), err)
		}
		h.close()
	})
}

// TestCheckAnswer checks the page's answers before they reach the
// server.
func TestCheckAnswer(t *testing.T) {
	for _, c := range []struct {
		kind, answer string
		ok           bool
	}{
		{askElicit, `{"action":"accept","content":{"name":"Ada","n":1,"ok":true,"tags":["a"]}}`, true},
		{askElicit, `{"action":"decline"}`, true},
		{askElicit, `{"action":"cancel"}`, true},
		{askElicit, `{"action":"maybe"}`, false},
		{askElicit, `{"action":"decline","content":{"name":"Ada"}}`, false},
		{askElicit, `{"action":"accept","extra":1}`, false},
		{askElicit, `{"action":"accept"} {}`, false},
		{askSample, `{"result":{"role":"assistant","content":{"type":"text","text":"Hi"},"model":"me"}}`, true},
		{askSample, `{"reject":true}`, true},
		{askSample, `{"result":{"role":"assistant","model":"me"}}`, false},
		{askSample, `{}`, false},
	} {
		err := checkAnswer(c.kind, []byte(c.answer))
		if (err == nil) != c.ok {
			t.Errorf("%s %s: %v", c.kind, c.answer, err)
		}
	}
}

// TestDescribeFilter checks the words for what the modern subscription
// covers.
func TestDescribeFilter(t *testing.T) {
	for f, want := range map[string]string{
		`{"toolsListChanged":true}`: "listening for changes of tools",
		`{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["a","b"]}`: "listening for changes of tools, prompts and resources and updates of 2 resource(s)",
		`{}`: "listening for no list changes",
	} {
		var filter mcp.SubscriptionFilter
		if err := json.Unmarshal([]byte(f), &filter); err != nil {
			t.Fatal(err)
		}
		if got := describeFilter(filter); got != want {
			t.Errorf("%s: %q, want %q", f, got, want)
		}
	}
}
