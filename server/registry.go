package server

import (
	"cmp"
	"encoding/base64"
	"slices"
	"strconv"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// registry is an ordered map: items are listed in the order they were
// first added, which keeps lists deterministic across calls.
//
// Each name added gets the next number of a sequence that never goes
// back, and order holds the names by that number. A cursor names the
// number of the last item of its page, not an offset: an item removed or
// added between two pages of a walk moves no other item, so a walk never
// repeats an item nor skips one that was there all along (an item added
// during the walk comes last, and is listed if the walk has not ended).
type registry[T any] struct {
	order []regName // by seq
	items map[string]T
	seq   uint64 // the number of the last name added
}

// A regName is a name of the registry with its sequence number.
type regName struct {
	name string
	seq  uint64
}

func (r *registry[T]) len() int { return len(r.order) }

// set adds or replaces the item called name; it reports whether it
// replaced one. A replaced item keeps its place.
func (r *registry[T]) set(name string, v T) bool {
	if r.items == nil {
		r.items = make(map[string]T)
	}
	_, replaced := r.items[name]
	r.items[name] = v
	if !replaced {
		r.seq++
		r.order = append(r.order, regName{name, r.seq})
	}
	return replaced
}

func (r *registry[T]) get(name string) (T, bool) {
	v, ok := r.items[name]
	return v, ok
}

func (r *registry[T]) remove(name string) bool {
	if _, ok := r.items[name]; !ok {
		return false
	}
	delete(r.items, name)
	r.order = slices.DeleteFunc(r.order, func(n regName) bool { return n.name == name })
	return true
}

// all returns every item in order.
func (r *registry[T]) all() []T {
	out := make([]T, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.items[n.name])
	}
	return out
}

// page returns the items of the page that cursor designates (the first
// page for ""), and the cursor of the next page ("" after the last).
// Cursors are opaque to clients; one that this registry never gave is
// refused as invalid params.
func (r *registry[T]) page(cursor mcp.Cursor, size int) ([]T, mcp.Cursor, error) {
	start := 0
	if cursor != "" {
		last, ok := decodeSeqCursor(cursor)
		if !ok || last > r.seq {
			return nil, "", jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: invalid cursor")
		}
		start, _ = slices.BinarySearchFunc(r.order, last+1, func(n regName, seq uint64) int { return cmp.Compare(n.seq, seq) })
	}
	end := min(start+size, len(r.order))
	out := make([]T, 0, end-start)
	for _, n := range r.order[start:end] {
		out = append(out, r.items[n.name])
	}
	var next mcp.Cursor
	if end < len(r.order) {
		next = encodeSeqCursor(r.order[end-1].seq)
	}
	return out, next, nil
}

// encodeSeqCursor is the cursor of the page after the item numbered seq.
func encodeSeqCursor(seq uint64) mcp.Cursor {
	return mcp.Cursor(base64.RawURLEncoding.EncodeToString([]byte("s" + strconv.FormatUint(seq, 10))))
}

func decodeSeqCursor(c mcp.Cursor) (uint64, bool) {
	b, err := base64.RawURLEncoding.DecodeString(string(c))
	if err != nil || len(b) < 2 || b[0] != 's' {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[1:]), 10, 64)
	return n, err == nil
}

// encodeKeyCursor is the cursor of the page after the entry whose key is
// last, in a list ordered by key.
func encodeKeyCursor(last string) mcp.Cursor {
	return mcp.Cursor(base64.RawURLEncoding.EncodeToString([]byte("k" + last)))
}

// decodeKeyCursor returns the key of a cursor of encodeKeyCursor.
func decodeKeyCursor(c mcp.Cursor) (string, bool) {
	b, err := base64.RawURLEncoding.DecodeString(string(c))
	if err != nil || len(b) < 2 || b[0] != 'k' {
		return "", false
	}
	return string(b[1:]), true
}
