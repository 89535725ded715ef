package server

import (
	"context"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// The methods of the skills extension: skills/list, skills/get and
// resources/directory/read.

// skillSetsFor returns the sets for a skills request, or -32601 when the
// server serves none (as for a method it does not know).
func (s *Server) skillSetsFor(r *Request) ([]*SkillSet, error) {
	sets := s.skillSets()
	if len(sets) == 0 {
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: %s (this server serves no skills)", r.Method)
	}
	return sets, nil
}

// listSkills answers skills/list: the skills of every set, by URI, a
// page at a time. A page ends once its entries reach the MaxPageBytes of
// the first skill set the server serves (sets[0], whichever set the
// page's entries come from), and holds PageSize entries at most.
func (s *Server) listSkills(ctx context.Context, r *Request, p *mcp.ListSkillsParams) (any, error) {
	sets, err := s.skillSetsFor(r)
	if err != nil {
		return nil, err
	}
	var all []*skillEntry
	budget := sets[0].opts.MaxPageBytes
	for _, k := range sets {
		if snap, _ := k.current(); snap != nil {
			all = append(all, snap.skills...)
		}
	}
	// By URI, and a cursor names the last URI of its page: a set
	// reloaded between two pages (skills/get can make it) moves no
	// entry, so a walk neither repeats nor skips a skill that was there
	// all along.
	slices.SortFunc(all, func(a, b *skillEntry) int { return strings.Compare(a.skill.URI, b.skill.URI) })
	start, err := keyStart(p.Cursor, len(all), func(i int) string { return all[i].skill.URI })
	if err != nil {
		return nil, err
	}
	res := &mcp.ListSkillsResult{Skills: []mcp.Skill{}}
	size, end := 0, start
	for end < len(all) && len(res.Skills) < s.opts.PageSize {
		e := all[end]
		n := entrySize(&e.skill)
		if len(res.Skills) > 0 && size+n > budget {
			break
		}
		res.Skills = append(res.Skills, e.skill.Clone()) // a middleware may change the result
		size += n
		end++
	}
	if end < len(all) {
		res.NextCursor = encodeKeyCursor(all[end-1].skill.URI)
	}
	r.cacheable(&res.ResultType, &res.Meta, &res.TTLMs, &res.CacheScope)
	return res, nil
}

// keyStart is where the page that cursor designates starts in a list of n
// entries ordered by key: after the cursor's key ("" is the first page).
func keyStart(cursor mcp.Cursor, n int, key func(int) string) (int, error) {
	if cursor == "" {
		return 0, nil
	}
	last, ok := decodeKeyCursor(cursor)
	if !ok {
		return 0, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: invalid cursor")
	}
	return sort.Search(n, func(i int) bool { return key(i) > last }), nil
}

// entrySize estimates the bytes of an entry on the wire.
func entrySize(sk *mcp.Skill) int {
	n := len(sk.URI) + 64
	for _, v := range sk.Frontmatter {
		n += len(v) + 16
	}
	for _, r := range sk.Resources {
		n += len(r.URI) + len(r.Digest) + 48
	}
	return n
}

// getSkill answers skills/get with the entry of the skill whose SKILL.md
// is at the URI, after looking for changes to its files: a file changed,
// added or removed makes the set rescan, and the new entry is returned.
func (s *Server) getSkill(ctx context.Context, r *Request, p *mcp.GetSkillParams) (any, error) {
	sets, err := s.skillSetsFor(r)
	if err != nil {
		return nil, err
	}
	if p.URI == "" {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, `Invalid params: "uri" is required`)
	}
	for _, k := range sets {
		snap, gen := k.current()
		e, ok := snap.lookup(p.URI)
		if !ok {
			continue
		}
		if k.changed(snap, e) {
			if snap, err = k.refresh(gen, ""); err != nil {
				return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: the skills could not be read again")
			}
			if e, ok = snap.lookup(p.URI); !ok {
				break
			}
		}
		res := &mcp.GetSkillResult{Skill: e.skill.Clone()}
		r.cacheable(&res.ResultType, &res.Meta, &res.TTLMs, &res.CacheScope)
		return res, nil
	}
	return nil, mcp.UnknownSkillError(p.URI)
}

// changed reports whether the skill's files differ from its entry: one
// listed is gone or has another size or time, or the skill's directory
// holds one more, or something the scan would not serve (a symbolic
// link, a special file, a directory too deep). It looks at most at twice
// the files a skill may have.
func (k *SkillSet) changed(snap *snapshot, e *skillEntry) bool {
	listed := map[string]*skillFile{}
	for _, r := range e.skill.Resources {
		f := snap.files[r.URI]
		listed[f.path] = f
	}
	seen, budget := 0, 2*mcp.MaxSkillResources
	var walk func(dir string, depth int) bool
	walk = func(dir string, depth int) bool {
		ents, err := k.src.readDir(dir, budget)
		if err != nil {
			return true
		}
		for _, d := range ents {
			if budget--; budget < 0 {
				return true
			}
			name := d.Name()
			if strings.HasPrefix(name, ".") {
				continue
			}
			p := path.Join(dir, name)
			switch t := d.Type(); {
			case t.IsDir():
				if depth+1 > maxSkillDepth || walk(p, depth+1) {
					return true
				}
			case t.IsRegular():
				f := listed[p]
				fi, err := d.Info()
				if f == nil || err != nil || fi.Size() != f.size || !fi.ModTime().Equal(f.mod) {
					return true
				}
				seen++
			default:
				return true
			}
		}
		return false
	}
	depth := 0
	if e.dir != "." {
		depth = strings.Count(e.dir, "/") + 1
	}
	return walk(e.dir, depth) || seen != len(listed)
}

// readDirectory answers resources/directory/read: the children of a
// directory of a set that serves directory reads, a page at a time.
func (s *Server) readDirectory(ctx context.Context, r *Request, p *mcp.ReadDirectoryParams) (any, error) {
	sets, err := s.skillSetsFor(r)
	if err != nil {
		return nil, err
	}
	var readable []*SkillSet
	for _, k := range sets {
		if k.opts.DirectoryRead {
			readable = append(readable, k)
		}
	}
	if len(readable) == 0 {
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: %s (this server does not declare directoryRead)", r.Method)
	}
	if p.URI == "" {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, `Invalid params: "uri" is required`)
	}
	// A directory whose URI several sets share (a prefix directory) lists
	// the children of all.
	var children []mcp.Resource
	found := false
	for _, k := range readable {
		if snap, _ := k.current(); snap != nil {
			if c, ok := snap.dirs[p.URI]; ok {
				children, found = append(children, c...), true
			}
		}
	}
	if !found {
		return nil, mcp.NotDirectoryError(p.URI)
	}
	// By URI, a cursor naming the last URI of its page (as listSkills).
	slices.SortFunc(children, func(a, b mcp.Resource) int { return strings.Compare(a.URI, b.URI) })
	start, err := keyStart(p.Cursor, len(children), func(i int) string { return children[i].URI })
	if err != nil {
		return nil, err
	}
	end := min(start+s.opts.PageSize, len(children))
	res := &mcp.ReadDirectoryResult{Resources: children[start:end:end]}
	if end < len(children) {
		res.NextCursor = encodeKeyCursor(children[end-1].URI)
	}
	r.complete(&res.ResultType, &res.Meta)
	return res, nil
}

// String describes the set, for logs.
func (k *SkillSet) String() string {
	snap, _ := k.current()
	n := 0
	if snap != nil {
		n = len(snap.skills)
	}
	return fmt.Sprintf("skill set of %d skills at %s%s", n, k.prefixURI(), strings.Join(k.prefix, "/"))
}
