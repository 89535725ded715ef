package check

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/mcp"
)

// The lists two instances of a stateless server must give alike, with the
// member that holds their items.
var statelessLists = []struct{ method, key string }{
	{mcp.MethodListTools, "tools"},
	{mcp.MethodListPrompts, "prompts"},
	{mcp.MethodListResources, "resources"},
	{mcp.MethodListResourceTemplates, "resourceTemplates"},
}

// checkInstances checks that the stateless servers at urls, meant to be
// instances of one server behind a load balancer, answer alike: any
// instance must be able to serve any request of a 2026-07-28 client.
func (c *checker) checkInstances(ctx context.Context, urls []string) {
	c.begin()
	var peers []*peer
	defer func() {
		for _, p := range peers {
			p.w.close(ctx)
		}
	}()
	for _, u := range urls {
		w, err := c.wire(u, true)
		if err != nil {
			c.addf(chkSameAnswers, "", Fail, "%s: %v", u, err)
			return
		}
		p := c.newPeer(w, u, true, mcp.Version20260728)
		w.(*httpWire).version = string(p.version)
		peers = append(peers, p)
		var res mcp.DiscoverResult
		if _, err := p.get(ctx, mcp.MethodDiscover, nil, &res); err != nil {
			c.addf(chkSameAnswers, "", Skip, "%s does not answer server/discover (%v): two instances of a stateful server need not answer alike", u, err)
			c.add(chkCursors, "", Skip, "")
			return
		}
		p.caps = res.Capabilities
	}
	era := string(mcp.Version20260728)
	a, b := peers[0], peers[1]
	var diffs []string
	ra, erra := a.call(ctx, mcp.MethodDiscover, nil)
	rb, errb := b.call(ctx, mcp.MethodDiscover, nil)
	if erra == nil && errb == nil && ra.resp != nil && rb.resp != nil {
		if d := differ(ra.resp.Result, rb.resp.Result); d != "" {
			diffs = append(diffs, "server/discover: "+d)
		}
	}
	type paged struct{ method, key, cursor string }
	var cursorLists []paged
	for _, l := range statelessLists {
		la, erra := c.list(ctx, a, l.method, l.key)
		lb, errb := c.list(ctx, b, l.method, l.key)
		switch {
		case erra != nil && errb != nil:
			continue // neither has it
		case erra != nil || errb != nil:
			diffs = append(diffs, fmt.Sprintf("%s: %s answers (%v), %s does not (%v)", l.method, urls[0], erra, urls[1], errb))
			continue
		}
		ja, _ := json.Marshal(la.items)
		jb, _ := json.Marshal(lb.items)
		if d := differ(ja, jb); d != "" {
			diffs = append(diffs, fmt.Sprintf("%s: %s", l.method, d))
		}
		var first struct {
			NextCursor string `json:"nextCursor"`
		}
		if json.Unmarshal(la.firstRaw, &first) == nil && first.NextCursor != "" {
			cursorLists = append(cursorLists, paged{l.method, l.key, first.NextCursor})
		}
	}
	if len(diffs) > 0 {
		c.add(chkSameAnswers, era, Fail, lines(diffs))
	} else {
		c.addf(chkSameAnswers, era, Pass, "%s and %s", urls[0], urls[1])
	}

	// A cursor of A, on B.
	c.begin()
	if len(cursorLists) == 0 {
		c.add(chkCursors, era, Skip, "no list has a second page")
		return
	}
	var problems []string
	for _, l := range cursorLists {
		ra, erra := a.call(ctx, l.method, map[string]any{"cursor": l.cursor})
		rb, errb := b.call(ctx, l.method, map[string]any{"cursor": l.cursor})
		switch {
		case erra != nil || errb != nil:
			problems = append(problems, fmt.Sprintf("%s: %v %v", l.method, erra, errb))
		case rb.resp == nil || rb.resp.Error != nil:
			why := "no answer"
			if rb.resp != nil {
				why = describeError(rb.resp.Error)
			}
			problems = append(problems, fmt.Sprintf("%s: %s refused the cursor of %s: %s", l.method, urls[1], urls[0], why))
		case ra.resp != nil && ra.resp.Error == nil:
			if d := differ(itemsOf(ra.resp.Result, l.key), itemsOf(rb.resp.Result, l.key)); d != "" {
				problems = append(problems, fmt.Sprintf("%s: the second pages differ: %s", l.method, d))
			}
		}
	}
	if len(problems) > 0 {
		c.add(chkCursors, era, Warn, lines(problems))
		return
	}
	c.addf(chkCursors, era, Pass, "%d paginated list(s)", len(cursorLists))
}

// itemsOf returns the member key of a result.
func itemsOf(result json.RawMessage, key string) json.RawMessage {
	var m map[string]json.RawMessage
	json.Unmarshal(result, &m)
	return m[key]
}

// differ compares two JSON values, ignoring "_meta" members at the top
// and in the items of a list (the server's info, timings), and returns
// where they differ, or "".
func differ(a, b json.RawMessage) string {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return "not JSON"
	}
	x, y = dropMeta(x), dropMeta(y)
	if reflect.DeepEqual(x, y) {
		return ""
	}
	if xs, ok := x.([]any); ok {
		if ys, ok := y.([]any); ok {
			if sameSet(xs, ys) {
				return "the same items in another order"
			}
			return fmt.Sprintf("%d and %d items, not the same", len(xs), len(ys))
		}
	}
	if xm, ok := x.(map[string]any); ok {
		if ym, ok := y.(map[string]any); ok {
			var keys []string
			for k := range xm {
				if !reflect.DeepEqual(xm[k], ym[k]) {
					keys = append(keys, k)
				}
			}
			for k := range ym {
				if _, ok := xm[k]; !ok {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			return "they differ in " + strings.Join(keys, ", ")
		}
	}
	return "they differ"
}

// dropMeta removes the "_meta" member of an object, and of the objects of
// an array.
func dropMeta(v any) any {
	switch v := v.(type) {
	case map[string]any:
		delete(v, "_meta")
	case []any:
		for _, e := range v {
			if m, ok := e.(map[string]any); ok {
				delete(m, "_meta")
			}
		}
	}
	return v
}

// sameSet reports whether two arrays hold the same values in any order.
func sameSet(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	used := make([]bool, len(b))
	for _, x := range a {
		found := false
		for j, y := range b {
			if !used[j] && reflect.DeepEqual(x, y) {
				used[j], found = true, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
