package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcptest"
	"github.com/mcpwire/mcpwire/server"
)

// A walk of tools/list in pages sees every tool that was there all along
// exactly once, whatever is removed or added between its pages: a cursor
// names the last item of its page, not an offset into a list that moved.
func TestPagedWalkOverChangingList(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, &server.Options{PageSize: 2})
	defer srv.Close()
	add := func(name string) {
		if err := srv.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, noop); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		add(n)
	}
	sess := mcptest.Connect(t, srv, nil)
	ctx := context.Background()
	var seen []string
	var cursor mcp.Cursor
	for page := 0; ; page++ {
		res, err := sess.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range res.Tools {
			seen = append(seen, tool.Name)
		}
		switch page {
		case 0:
			srv.RemoveTools("a") // before the cursor
			add("f")             // after the end
		case 1:
			srv.RemoveTools("e") // after the cursor: not listed
		}
		if cursor = res.NextCursor; cursor == "" || page > 10 {
			break
		}
	}
	if want := []string{"a", "b", "c", "d", "f"}; !slices.Equal(seen, want) {
		t.Errorf("the walk listed %v, want %v", seen, want)
	}
	if _, err := sess.ListTools(ctx, &mcp.ListToolsParams{Cursor: "czk5OTk"}); err == nil {
		t.Error("a cursor the server never gave (s999) was accepted")
	}
}

// The same holds for skills/list across a reload of the set between
// pages (which skills/get can cause).
func TestPagedSkillsWalkOverReload(t *testing.T) {
	fsys := fstest.MapFS{}
	skill := func(name string) {
		fsys[name+"/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: " + name + "\ndescription: x\n---\n")}
	}
	for i := range 6 {
		skill(fmt.Sprintf("s%d", i))
	}
	srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, &server.Options{PageSize: 2})
	defer srv.Close()
	set, err := srv.AddSkills(fsys, nil)
	if err != nil {
		t.Fatal(err)
	}
	sess := mcptest.Connect(t, srv, nil)
	var seen []string
	var cursor mcp.Cursor
	for page := 0; ; page++ {
		res, err := sess.ListSkills(context.Background(), &mcp.ListSkillsParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range res.Skills {
			seen = append(seen, strings.TrimSuffix(strings.TrimPrefix(s.URI, "skill://"), "/SKILL.md"))
		}
		if page == 0 {
			delete(fsys, "s0/SKILL.md")
			skill("s35") // sorts among the rest, after the cursor
			if err := set.Reload(); err != nil {
				t.Fatal(err)
			}
		}
		if cursor = res.NextCursor; cursor == "" || page > 10 {
			break
		}
	}
	if want := []string{"s0", "s1", "s2", "s3", "s35", "s4", "s5"}; !slices.Equal(seen, want) {
		t.Errorf("the walk listed %v, want %v", seen, want)
	}
}
