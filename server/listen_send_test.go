package server

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// recordingOut keeps the params of the notifications sent to it.
type recordingOut struct{ params []json.RawMessage }

func (o *recordingOut) Notify(_ context.Context, _ string, params any) error {
	b, err := json.Marshal(params)
	o.params = append(o.params, b)
	return err
}

func (o *recordingOut) Call(context.Context, string, any, any) error { return nil }

// One encoding of the params serves every listener: each gets its own
// subscription id, beside the params' own _meta, which stays as it was.
func TestListenerSendKeepsMeta(t *testing.T) {
	obj, meta, err := splitParams(&mcp.ResourceUpdatedNotificationParams{URI: "file:///a", Meta: mcp.Meta{"k": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	outs := []*recordingOut{{}, {}}
	for i, out := range outs {
		id := jsonrpc.Int64ID(int64(i + 7))
		idJSON, _ := json.Marshal(id)
		l := &listener{id: id, out: out, idJSON: idJSON}
		if err := l.send(context.Background(), mcp.NotificationResourceUpdated, obj, meta); err != nil {
			t.Fatal(err)
		}
	}
	for i, want := range []string{
		`{"_meta":{"io.modelcontextprotocol/subscriptionId":7,"k":"v"},"uri":"file:///a"}`,
		`{"_meta":{"io.modelcontextprotocol/subscriptionId":8,"k":"v"},"uri":"file:///a"}`,
	} {
		if got := string(outs[i].params[0]); got != want {
			t.Errorf("listener %d got %s, want %s", i, got, want)
		}
	}
	if len(meta) != 1 {
		t.Errorf("the shared _meta was changed: %v", meta)
	}
}
