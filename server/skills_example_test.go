package server_test

import (
	"context"
	"fmt"
	"testing/fstest"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/memory"
)

// A server serves a tree of Agent Skills (here an fs.FS; AddSkillsDir
// takes a directory); a client lists them and reads one's files.
func ExampleServer_AddSkills() {
	skills := fstest.MapFS{
		"pdf-processing/SKILL.md":            {Data: []byte("---\nname: pdf-processing\ndescription: Extract text from PDFs\n---\nSee references/FORMS.md.\n")},
		"pdf-processing/references/FORMS.md": {Data: []byte("Fields: name, date.\n")},
		"pdf-processing/.env":                {Data: []byte("never served\n")},
	}
	srv := server.New(mcp.Implementation{Name: "skills", Version: "1.0.0"}, nil)
	defer srv.Close()
	if _, err := srv.AddSkills(skills, &server.SkillsOptions{DirectoryRead: true}); err != nil {
		panic(err)
	}

	ctx := context.Background()
	ct, st := memory.NewPair(nil)
	ss, _ := srv.Connect(ctx, st)
	defer ss.Wait()
	defer ss.Close()
	sess, err := client.New(mcp.Implementation{Name: "host", Version: "1.0.0"}, nil).Connect(ctx, ct)
	if err != nil {
		panic(err)
	}
	defer sess.Close()

	for entry, err := range sess.Skills(ctx) {
		if err != nil {
			panic(err)
		}
		fmt.Println(entry.URI, "-", entry.Frontmatter.Description())
		for _, r := range entry.Resources {
			fmt.Println(" ", r.URI, r.Size, "bytes")
		}
		skill, err := sess.LoadSkill(ctx, entry, nil)
		if err != nil {
			panic(err)
		}
		forms, err := skill.ReadFile(ctx, "references/FORMS.md")
		fmt.Printf("  FORMS.md: %q %v\n", forms, err)
	}
	// Output:
	// skill://pdf-processing/SKILL.md - Extract text from PDFs
	//   skill://pdf-processing/SKILL.md 90 bytes
	//   skill://pdf-processing/references/FORMS.md 20 bytes
	//   FORMS.md: "Fields: name, date.\n" <nil>
}
