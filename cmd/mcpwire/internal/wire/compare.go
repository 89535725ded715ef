package wire

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// maxDiffs bounds the differences reported for one response.
const maxDiffs = 20

// volatileKey reports whether a member's value is new on every run: its
// value is not compared, and the live one replaces the recorded one in
// later requests.
func volatileKey(k string) bool { return k == "requestState" || k == "taskId" }

// compare returns the values of got that differ from want, under the rules
// of Replay, and learns the live values of volatile members.
func (rp *Replay) compare(want, got *jsonrpc.Response) []PathDiff {
	var out []PathDiff
	rp.diff(&out, "", envelope(want), envelope(got))
	return out
}

// envelope is a response without its id: {"result": ...} or
// {"error": {...}}.
func envelope(r *jsonrpc.Response) any {
	if r.Error != nil {
		e := map[string]any{"code": float64(r.Error.Code), "message": r.Error.Message}
		if len(r.Error.Data) > 0 {
			e["data"] = decodeAny(r.Error.Data)
		}
		return map[string]any{"error": e}
	}
	return map[string]any{"result": decodeAny(r.Result)}
}

func decodeAny(raw json.RawMessage) any {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	return v
}

func (rp *Replay) diff(out *[]PathDiff, path string, want, got any) {
	if len(*out) >= maxDiffs {
		return
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			break
		}
		keys := make([]string, 0, len(w)+len(g))
		for k := range w {
			keys = append(keys, k)
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			if k == "_meta" {
				continue
			}
			wv, wok := w[k]
			gv, gok := g[k]
			p := join(path, k)
			if volatileKey(k) && wok && gok {
				ws, wsok := wv.(string)
				gs, gsok := gv.(string)
				if wsok && gsok {
					rp.subst[ws] = gs
					continue
				}
			}
			switch {
			case !wok:
				*out = append(*out, PathDiff{Path: p, Actual: compact(gv)})
			case !gok:
				*out = append(*out, PathDiff{Path: p, Recorded: compact(wv)})
			default:
				rp.diff(out, p, wv, gv)
			}
		}
		return
	case []any:
		g, ok := got.([]any)
		if !ok {
			break
		}
		for i := 0; i < max(len(w), len(g)); i++ {
			p := fmt.Sprintf("%s[%d]", path, i)
			switch {
			case i >= len(g):
				*out = append(*out, PathDiff{Path: p, Recorded: compact(w[i])})
			case i >= len(w):
				*out = append(*out, PathDiff{Path: p, Actual: compact(g[i])})
			default:
				rp.diff(out, p, w[i], g[i])
			}
		}
		return
	case string:
		if g, ok := got.(string); ok && (w == g || isTimestamp(w) && isTimestamp(g)) {
			return
		}
	}
	if compact(want) != compact(got) {
		*out = append(*out, PathDiff{Path: path, Recorded: compact(want), Actual: compact(got)})
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// isTimestamp reports whether s is an RFC 3339 date-time.
func isTimestamp(s string) bool {
	if len(s) < len("2006-01-02T15:04:05Z") || len(s) > 40 {
		return false
	}
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}
