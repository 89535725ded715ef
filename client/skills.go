package client

import (
	"context"
	"errors"
	"iter"

	"github.com/mcpwire/mcpwire/mcp"
)

// The skills extension (SEP-2640) from the host's side: listing the
// skills a server serves, getting one skill's entry, and reading a
// directory. Loading a skill, and reading its files only when asked,
// each verified against the entry, is in skills_load.go.

// ErrNoSkills reports a skills request to a server that did not declare
// the skills extension (or, for resources/directory/read, its
// directoryRead setting): the request is not sent.
var ErrNoSkills = errors.New("mcp client: the server does not declare the skills extension (io.modelcontextprotocol/skills)")

// errNoDirectoryRead reports a directory read to a server that did not
// declare directoryRead.
var errNoDirectoryRead = errors.New("mcp client: the server does not declare directoryRead in the skills extension, so resources/directory/read must not be sent")

// skills returns the server's settings of the extension, or ErrNoSkills.
func (s *Session) skills() (mcp.SkillsCapability, error) {
	caps := s.ServerCapabilities()
	c, ok := caps.Skills()
	if !ok {
		return c, ErrNoSkills
	}
	return c, nil
}

// ListSkills returns one page of the skills the server lists
// (skills/list). An entry is returned as the server sent it; Validate it
// before use, as LoadSkill does. An empty or partial listing does not
// mean the server has no other skills: GetSkill finds one by its URI.
func (s *Session) ListSkills(ctx context.Context, params *mcp.ListSkillsParams) (*mcp.ListSkillsResult, error) {
	if _, err := s.skills(); err != nil {
		return nil, err
	}
	p := derefOr(params)
	return call[mcp.ListSkillsResult](ctx, s, mcp.MethodListSkills, &p, &p.Meta)
}

// Skills iterates over every skill the server lists, page by page. It
// reads entries only: no file of any skill.
func (s *Session) Skills(ctx context.Context) iter.Seq2[*mcp.Skill, error] {
	return pages(func(c mcp.Cursor) ([]mcp.Skill, mcp.Cursor, error) {
		r, err := s.ListSkills(ctx, &mcp.ListSkillsParams{Cursor: c})
		if err != nil {
			return nil, "", err
		}
		return r.Skills, r.NextCursor, nil
	})
}

// GetSkill returns the entry of the skill whose SKILL.md is at uri
// (skills/get): the way to confirm that a URI met elsewhere (in the
// server's instructions, another skill, from the user) is a skill, and
// to refresh an entry whose files no longer verify. A URI the server
// serves no skill at is a -32602 error.
func (s *Session) GetSkill(ctx context.Context, uri string) (*mcp.Skill, error) {
	if _, err := s.skills(); err != nil {
		return nil, err
	}
	p := &mcp.GetSkillParams{URI: uri}
	r, err := call[mcp.GetSkillResult](ctx, s, mcp.MethodGetSkill, p, &p.Meta)
	if err != nil {
		return nil, err
	}
	return &r.Skill, nil
}

// ReadDirectory returns one page of the children of a directory resource
// (resources/directory/read): files with their resource metadata,
// subdirectories with mcp.MimeTypeDirectory. It is an error, and nothing
// is sent, when the server did not declare directoryRead.
func (s *Session) ReadDirectory(ctx context.Context, params *mcp.ReadDirectoryParams) (*mcp.ReadDirectoryResult, error) {
	c, err := s.skills()
	if err != nil {
		return nil, err
	}
	if !c.DirectoryRead {
		return nil, errNoDirectoryRead
	}
	p := *params
	return call[mcp.ReadDirectoryResult](ctx, s, mcp.MethodReadDirectory, &p, &p.Meta)
}

// Directory iterates over every child of the directory at uri, page by
// page (see ReadDirectory).
func (s *Session) Directory(ctx context.Context, uri string) iter.Seq2[*mcp.Resource, error] {
	return pages(func(c mcp.Cursor) ([]mcp.Resource, mcp.Cursor, error) {
		r, err := s.ReadDirectory(ctx, &mcp.ReadDirectoryParams{URI: uri, Cursor: c})
		if err != nil {
			return nil, "", err
		}
		return r.Resources, r.NextCursor, nil
	})
}
