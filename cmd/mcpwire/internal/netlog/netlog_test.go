package netlog

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// record returns a client whose exchanges are recorded, and the events.
func record(t *testing.T) (*http.Client, func() []Event) {
	var mu sync.Mutex
	var evs []Event
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	c := &http.Client{Transport: &Transport{Next: tr, Sink: func(e *Event) {
		mu.Lock()
		evs = append(evs, *e)
		mu.Unlock()
	}}}
	return c, func() []Event {
		mu.Lock()
		defer mu.Unlock()
		return append([]Event(nil), evs...)
	}
}

// TestExchangeMasksSecrets: the credentials of a request and an answer
// are masked; the session id, the status, the messages both ways are
// reported.
func TestExchangeMasksSecrets(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Set-Cookie", "sid=SECRET-COOKIE")
		w.Header().Set("Mcp-Session-Id", "sess-1")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":7,"result":{}}`)
	}))
	defer s.Close()
	c, events := record(t)
	req, _ := http.NewRequest("POST", s.URL+"/mcp?api_key=SECRET-QUERY", strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`))
	req.Header.Set("Authorization", "Bearer SECRET-TOKEN")
	req.Header.Set("X-Api-Key", "SECRET-KEY")
	req.Header.Set("Content-Type", "application/json")
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(res.Body)
	res.Body.Close()
	evs := events()
	if len(evs) != 3 || evs[0].Kind != "request" || evs[1].Kind != "response" || evs[2].Kind != "end" {
		t.Fatalf("events %+v", evs)
	}
	all := ""
	for _, e := range evs {
		for _, h := range e.Headers {
			all += h.Name + ": " + h.Value + "\n"
		}
		all += e.URL
	}
	if strings.Contains(all, "SECRET") {
		t.Errorf("a secret is reported:\n%s", all)
	}
	if evs[1].Session != "sess-1" || evs[1].Status != 200 {
		t.Errorf("the response %+v", evs[1])
	}
	if len(evs[0].Sent) != 1 || evs[0].Sent[0] != (Message{ID: "7", Method: "tools/list"}) || len(evs[2].Received) != 1 || evs[2].Received[0].ID != "7" {
		t.Errorf("the messages: sent %+v, received %+v", evs[0].Sent, evs[2].Received)
	}
}

// TestSSEEventsBounded: each SSE event is reported with its id, however
// the reads cut the stream; data is clipped and events beyond MaxEvents
// are counted, not reported.
func TestSSEEventsBounded(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		f := w.(http.Flusher)
		io.WriteString(w, "id: e1\r")
		f.Flush()
		io.WriteString(w, "\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n\r\n")
		io.WriteString(w, "data: "+strings.Repeat("x", 2*MaxEventData)+"\n\n")
		for range MaxEvents + 5 {
			io.WriteString(w, "data: {}\n\n")
		}
	}))
	defer s.Close()
	c, events := record(t)
	req, _ := http.NewRequest("GET", s.URL, nil)
	req.Header.Set("Last-Event-ID", "e0")
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(res.Body)
	res.Body.Close()
	evs := events()
	if evs[0].LastEventID != "e0" {
		t.Errorf("the resumption is not reported: %+v", evs[0])
	}
	var sse []Event
	for _, e := range evs {
		if e.Kind == "sse" {
			sse = append(sse, e)
		}
	}
	if len(sse) != MaxEvents {
		t.Fatalf("%d SSE events reported, want %d", len(sse), MaxEvents)
	}
	if sse[0].EventID != "e1" || sse[0].EventName != "message" || len(sse[0].Received) != 1 || sse[0].Received[0].ID != "1" {
		t.Errorf("the first event %+v", sse[0])
	}
	if !sse[1].Clipped || len(sse[1].Data) != MaxEventData {
		t.Errorf("a long event: clipped %v, %d bytes", sse[1].Clipped, len(sse[1].Data))
	}
	if end := evs[len(evs)-1]; end.Kind != "end" || end.Dropped != 7 {
		t.Errorf("the end %+v, want 7 events dropped", end)
	}
}

// TestExchangeHeadersBounded: an answer with thousands of headers (Go's
// client reads up to 10 MB of them) is reported with MaxHeaders of them
// and the count of the others.
func TestExchangeHeadersBounded(t *testing.T) {
	const n = 3000
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i := range n {
			w.Header().Add("X-Many", strings.Repeat("v", 200)+string(rune('a'+i%26)))
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer s.Close()
	c, events := record(t)
	res, err := c.Get(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	total := 0
	for _, v := range res.Header {
		total += len(v)
	}
	evs := events()
	if len(evs) < 2 || evs[1].Kind != "response" {
		t.Fatalf("events %+v", evs)
	}
	if r := evs[1]; len(r.Headers) > MaxHeaders || r.HeadersDropped != total-len(r.Headers) {
		t.Errorf("the answer's headers: %d reported, %d counted as dropped; want at most %d, and the others counted", len(r.Headers), r.HeadersDropped, MaxHeaders)
	}
}

// TestExchangeURLBounded: the URL of an exchange is the server's to
// choose (a redirect's Location, the endpoint event of the legacy
// HTTP+SSE transport), and so is the error of one that fails: each is
// reported clipped at MaxURL bytes, with a mark where it was cut.
// (Every exchange carried the whole URL, a megabyte as often as the
// client followed it.)
func TestExchangeURLBounded(t *testing.T) {
	long := "/" + strings.Repeat("p", 200<<10)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/start" {
			http.Redirect(w, r, long, http.StatusFound)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer s.Close()
	c, events := record(t)
	res, err := c.Get(s.URL + "/start")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	evs := events()
	if len(evs) < 3 {
		t.Fatalf("events %+v", evs)
	}
	for _, e := range evs {
		if len(e.URL) > MaxURL+len("…") || len(e.Error) > MaxURL+len("…") {
			t.Errorf("a %s event of %d-byte URL and %d-byte error", e.Kind, len(e.URL), len(e.Error))
		}
	}
	var last *Event
	for i := range evs {
		if evs[i].Kind == "request" {
			last = &evs[i]
		}
	}
	if last == nil || !strings.HasSuffix(last.URL, "…") {
		t.Errorf("the redirected request's URL is not marked as cut: %+v", last)
	}
}
