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
