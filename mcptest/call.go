package mcptest

import (
	"context"
	"errors"
	"testing"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
)

// CallText calls the tool name with args (encoded to JSON; a
// json.RawMessage is sent as it is, nil sends none) and returns the text
// of its result: its text blocks, joined by newlines. It fails the test
// if the call fails, or if the tool reports an error (isError): use
// CallError for a call that must fail.
func CallText(t testing.TB, sess *client.Session, name string, args any) string {
	t.Helper()
	res := call(t, sess, name, args)
	if res.IsError {
		t.Fatalf("mcptest: tool %q failed: %s", name, res.Content.Text())
	}
	return res.Content.Text()
}

// CallError calls the tool name with args, which must fail as a tool
// (a result with isError, which the model reads), and returns the text of
// its result. It fails the test if the call fails as a request, or if the
// tool succeeds.
func CallError(t testing.TB, sess *client.Session, name string, args any) string {
	t.Helper()
	res := call(t, sess, name, args)
	if !res.IsError {
		t.Fatalf("mcptest: tool %q succeeded, want a tool error; it said: %s", name, res.Content.Text())
	}
	return res.Content.Text()
}

// Call calls the tool name with args and returns its result decoded into
// Out, as client.CallTool does: from structuredContent (checked against
// the tool's outputSchema if the session listed the tools), or from its
// text. It fails the test if the call fails, the tool reports an error,
// or the result does not decode.
func Call[Out any](t testing.TB, sess *client.Session, name string, args any) Out {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	out, err := client.CallTool[Out](ctx, sess, name, args)
	if err != nil {
		t.Fatalf("mcptest: %v", err)
	}
	return out
}

// call calls a tool and fails the test if the request fails.
func call(t testing.TB, sess *client.Session, name string, args any) *mcp.CallToolResult {
	t.Helper()
	p, err := mcp.NewCallToolParams(name, args)
	if err != nil {
		t.Fatalf("mcptest: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	res, err := sess.CallTool(ctx, p)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("mcptest: tool %q did not answer within %v", name, Timeout)
		}
		t.Fatalf("mcptest: calling tool %q: %v", name, err)
	}
	return res
}
