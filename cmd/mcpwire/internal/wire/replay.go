package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/frames"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/transport"
)

// A Replay plays the client's side of a recording to a server and compares
// what the server answers with what it answered when the recording was
// made.
//
// The client's frames are sent in the recorded order, with their recorded
// ids: each request waits for its response before the next frame goes. A
// request the server makes meanwhile (sampling, elicitation, roots) is
// answered with the client's recorded answer to the same method, in
// order; one the recording cannot answer gets a -32601 error and counts
// as a difference. The client's frames that are not valid messages, and
// its responses (sent when the server asks), are not sent as they are.
//
// Comparing a response with the recorded one ignores:
//   - the JSON-RPC id (the recorded ids are sent, but a response is
//     matched to its request, not compared by id);
//   - every "_meta" member, at any depth (server info, timings, ...);
//   - strings that are RFC 3339 timestamps;
//   - the values of "requestState" and "taskId" members (sealed state and
//     task ids are new on every run; the live ones are used in the
//     requests that follow, in place of the recorded ones);
//   - the order of the members of an object.
//
// Everything else must be equal: a result against an error, error codes
// and messages, content, structured content.
type Replay struct {
	Records []frames.Record
	// Conn is the connection to the server (the client side of a
	// transport); Run closes it.
	Conn transport.Conn
	// Timeout bounds the wait for each response; default 30s.
	Timeout time.Duration
	// Live, if set, sees every frame exchanged with the server.
	Live transport.Observer

	subst map[string]string // recorded requestState/taskId → live value
}

// A Difference is a response that differs from the recording.
type Difference struct {
	Index  int    // the index of the client's request in the recording
	Method string // its method
	ID     string // its id
	Paths  []PathDiff
	Note   string // a difference that is not in a value (no response, ...)
}

// A PathDiff is one value that differs, at a JSON path such as
// result.content[0].text.
type PathDiff struct {
	Path             string
	Recorded, Actual string // the values as compact JSON; "" when absent
}

// Run replays the recording and returns the differences (none: the server
// answers as it did). An error means the replay could not be carried out.
func (rp *Replay) Run(ctx context.Context) ([]Difference, error) {
	defer rp.Conn.Close()
	if rp.Timeout <= 0 {
		rp.Timeout = 30 * time.Second
	}
	rp.subst = map[string]string{}
	answers := newAnswerBook(rp.Records)
	responses := recordedResponses(rp.Records)
	in := make(chan jsonrpc.Message, 64)
	readErr := make(chan error, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			m, err := rp.Conn.Read(ctx)
			var de *jsonrpc.DecodeError
			switch {
			case errors.As(err, &de):
				continue // an invalid frame from the server: no answer for anyone
			case err != nil:
				readErr <- err
				close(in)
				return
			}
			select {
			case in <- m:
			case <-ctx.Done():
				return
			}
		}
	}()
	defer wg.Wait()
	defer rp.Conn.Close()

	var diffs []Difference
	for i := range rp.Records {
		rec := &rp.Records[i]
		if rec.From != frames.FromClient || rec.Raw != nil {
			continue
		}
		msg, err := rec.Decode()
		if err != nil {
			continue
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok {
			continue // a response: sent when the server asks
		}
		req = rp.substitute(req)
		if err := rp.Conn.Write(ctx, req); err != nil {
			return diffs, fmt.Errorf("sending the client's frame %d (%s): %w", i+1, req.Method, err)
		}
		if !req.IsCall() {
			continue
		}
		want := responses[req.ID]
		got, note, err := rp.await(ctx, req, in, readErr, answers, &diffs, i)
		if err != nil {
			return diffs, err
		}
		d := Difference{Index: i, Method: req.Method, ID: req.ID.String(), Note: note}
		if note == "" {
			if want == nil {
				continue // no response recorded: nothing to compare
			}
			d.Paths = rp.compare(want, got)
		}
		if d.Note != "" || len(d.Paths) > 0 {
			diffs = append(diffs, d)
		}
	}
	return diffs, nil
}

// await waits for the response to req, answering the server's requests
// meanwhile from the recording.
func (rp *Replay) await(ctx context.Context, req *jsonrpc.Request, in <-chan jsonrpc.Message, readErr <-chan error, answers *answerBook, diffs *[]Difference, index int) (*jsonrpc.Response, string, error) {
	timer := time.NewTimer(rp.Timeout)
	defer timer.Stop()
	for {
		select {
		case m, ok := <-in:
			if !ok {
				return nil, "", fmt.Errorf("the server closed the connection before answering %s (recorded frame %d): %v", req.Method, index+1, <-readErr)
			}
			switch m := m.(type) {
			case *jsonrpc.Response:
				if m.ID == req.ID {
					return m, "", nil
				}
			case *jsonrpc.Request:
				if !m.IsCall() {
					continue // notifications are not compared
				}
				ans, ok := answers.next(m.Method)
				if !ok {
					*diffs = append(*diffs, Difference{Index: index, Method: m.Method, ID: m.ID.String(),
						Note: "the server asked the client " + m.Method + ", which the recording never answers"})
					ans = &jsonrpc.Response{Error: jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: the recording has no answer to %s", m.Method)}
				}
				resp := *ans
				resp.ID = m.ID
				if err := rp.Conn.Write(ctx, &resp); err != nil {
					return nil, "", fmt.Errorf("answering the server's %s: %w", m.Method, err)
				}
			}
		case <-timer.C:
			return nil, fmt.Sprintf("no response within %s", rp.Timeout), nil
		case <-ctx.Done():
			return nil, "", ctx.Err()
		}
	}
}

// substitute replaces the recorded requestState and taskId values of a
// request with the live ones learned from earlier responses.
func (rp *Replay) substitute(req *jsonrpc.Request) *jsonrpc.Request {
	if len(rp.subst) == 0 || len(req.Params) == 0 {
		return req
	}
	var v any
	if json.Unmarshal(req.Params, &v) != nil {
		return req
	}
	changed := false
	var walk func(any) any
	walk = func(x any) any {
		switch x := x.(type) {
		case map[string]any:
			for k, e := range x {
				if s, ok := e.(string); ok && volatileKey(k) {
					if live, ok := rp.subst[s]; ok {
						x[k] = live
						changed = true
						continue
					}
				}
				x[k] = walk(e)
			}
		case []any:
			for i, e := range x {
				x[i] = walk(e)
			}
		}
		return x
	}
	v = walk(v)
	if !changed {
		return req
	}
	params, err := json.Marshal(v)
	if err != nil {
		return req
	}
	out := *req
	out.Params = params
	return &out
}

// recordedResponses indexes the server's recorded responses by id (the
// last one wins: a recording of one connection has each id once).
func recordedResponses(recs []frames.Record) map[jsonrpc.ID]*jsonrpc.Response {
	out := map[jsonrpc.ID]*jsonrpc.Response{}
	for i := range recs {
		if recs[i].From != frames.FromServer {
			continue
		}
		if m, err := recs[i].Decode(); err == nil {
			if r, ok := m.(*jsonrpc.Response); ok && r.ID.IsValid() {
				out[r.ID] = r
			}
		}
	}
	return out
}

// An answerBook holds the client's recorded answers to the server's
// requests, by method, in order.
type answerBook struct {
	byMethod map[string][]*jsonrpc.Response
}

func newAnswerBook(recs []frames.Record) *answerBook {
	asked := map[jsonrpc.ID]string{} // the server's requests: id → method
	b := &answerBook{byMethod: map[string][]*jsonrpc.Response{}}
	for i := range recs {
		m, err := recs[i].Decode()
		if err != nil {
			continue
		}
		switch m := m.(type) {
		case *jsonrpc.Request:
			if recs[i].From == frames.FromServer && m.IsCall() {
				asked[m.ID] = m.Method
			}
		case *jsonrpc.Response:
			if recs[i].From == frames.FromClient {
				if method, ok := asked[m.ID]; ok {
					b.byMethod[method] = append(b.byMethod[method], m)
					delete(asked, m.ID)
				}
			}
		}
	}
	return b
}

// next returns the next recorded answer to method.
func (b *answerBook) next(method string) (*jsonrpc.Response, bool) {
	list := b.byMethod[method]
	if len(list) == 0 {
		return nil, false
	}
	b.byMethod[method] = list[1:]
	return list[0], true
}

// Report writes the differences for a person; it returns whether there
// were any.
func Report(w io.Writer, recs []frames.Record, diffs []Difference) bool {
	for _, d := range diffs {
		fmt.Fprintf(w, "frame %d: %s #%s", d.Index+1, d.Method, d.ID)
		if name := toolName(&recs[d.Index]); name != "" {
			fmt.Fprintf(w, " (%s)", name)
		}
		if d.Note != "" {
			fmt.Fprintf(w, ": %s\n", d.Note)
			continue
		}
		fmt.Fprintf(w, ": the response differs\n")
		for _, p := range d.Paths {
			fmt.Fprintf(w, "  %s\n", p.Path)
			fmt.Fprintf(w, "    - recorded: %s\n", orAbsent(p.Recorded))
			fmt.Fprintf(w, "    + now:      %s\n", orAbsent(p.Actual))
		}
	}
	return len(diffs) > 0
}

func orAbsent(s string) string {
	if s == "" {
		return "(absent)"
	}
	return s
}

// toolName returns the tool, prompt or resource a recorded request names.
func toolName(r *frames.Record) string {
	var p struct {
		Params struct {
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"params"`
	}
	if json.Unmarshal(r.Message, &p) != nil {
		return ""
	}
	if p.Params.Name != "" {
		return p.Params.Name
	}
	return p.Params.URI
}
