package main

import (
	"embed"
	"io/fs"

	"github.com/mcpwire/mcpwire/server"
)

// The skills of the sep-2640-skills-* scenarios (the Skills extension):
// two skills, one under a prefix (skill://acme/billing/refunds), both with
// subdirectories, so that resources/directory/read has a directory child
// to list under each skill's root. The scenarios discover them through
// skills/list and resources/list; nothing in them is hard-coded.

//go:embed skills
var skillFiles embed.FS

// addSkills serves the skills, with resources/directory/read.
func (e *everything) addSkills() error {
	fsys, err := fs.Sub(skillFiles, "skills")
	if err != nil {
		return err
	}
	_, err = e.srv.AddSkills(fsys, &server.SkillsOptions{DirectoryRead: true})
	return err
}
