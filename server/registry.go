package server

import (
	"encoding/base64"
	"slices"
	"strconv"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// registry is an ordered map: items are listed in the order they were
// first added, which keeps lists deterministic across calls.
type registry[T any] struct {
	order []string
	items map[string]T
}

func (r *registry[T]) len() int { return len(r.order) }

// set adds or replaces the item called name; it reports whether it
// replaced one.
func (r *registry[T]) set(name string, v T) bool {
	if r.items == nil {
		r.items = make(map[string]T)
	}
	_, replaced := r.items[name]
	r.items[name] = v
	if !replaced {
		r.order = append(r.order, name)
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
	r.order = slices.DeleteFunc(r.order, func(n string) bool { return n == name })
	return true
}

// all returns every item in order.
func (r *registry[T]) all() []T {
	out := make([]T, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.items[n])
	}
	return out
}

// page returns the items of the page that cursor designates (the first
// page for ""), and the cursor of the next page ("" after the last).
// Cursors are opaque to clients; they hold an offset, so a list that
// changes between pages may repeat or skip an item.
func (r *registry[T]) page(cursor mcp.Cursor, size int) ([]T, mcp.Cursor, error) {
	start := 0
	if cursor != "" {
		n, ok := decodeCursor(cursor)
		if !ok || n > len(r.order) {
			return nil, "", jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: invalid cursor")
		}
		start = n
	}
	end := min(start+size, len(r.order))
	out := make([]T, 0, end-start)
	for _, n := range r.order[start:end] {
		out = append(out, r.items[n])
	}
	var next mcp.Cursor
	if end < len(r.order) {
		next = encodeCursor(end)
	}
	return out, next, nil
}

func encodeCursor(offset int) mcp.Cursor {
	return mcp.Cursor(base64.RawURLEncoding.EncodeToString([]byte("o" + strconv.Itoa(offset))))
}

func decodeCursor(c mcp.Cursor) (int, bool) {
	b, err := base64.RawURLEncoding.DecodeString(string(c))
	if err != nil || len(b) < 2 || b[0] != 'o' {
		return 0, false
	}
	n, err := strconv.Atoi(string(b[1:]))
	return n, err == nil && n >= 0
}
