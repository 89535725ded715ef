package skills

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/mcp"
)

// maxSkills bounds the entries the command reads from a listing.
const maxSkills = 10_000

// options are the options of mcpwire skills.
type options struct {
	Skill string // the skill to load: its name, or the URI of its SKILL.md; "" lists
	File  string // --file: one of the skill's files to read, by path or URI
}

func newSkillsCmd(a *app.App, runF func(context.Context, *options) error) *cobra.Command {
	o := &options{}
	cmd := &cobra.Command{
		Use:   "skills [SKILL] [flags] (@NAME | --url URL | -- COMMAND [ARG...])",
		Short: "List the server's Agent Skills, or load one, verified",
		Long: `List the Agent Skills the server serves through the Skills extension
(io.modelcontextprotocol/skills, SEP-2640): name, files, size, URI and
description of each. Listing reads no file of any skill.

With SKILL, the skill's name or the URI of its SKILL.md, load that skill as
a host does: get its entry (skills/get), read its SKILL.md and nothing
else, verify the SKILL.md's size and SHA-256 digest against the entry and
its frontmatter, field by field, against the entry's frontmatter; then
print the entry and the SKILL.md. --file PATH also reads one of the
skill's files (a path from the skill's root, or its URI), only if the
entry lists it, verified the same way, and prints it alone (raw bytes to
a file or pipe; binary content is summed up on a terminal).

A file that fails verification fails the command (exit 1), with a message
that names the file and what differs. A name that several skills share
must be given as a URI.

With --json, print {"skills": [...]} (every page of skills/list), or
{"skill": ENTRY, "content": "..."} for a loaded skill, with "file" and
"fileContent" for --file.`,
		Example: `  mcpwire skills -- mcpwire serve skills ~/.claude/skills
  mcpwire skills pdf-processing --url https://mcp.example.com/mcp
  mcpwire skills skill://acme/billing/refunds/SKILL.md --file examples/email.md @docs`,
		GroupID:           groupSkills,
		Args:              skillArgs,
		ValidArgsFunction: a.CompleteArgs(1),
		RunE: a.RunE(func(cmd *cobra.Command, pos []string) error {
			if len(pos) > 0 {
				o.Skill = pos[0]
			}
			if o.File != "" && o.Skill == "" {
				return app.UsageErrorf("--file needs a SKILL")
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return run(cmd.Context(), a, o)
		}),
	}
	cmd.Flags().Var(app.NamedString(&o.File, "PATH"), "file", "also read this file of the skill (a path from its root, or its URI), verified, and print it")
	return cmd
}

// skillArgs accepts at most one positional argument, then the server.
func skillArgs(cmd *cobra.Command, args []string) error {
	if d := cmd.ArgsLenAtDash(); d >= 0 {
		args = args[:d]
	}
	_, pos, err := app.ServerAlias(args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		if cmd.ArgsLenAtDash() < 0 && !cmd.Flags().Changed("url") && !cmd.Flags().Changed("server") {
			return app.UsageErrorf("unexpected argument %q: name the server after --, as in: %s %s -- %s", pos[1], cmd.CommandPath(), pos[0], strings.Join(pos[1:], " "))
		}
		return app.UsageErrorf("unexpected argument %q (usage: %s)", pos[1], cmd.UseLine())
	}
	return nil
}

func run(ctx context.Context, a *app.App, o *options) error {
	return a.WithSession(ctx, func(ctx context.Context, s *client.Session) error {
		if _, ok := s.ServerCapabilities().Skills(); !ok {
			return errors.New("the server does not declare the Skills extension (io.modelcontextprotocol/skills)")
		}
		if o.Skill == "" {
			return list(ctx, a, s)
		}
		return load(ctx, a, s, o)
	})
}

// listing is what mcpwire skills prints with --json.
type listing struct {
	Skills []mcp.Skill `json:"skills"`
}

// collect reads the listing, at most maxSkills entries; it reports
// whether it stopped there.
func collect(ctx context.Context, s *client.Session) ([]mcp.Skill, bool, error) {
	list := []mcp.Skill{}
	for sk, err := range s.Skills(ctx) {
		if err != nil {
			return nil, false, err
		}
		if len(list) == maxSkills {
			return list, true, nil
		}
		list = append(list, *sk)
	}
	return list, false, nil
}

// list prints the listing.
func list(ctx context.Context, a *app.App, s *client.Session) error {
	skills, more, err := collect(ctx, s)
	if err != nil {
		return err
	}
	if a.Global.JSON {
		return app.WriteJSON(a.Stdout, &listing{Skills: skills})
	}
	if len(skills) == 0 {
		return app.WriteText(a.Stdout, "(no skills listed; a skill outside the listing can still be loaded by its URI)")
	}
	t := &app.Table{Header: []string{"NAME", "FILES", "SIZE", "URI", "DESCRIPTION"}}
	for _, sk := range skills {
		files, size := "dynamic", ""
		if !sk.Dynamic {
			var total int64
			for _, r := range sk.Resources {
				total += r.Size
			}
			files, size = fmt.Sprint(len(sk.Resources)), app.FormatSize(total)
		}
		desc := app.Flatten(sk.Frontmatter.Description())
		if err := sk.Validate(); err != nil {
			desc = "INVALID: " + strings.TrimPrefix(err.Error(), "mcp: ")
		}
		t.Add(app.Flatten(sk.Frontmatter.Name()), files, size, sk.URI, desc)
	}
	var b bytes.Buffer
	t.Write(&b, "")
	if more {
		fmt.Fprintf(&b, "(the listing stops after %d skills)\n", maxSkills)
	}
	_, err = a.Stdout.Write(b.Bytes())
	return err
}

// find returns the entry of the skill o names: by URI, through
// skills/get; by name, from the listing, where it must be the only one.
func find(ctx context.Context, s *client.Session, name string) (*mcp.Skill, error) {
	if strings.Contains(name, "://") {
		return s.GetSkill(ctx, name)
	}
	skills, _, err := collect(ctx, s)
	if err != nil {
		return nil, err
	}
	var found []mcp.Skill
	for _, sk := range skills {
		if sk.Frontmatter.Name() == name {
			found = append(found, sk)
		}
	}
	switch len(found) {
	case 0:
		return nil, app.UsageErrorf("the server lists no skill named %q (%d listed); a skill outside the listing is loaded by the URI of its SKILL.md", name, len(skills))
	case 1:
		// Get the entry anew, as a host does before it loads a skill.
		return s.GetSkill(ctx, found[0].URI)
	}
	var uris []string
	for _, sk := range found {
		uris = append(uris, sk.URI)
	}
	return nil, app.UsageErrorf("%d skills are named %q; give one's URI: %s", len(found), name, strings.Join(uris, ", "))
}

// loaded is what mcpwire skills SKILL prints with --json.
type loaded struct {
	Skill       mcp.Skill `json:"skill"`
	Content     string    `json:"content"`
	File        string    `json:"file,omitempty"`
	FileContent *string   `json:"fileContent,omitempty"`
}

// load loads the skill, and reads the file --file names.
func load(ctx context.Context, a *app.App, s *client.Session, o *options) error {
	entry, err := find(ctx, s, o.Skill)
	if err != nil {
		return err
	}
	l, err := s.LoadSkill(ctx, entry, &client.LoadSkillOptions{AllowDynamic: true})
	if err != nil {
		return err
	}
	out := loaded{Skill: l.Entry, Content: string(l.Content)}
	var data []byte
	if o.File != "" {
		if data, err = l.ReadFile(ctx, o.File); err != nil {
			return err
		}
		out.File, out.FileContent = o.File, new(string(data))
	}
	switch {
	case a.Global.JSON:
		return app.WriteJSON(a.Stdout, &out)
	case o.File != "":
		return writeFile(a, o.File, data)
	}
	return writeSkill(a.Stdout, l)
}

// writeSkill prints a loaded skill: its entry, then its SKILL.md.
func writeSkill(w io.Writer, l *client.LoadedSkill) error {
	var b bytes.Buffer
	e := &l.Entry
	fmt.Fprintf(&b, "%s: %s\n", app.Flatten(e.Frontmatter.Name()), app.Flatten(e.Frontmatter.Description()))
	fmt.Fprintf(&b, "%s (SKILL.md verified)\n", e.URI)
	if e.Dynamic {
		b.WriteString("files: dynamic (no digests to verify)\n")
	} else {
		dir, _, _ := mcp.SplitSkillURI(e.URI)
		t := &app.Table{Header: []string{"FILE", "SIZE", "DIGEST"}}
		for _, r := range e.Resources {
			p, err := url.PathUnescape(strings.TrimPrefix(r.URI, dir+"/"))
			if err != nil {
				p = r.URI
			}
			t.Add(p, app.FormatSize(r.Size), r.Digest)
		}
		t.Write(&b, "")
	}
	b.WriteString("\n")
	b.Write(l.Content)
	if len(l.Content) > 0 && l.Content[len(l.Content)-1] != '\n' {
		b.WriteByte('\n')
	}
	_, err := w.Write(b.Bytes())
	return err
}

// writeFile prints a file of the skill: text as it is, binary data raw
// to a file or pipe and summed up on a terminal.
func writeFile(a *app.App, name string, data []byte) error {
	if !utf8.Valid(data) && a.IsTerminal(a.Stdout) {
		return app.WriteText(a.Stdout, app.Bracket("binary", name, app.FormatSize(int64(len(data))))+" (redirect stdout to a file to save it)")
	}
	_, err := a.Stdout.Write(data)
	return err
}
