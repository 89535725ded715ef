package cluster

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// TestAnswersNeverCross: many clients at once, all numbering their
// requests from 1 (the same ids), over one shared HTTP transport, each
// calling a tool that echoes a nonce of its own: every client gets its
// own answers only, in both eras (2025-11-25 sessions, 2026-07-28
// stateless requests), from one instance and from three on Redis behind
// the round-robin front. This is the class of the TypeScript SDK's
// CVE-2026-111770, where a shared stateless transport matched responses
// to requests by JSON-RPC id alone and one client got another's answers.
// A control run of the same check against an endpoint that matches
// answers by id alone shows that the check sees answers cross.
func TestAnswersNeverCross(t *testing.T) {
	const clients, calls = 16, 8
	tr := &http.Transport{MaxIdleConnsPerHost: 2 * clients}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	t.Run("control: answers matched by id alone", func(t *testing.T) {
		ts := httptest.NewServer(byIDAlone())
		defer ts.Close()
		ctx := within(t, 30*time.Second)
		for _, era := range []string{"legacy", "modern"} {
			if problems := crossCheck(ctx, ts.URL, hc, era, clients, calls); len(problems) == 0 {
				t.Errorf("%s: the check saw no answer cross at an endpoint that matches answers by id alone", era)
			}
		}
	})
	single := startInstance(t, "") // no store
	f := startCluster(t, 3)
	ctx := within(t, 120*time.Second)
	for _, target := range []struct{ name, url string }{{"one instance", single.url}, {"three instances on Redis", f.url}} {
		for _, era := range []string{"legacy", "modern"} {
			t.Run(target.name+"/"+era, func(t *testing.T) {
				for _, p := range crossCheck(ctx, target.url, hc, era, clients, calls) {
					t.Error(p)
				}
			})
		}
	}
	for i, in := range f.insts {
		if !in.alive() {
			t.Errorf("instance %d died:\n%s", i, in.log)
		}
	}
}

// crossCheck runs clients clients at once against url, each making calls
// calls of the tool greet at once, with ids from 1 (the initialize of a
// legacy session is 1, its calls 2 on), each with a nonce of its own;
// it returns what went wrong: answers missing, or not the client's own.
func crossCheck(ctx context.Context, url string, hc *http.Client, era string, clients, calls int) []string {
	var mu sync.Mutex
	var problems []string
	report := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(problems) < 20 {
			problems = append(problems, fmt.Sprintf(format, args...))
		}
	}
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			c := &rawClient{url: url, hc: hc}
			first := 1
			var sid string
			if era == "legacy" {
				var err error
				if sid, err = c.initialize(ctx, 1); err != nil {
					report("client %d: %v", i, err)
					return
				}
				first = 2
			}
			var cw sync.WaitGroup
			for k := range calls {
				cw.Go(func() {
					id := first + k
					nonce := fmt.Sprintf("client%02d-call%02d-%s", i, k, rand.Text()[:8])
					hdr := legacyHeader(sid)
					meta := ""
					if era == "modern" {
						hdr, meta = modernHeader("tools/call", "greet"), ","+modernMeta
					}
					body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"greet","arguments":{"name":%q}%s}}`, id, nonce, meta)
					r, err := c.do(ctx, http.MethodPost, hdr, body)
					if err != nil {
						report("client %d, id %d: %v", i, id, err)
						return
					}
					replies, err := responses(r.events)
					if err != nil || r.status != http.StatusOK || len(replies) != 1 {
						report("client %d, id %d: %d, %d responses (%v): %q", i, id, r.status, len(replies), err, r.body)
						return
					}
					got := replies[0]
					var gotID int
					if err := json.Unmarshal(got.ID, &gotID); err != nil || gotID != id {
						report("client %d got the answer of id %s to its request %d", i, got.ID, id)
					}
					want := "Hello, " + nonce + "!"
					if got.Error != nil || got.Result == nil || got.Result.IsError || len(got.Result.Content) != 1 || got.Result.Content[0].Text != want {
						report("client %d, id %d: answer %q, want its own, %q", i, id, r.body, want)
					}
				})
			}
			cw.Wait()
		})
	}
	wg.Wait()
	return problems
}

// byIDAlone is an endpoint with the defect the test looks for: it
// answers a call with the answer it made to the first call of that id,
// whichever client sent it (a table of answers keyed by JSON-RPC id
// alone). It takes any initialize and notification.
func byIDAlone() http.Handler {
	var mu sync.Mutex
	answers := map[string]string{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(io.LimitReader(r.Body, maxBody))
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Arguments struct {
					Name string `json:"name"`
				} `json:"arguments"`
			} `json:"params"`
		}
		if err := json.Unmarshal(b, &req); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch {
		case req.ID == nil:
			w.WriteHeader(http.StatusAccepted)
		case req.Method == "initialize":
			w.Header().Set("Mcp-Session-Id", rand.Text())
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, req.ID)
		default:
			mu.Lock()
			a, ok := answers[string(req.ID)]
			if !ok {
				text, _ := json.Marshal("Hello, " + req.Params.Arguments.Name + "!")
				a = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%s}]}}`, req.ID, text)
				answers[string(req.ID)] = a
			}
			mu.Unlock()
			io.WriteString(w, a)
		}
	})
}
