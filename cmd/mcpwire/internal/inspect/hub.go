package inspect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"
)

// The hub is what the pages read: the state of the inspection (the
// server, its lists, the roots...), the questions waiting for the person,
// and the journal, a bounded log of what happened in order (frames, log
// messages, the server's stderr, progress, resource updates). Each page
// reads it through one event stream (events.go): the state whenever it
// changes, the journal's entries after the last one it has, and the
// questions as they come and go.
//
// The journal is the only buffer: a stream that falls behind reads from
// it at its own pace, and one that falls so far behind that entries it
// has not read are dropped is told how many it lost.

// A entry is one item of the journal.
type entry struct {
	id   uint64
	kind string // kindFrame, kindLog, ...
	data []byte // its JSON
}

// The kinds of the journal's entries, as the event stream names them.
const (
	kindFrame    = "frame"    // a frame: a record of the tap recording format
	kindLog      = "log"      // a notifications/message of the server
	kindStderr   = "stderr"   // a line of the server process's stderr
	kindProgress = "progress" // a notifications/progress for a call of the page
	kindUpdated  = "updated"  // a subscribed resource changed
	kindNote     = "note"     // something the inspector says (a list that failed...)
)

// hub holds the state, the questions and the journal, and wakes the
// event streams when any of them changes. Its methods are safe for
// concurrent use.
type hub struct {
	maxEntries int // bound of the journal, in entries
	maxBytes   int // bound of the journal, in bytes of JSON

	mu        sync.Mutex
	journal   []entry // ids consecutive, oldest first
	bytes     int     // the JSON in journal
	next      uint64  // the id of the next entry (ids start at 1)
	state     []byte  // the state's JSON
	stateVer  uint64  // bumped on every change of state
	questions []*question
	changed   chan struct{} // closed (and replaced) on every change
	closed    bool

	streams int           // event streams being served
	away    *time.Timer   // fires once no page has read the events for grace
	onAway  func()        // what away calls
	grace   time.Duration // how long a page may be away (a reload, a lost connection)
}

// newHub returns a hub whose journal holds at most maxEntries entries and
// maxBytes bytes of JSON (the newest entry is kept even if it alone is
// larger). onAway is called when no page has read the events for grace.
func newHub(maxEntries, maxBytes int, grace time.Duration, onAway func()) *hub {
	return &hub{
		maxEntries: maxEntries,
		maxBytes:   maxBytes,
		next:       1,
		changed:    make(chan struct{}),
		grace:      grace,
		onAway:     onAway,
	}
}

// notify wakes the event streams; h.mu is held.
func (h *hub) notify() {
	close(h.changed)
	h.changed = make(chan struct{})
}

// add appends an entry of kind to the journal: v is marshalled to JSON
// unless it is a []byte of JSON already.
func (h *hub) add(kind string, v any) {
	data, ok := v.([]byte)
	if !ok {
		var err error
		if data, err = json.Marshal(v); err != nil {
			data, _ = json.Marshal(map[string]string{"error": err.Error()})
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.journal = append(h.journal, entry{id: h.next, kind: kind, data: data})
	h.next++
	h.bytes += len(data)
	drop := 0
	for len(h.journal)-drop > 1 && (len(h.journal)-drop > h.maxEntries || h.bytes > h.maxBytes) {
		h.bytes -= len(h.journal[drop].data)
		drop++
	}
	if drop > 0 {
		clear(h.journal[:drop]) // let the dropped data go
		h.journal = h.journal[drop:]
	}
	h.notify()
}

// setState replaces the state's JSON.
func (h *hub) setState(data []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.state = data
	h.stateVer++
	h.notify()
}

// snapshot returns the state's JSON and the id of the journal's latest
// entry, for a page rendered with its state inline.
func (h *hub) snapshot() ([]byte, uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.state, h.next - 1
}

// entries returns the entries of kind in the journal, oldest first, and
// how many entries (of any kind) were dropped before them.
func (h *hub) entries(kind string) (es []entry, dropped uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, e := range h.journal {
		if e.kind == kind {
			es = append(es, e)
		}
	}
	if len(h.journal) > 0 {
		dropped = h.journal[0].id - 1
	} else {
		dropped = h.next - 1
	}
	return es, dropped
}

// question returns the waiting question id, or nil.
func (h *hub) question(id string) *question {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, q := range h.questions {
		if q.ID == id {
			return q
		}
	}
	return nil
}

// close ends the event streams (they return once they have written what
// they have); nothing is added from then on.
func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.closed = true
		h.notify()
	}
	if h.away != nil {
		h.away.Stop()
	}
}

// A stream is one page's view of the hub: what it has been sent.
type stream struct {
	cursor   uint64          // the id of the last entry sent
	stateVer uint64          // the version of the state sent; 0 before the first
	asked    map[string]bool // the questions sent and not yet withdrawn
}

// batch is what a stream has to send at one wake-up.
type batch struct {
	state    []byte
	lost     uint64 // entries dropped before the stream read them
	entries  []entry
	asked    []*question // questions new to the stream
	answered []string    // questions withdrawn since
	closed   bool
	wake     <-chan struct{}
}

// pending returns what s has not been sent yet, and the channel that is
// closed at the next change.
func (h *hub) pending(s *stream) batch {
	h.mu.Lock()
	defer h.mu.Unlock()
	b := batch{wake: h.changed, closed: h.closed}
	if h.stateVer != s.stateVer {
		b.state, s.stateVer = h.state, h.stateVer
	}
	if len(h.journal) > 0 {
		first := h.journal[0].id
		if s.cursor+1 < first {
			b.lost = first - s.cursor - 1
			s.cursor = first - 1
		}
		if i := int(s.cursor + 1 - first); i < len(h.journal) {
			b.entries = append(b.entries, h.journal[i:]...)
			s.cursor = h.journal[len(h.journal)-1].id
		}
	} else if s.cursor+1 < h.next {
		b.lost, s.cursor = h.next-1-s.cursor, h.next-1
	}
	live := make(map[string]bool, len(h.questions))
	for _, q := range h.questions {
		live[q.ID] = true
		if !s.asked[q.ID] {
			s.asked[q.ID] = true
			b.asked = append(b.asked, q)
		}
	}
	for id := range s.asked {
		if !live[id] {
			delete(s.asked, id)
			b.answered = append(b.answered, id)
		}
	}
	return b
}

// join counts a new event stream, or refuses it (false) when max are
// served already.
func (h *hub) join(max int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.streams >= max {
		return false
	}
	h.streams++
	if h.away != nil {
		h.away.Stop()
		h.away = nil
	}
	return true
}

// leave counts an event stream that ended; once none is left for the
// grace period, the page is away.
func (h *hub) leave() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.streams--
	if h.streams == 0 {
		h.armAway()
	}
}

// armAway starts the grace period of a hub no page reads; h.mu is held.
func (h *hub) armAway() {
	if h.away != nil || h.closed || h.onAway == nil {
		return
	}
	var t *time.Timer
	t = time.AfterFunc(h.grace, func() {
		h.mu.Lock()
		fire := h.away == t && h.streams == 0
		if fire {
			h.away = nil
		}
		h.mu.Unlock()
		if fire {
			h.onAway()
		}
	})
	h.away = t
}

// writeSSE writes b as Server-Sent Events to w: the state, a note of lost
// entries, the entries (with their ids, for Last-Event-ID), and the
// questions asked and withdrawn.
func (b *batch) writeSSE(w io.Writer) error {
	var buf bytes.Buffer
	if b.state != nil {
		event(&buf, "", "state", b.state)
	}
	if b.lost > 0 {
		fmt.Fprintf(&buf, "event: lost\ndata: %d\n\n", b.lost)
	}
	for i := range b.entries {
		e := &b.entries[i]
		event(&buf, strconv.FormatUint(e.id, 10), e.kind, e.data)
		if buf.Len() > 1<<20 {
			if _, err := w.Write(buf.Bytes()); err != nil {
				return err
			}
			buf.Reset()
		}
	}
	for _, q := range b.asked {
		data, _ := json.Marshal(q)
		event(&buf, "", "question", data)
	}
	for _, id := range b.answered {
		data, _ := json.Marshal(id)
		event(&buf, "", "answered", data)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// event writes one SSE event. data is JSON, one line: JSON never holds a
// raw newline.
func event(buf *bytes.Buffer, id, kind string, data []byte) {
	if id != "" {
		buf.WriteString("id: ")
		buf.WriteString(id)
		buf.WriteByte('\n')
	}
	buf.WriteString("event: ")
	buf.WriteString(kind)
	buf.WriteString("\ndata: ")
	buf.Write(data)
	buf.WriteString("\n\n")
}
