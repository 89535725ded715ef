package client_test

import (
	"context"
	"testing"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcptest"
)

// TestDynamicSkillReadsStayInTheSkill: a dynamic skill has no manifest to
// hold reads to, so ReadFile must keep them inside the skill's directory
// whatever the name's form: by URI too, no ".." or encoded traversal is
// sent to the server.
func TestDynamicSkillReadsStayInTheSkill(t *testing.T) {
	srv, rc := skillsServer(t, skillsFS(), nil)
	sess := mcptest.Connect(t, srv, nil)
	entry := firstSkill(t, sess)
	dyn := *entry
	dyn.Resources, dyn.Dynamic = nil, true
	l, err := sess.LoadSkill(context.Background(), &dyn, &client.LoadSkillOptions{AllowDynamic: true})
	if err != nil {
		t.Fatal(err)
	}
	before := len(rc.list())
	for _, name := range []string{
		"skill://pdf-processing/../other/SKILL.md",
		"skill://pdf-processing/references/../../other/SKILL.md",
		"skill://pdf-processing/%2e%2e/other/SKILL.md",
		"skill://pdf-processing//etc/passwd",
		"skill://pdf-processing/a?b",
	} {
		if _, err := l.ReadFile(context.Background(), name); err == nil {
			t.Errorf("ReadFile(%q) was read", name)
		}
	}
	if sent := rc.list()[before:]; len(sent) > 0 {
		t.Errorf("reads sent: %q", sent)
	}
}

// TestDynamicSkillReadsByPathStayInTheSkill: a dynamic skill's file named
// by its path was escaped segment by segment and sent without the checks
// a URI gets: "..\..\secret" went out as skill://pdf-processing/..%5C..%5Csecret,
// a traversal for a server that maps URIs to Windows paths, which
// ValidateSkillFilePath refuses in a URI (as it refuses an encoded NUL).
func TestDynamicSkillReadsByPathStayInTheSkill(t *testing.T) {
	srv, rc := skillsServer(t, skillsFS(), nil)
	sess := mcptest.Connect(t, srv, nil)
	entry := firstSkill(t, sess)
	dyn := *entry
	dyn.Resources, dyn.Dynamic = nil, true
	l, err := sess.LoadSkill(context.Background(), &dyn, &client.LoadSkillOptions{AllowDynamic: true})
	if err != nil {
		t.Fatal(err)
	}
	before := len(rc.list())
	for _, name := range []string{`..\..\other\SKILL.md`, `references\..\..\x`, "a\x00b", "%2e%2e/x"} {
		if _, err := l.ReadFile(context.Background(), name); err == nil {
			t.Errorf("ReadFile(%q) was read", name)
		}
	}
	sent := rc.list()[before:]
	for _, uri := range sent {
		if uri != "skill://pdf-processing/%252e%252e/x" { // a file named "%2e%2e", literally: allowed
			t.Errorf("read sent: %q", uri)
		}
	}
	// A path the URI checks accept is still read.
	if _, err := l.ReadFile(context.Background(), "references/a b.md"); err != nil {
		t.Errorf("ReadFile(references/a b.md): %v", err)
	}
}
