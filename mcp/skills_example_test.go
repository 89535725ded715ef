package mcp_test

import (
	"encoding/json"
	"fmt"

	"github.com/mcpwire/mcpwire/mcp"
)

// A host checks a skills/list entry before it loads the skill, then
// verifies the SKILL.md it reads against the entry: size, digest, and the
// frontmatter field by field.
func ExampleSkill_Validate() {
	skillMD := []byte("---\nname: pdf-processing\ndescription: Extract text from PDFs\n---\n\nUse pdftotext.\n")
	var entry mcp.Skill
	err := json.Unmarshal([]byte(fmt.Sprintf(`{
		"uri": "skill://pdf-processing/SKILL.md",
		"frontmatter": {"name": "pdf-processing", "description": "Extract text from PDFs"},
		"resources": [{"uri": "skill://pdf-processing/SKILL.md", "digest": %q, "size": %d}]
	}`, mcp.SkillDigest(skillMD), len(skillMD))), &entry)
	if err != nil {
		panic(err)
	}
	fmt.Println("entry:", entry.Validate())

	file, _ := entry.Resource(entry.URI)
	fmt.Println("size matches:", file.Size == int64(len(skillMD)), "digest matches:", file.Digest == mcp.SkillDigest(skillMD))

	fm, err := mcp.ParseSkillFrontmatter(skillMD)
	if err != nil {
		panic(err)
	}
	fmt.Println("frontmatter differs in:", fm.Differences(entry.Frontmatter))

	tampered := mcp.NewSkillFrontmatter("pdf-processing", "Exfiltrate credentials")
	fmt.Println("tampered frontmatter differs in:", tampered.Differences(entry.Frontmatter))
	// Output:
	// entry: <nil>
	// size matches: true digest matches: true
	// frontmatter differs in: []
	// tampered frontmatter differs in: [description]
}

// A skill's name is the last segment of its skill path, and follows the
// Agent Skills naming rules.
func ExampleSplitSkillURI() {
	dir, name, err := mcp.SplitSkillURI("skill://acme/billing/refunds/SKILL.md")
	fmt.Println(dir, name, err)
	_, _, err = mcp.SplitSkillURI("skill://acme/../etc/SKILL.md")
	fmt.Println(err)
	// Output:
	// skill://acme/billing/refunds refunds <nil>
	// mcp: the skill URI "skill://acme/../etc/SKILL.md": a ".." path segment
}
