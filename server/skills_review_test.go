package server_test

import (
	"context"
	"testing"

	"github.com/mcpwire/mcpwire/mcptest"
)

// TestSkillEntriesAreCopies: what SkillSet.Skills and skills/list hand
// out must not be the snapshot the server serves and verifies against: a
// caller (or a middleware) that changes an entry changes nothing served.
func TestSkillEntriesAreCopies(t *testing.T) {
	srv, set := newSkillsServer(t, skillsFS(), nil)
	want := set.Skills()[1].Resources[0].Digest
	got := set.Skills()
	got[1].Resources[0].Digest = "sha256:tampered"
	got[1].Frontmatter["description"] = []byte(`"tampered"`)
	sess := mcptest.Connect(t, srv, nil)
	entry, err := sess.GetSkill(context.Background(), "skill://pdf-processing/SKILL.md")
	if err != nil {
		t.Fatal(err)
	}
	if entry.Resources[0].Digest != want || entry.Frontmatter.Description() != "Extract, fill, and assemble PDF documents" {
		t.Fatalf("changing what Skills returned changed the entry served: digest %s, description %q", entry.Resources[0].Digest, entry.Frontmatter.Description())
	}
	if _, err := sess.LoadSkill(context.Background(), entry, nil); err != nil {
		t.Fatal(err)
	}
}
