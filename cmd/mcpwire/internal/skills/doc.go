// Package skills is the mcpwire skills verb: the Agent Skills a server
// serves through the Skills extension of MCP (SEP-2640).
//
//	mcpwire skills @SERVER                 list the skills (entries only)
//	mcpwire skills NAME @SERVER            load one: its SKILL.md, verified
//	mcpwire skills NAME --file PATH @SERVER  and one of its files, verified
//
// It acts as a host does: listing reads no file; loading a skill reads
// its SKILL.md alone and verifies its size, digest and frontmatter
// against the skill's entry; --file reads one listed file, verified too.
// A mismatch fails the command with a message that names the file and
// what differs. (Serving skills is mcpwire serve skills, in package
// serve.)
//
//	family.go  the Family of the root command
//	skills.go  the command: parse, list, load
package skills
