package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// Skills (SEP-2640): a server serves Agent Skills from directories (each
// directory with a SKILL.md is a skill, its files the skill's files) as
// resources, and answers skills/list, skills/get and, with
// SkillsOptions.DirectoryRead, resources/directory/read. The extension
// lives beside the core: the methods answer -32601 until a skill set is
// added, and a resources/read pays one map lookup for skill files, after
// the registered resources.

// SkillsOptions configure a skill set. A nil *SkillsOptions, and every
// zero field, mean the defaults.
type SkillsOptions struct {
	// Prefix is put before every skill path of the set: "acme/billing"
	// serves the skill in the directory refunds at
	// skill://acme/billing/refunds/SKILL.md. Its segments are made of
	// A-Z a-z 0-9 . _ ~ and -. A set whose root is itself a skill needs
	// one, ending with the skill's name (AddSkillsDir takes the
	// directory's name).
	Prefix string
	// Scheme is the URI scheme of the set's resources. Default
	// mcp.SkillScheme ("skill").
	Scheme string
	// DirectoryRead serves resources/directory/read on the set's
	// directories, and declares it.
	DirectoryRead bool
	// MaxSkills bounds the skills of the set. Default DefaultMaxSkills.
	MaxSkills int
	// MaxEntries bounds the files and directories a scan visits. Default
	// DefaultMaxSkillEntries.
	MaxEntries int
	// MaxTotalBytes bounds the size of all the skills' files together.
	// Default DefaultMaxSkillsBytes.
	MaxTotalBytes int64
	// MaxReadBytes bounds the bytes of the set's files being read at
	// once for resources/read; further reads wait. Default
	// DefaultMaxSkillReadBytes.
	MaxReadBytes int64
	// MaxPageBytes bounds the size of a page of skills/list: a page holds
	// the entries (whole: an entry is never split) until their manifests
	// reach it, and at least one. Default DefaultMaxSkillsPageBytes.
	MaxPageBytes int
	// OnProblem, if set, is told of each skill or file that the set
	// leaves out (a *SkillError: an invalid name or frontmatter, a skill
	// over the extension's limits of 512 files and 16 MiB, a skill that
	// holds a symbolic link or a special file, a file whose name is not
	// printable ASCII, a symbolic link outside any skill), and the set serves
	// the others. When nil, AddSkills and AddSkillsDir fail on the first
	// scan's problems, and the problems of later scans go to the server's
	// logger.
	OnProblem func(error)
}

// Defaults of SkillsOptions.
const (
	DefaultMaxSkills          = 10_000
	DefaultMaxSkillEntries    = 100_000
	DefaultMaxSkillsBytes     = 1 << 30
	DefaultMaxSkillReadBytes  = 64 << 20
	DefaultMaxSkillsPageBytes = 1 << 20
)

// A SkillSet is a tree of Agent Skills that a server serves: see
// Server.AddSkills. Its methods are safe for concurrent use.
type SkillSet struct {
	srv    *Server
	src    skillSource
	opts   SkillsOptions
	prefix []string
	budget *byteBudget

	rebuild sync.Mutex // one scan at a time
	mu      sync.RWMutex
	snap    *snapshot
	gen     uint64 // counts the snapshots
	closed  bool
}

// AddSkills serves the Agent Skills in fsys: every directory that holds
// a SKILL.md is a skill, named by the directory (its frontmatter's name
// must be that name), and every regular file under it is one of its
// files, digested, listed in its entry and readable with resources/read
// at skill://<skill-path>/<file-path> (nested skills are skills too, and
// their files also the enclosing skill's). Hidden files and directories
// (.git, .env) are left out; symbolic links are not followed, and a skill
// whose tree holds one (or a special file, or directories nested more
// than 32 deep) is left out: its manifest could not be complete.
//
// The server declares the skills extension and the resources capability
// from the first set on; each skill's SKILL.md is also listed by
// resources/list, named and described by its frontmatter (unless the
// application registered a resource at that URI: the set leaves it, and
// its Close and Reload never remove it).
//
// The set is scanned now. A file that changed since is noticed when it
// is read (its digest no longer matches), and skills/get looks for
// changes in the skill it returns; either rescans the set, reusing the
// digests of files whose size and time did not change. Reload rescans
// on demand, for skills added or removed.
//
// The fs.FS must keep its files inside it: os.DirFS follows symbolic
// links out of its directory when asked for a path through one; use
// AddSkillsDir for a directory.
func (s *Server) AddSkills(fsys fs.FS, opts *SkillsOptions) (*SkillSet, error) {
	return s.addSkills(skillSource{fsys: fsys}, opts)
}

// AddSkillsDir serves the Agent Skills in the directory dir, as AddSkills
// does, through an os.Root: no path, symbolic link or .. leads out of
// dir. When dir is itself a skill, and opts has no Prefix, the skill is
// named by dir's base name. Close the set to close the directory.
func (s *Server) AddSkillsDir(dir string, opts *SkillsOptions) (*SkillSet, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("skills: %w", err)
	}
	o := SkillsOptions{}
	if opts != nil {
		o = *opts
	}
	if o.Prefix == "" {
		if fi, err := root.Stat(mcp.SkillFile); err == nil && fi.Mode().IsRegular() {
			abs, _ := filepath.Abs(dir)
			o.Prefix = filepath.Base(abs)
		}
	}
	k, err := s.addSkills(skillSource{fsys: root.FS(), root: root}, &o)
	if err != nil {
		root.Close()
	}
	return k, err
}

func (s *Server) addSkills(src skillSource, opts *SkillsOptions) (*SkillSet, error) {
	k := &SkillSet{srv: s, src: src}
	if opts != nil {
		k.opts = *opts
	}
	o := &k.opts
	o.MaxSkills = orDefault(o.MaxSkills, DefaultMaxSkills)
	o.MaxEntries = orDefault(o.MaxEntries, DefaultMaxSkillEntries)
	o.MaxPageBytes = orDefault(o.MaxPageBytes, DefaultMaxSkillsPageBytes)
	if o.MaxTotalBytes <= 0 {
		o.MaxTotalBytes = DefaultMaxSkillsBytes
	}
	if o.MaxReadBytes <= 0 {
		o.MaxReadBytes = DefaultMaxSkillReadBytes
	}
	if o.Scheme == "" {
		o.Scheme = mcp.SkillScheme
	}
	if !validSchemeName(o.Scheme) {
		return nil, fmt.Errorf("skills: %q is not a URI scheme", o.Scheme)
	}
	if o.Prefix != "" {
		k.prefix = strings.Split(strings.Trim(o.Prefix, "/"), "/")
		for _, seg := range k.prefix {
			if !unreservedSegment(seg) {
				return nil, fmt.Errorf("skills: the prefix %q has a segment that is not made of A-Z a-z 0-9 . _ ~ -", o.Prefix)
			}
		}
	}
	k.budget = newByteBudget(o.MaxReadBytes)
	snap, problems, err := k.build(nil, nil)
	if err != nil {
		return nil, err
	}
	if o.OnProblem == nil && len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	for _, p := range problems {
		o.OnProblem(p)
	}
	e := s.skillsEngine()
	e.mu.Lock()
	if err := s.overlapsLocked(k, snap); err != nil {
		e.mu.Unlock()
		return nil, err
	}
	k.snap, k.gen = snap, 1
	e.sets = append(e.sets, k)
	e.mu.Unlock()
	s.syncSkillResources(nil, snap)
	return k, nil
}

// overlapsOthers checks snap, k's new snapshot, against the other sets.
func (s *Server) overlapsOthers(k *SkillSet, snap *snapshot) error {
	e := s.skillsEngine()
	e.mu.RLock()
	defer e.mu.RUnlock()
	return s.overlapsLocked(k, snap)
}

// overlapsLocked (the engine's lock held) refuses a snapshot of k that
// has a skill that is, holds or lies in another set's skill, whatever
// their case: a file URI would be served twice, and the enclosing
// skill's manifest would not be complete.
func (s *Server) overlapsLocked(k *SkillSet, snap *snapshot) error {
	for _, other := range s.skills.sets {
		if other == k {
			continue
		}
		other.mu.RLock()
		mine, theirs := overlap(snap, other.snap)
		other.mu.RUnlock()
		switch {
		case mine == "":
		case mine == theirs:
			return fmt.Errorf("skills: another skill set serves %s already", mine)
		default:
			return fmt.Errorf("skills: the skill %s and %s of another skill set lie one within the other", mine, theirs)
		}
	}
	return nil
}

// overlap returns a skill of a and a skill of b whose directories are
// the same or one within the other, case folded; "" when there are none.
func overlap(a, b *snapshot) (string, string) {
	dirs := func(s *snapshot) map[string]string {
		m := make(map[string]string, len(s.folded))
		for folded, uri := range s.folded {
			m[strings.TrimSuffix(folded, "/"+strings.ToLower(mcp.SkillFile))] = uri
		}
		return m
	}
	// within returns a skill of x whose directory is, or lies in, one of y.
	within := func(x, y map[string]string) (string, string) {
		for d, uri := range x {
			for p := d; ; {
				if other, ok := y[p]; ok {
					return uri, other
				}
				i := strings.LastIndexByte(p, '/')
				if i < 0 {
					break
				}
				p = p[:i]
			}
		}
		return "", ""
	}
	da, db := dirs(a), dirs(b)
	if mine, theirs := within(da, db); mine != "" {
		return mine, theirs
	}
	theirs, mine := within(db, da)
	return mine, theirs
}

// validSchemeName reports whether s is a URI scheme.
func validSchemeName(s string) bool {
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	return strings.Trim(strings.ToLower(s), "abcdefghijklmnopqrstuvwxyz0123456789+-.") == ""
}

// prefixURI is what every URI of the set begins with.
func (k *SkillSet) prefixURI() string { return k.opts.Scheme + "://" }

// Skills returns the entries the set serves now, by URI: copies, which
// the caller may change.
func (k *SkillSet) Skills() []mcp.Skill {
	k.mu.RLock()
	defer k.mu.RUnlock()
	out := make([]mcp.Skill, len(k.snap.skills))
	for i, e := range k.snap.skills {
		out[i] = e.skill.Clone()
	}
	return out
}

// Reload scans the set's tree again, for skills added, changed or
// removed; clients are told the resource list changed when it did. Its
// error, like AddSkills', is a bound the tree exceeds; the skills it
// leaves out go to OnProblem, or to the server's logger.
func (k *SkillSet) Reload() error {
	k.mu.RLock()
	gen := k.gen
	k.mu.RUnlock()
	_, err := k.refresh(gen, "")
	return err
}

// Close stops serving the set, and closes its directory (AddSkillsDir).
// It waits for a rescan under way, which could otherwise list the set's
// SKILL.md files again after Close removed them.
func (k *SkillSet) Close() error {
	k.rebuild.Lock()
	defer k.rebuild.Unlock()
	e := k.srv.skillsEngine()
	e.mu.Lock()
	for i, x := range e.sets {
		if x == k {
			e.sets = append(e.sets[:i], e.sets[i+1:]...)
			break
		}
	}
	e.mu.Unlock()
	k.mu.Lock()
	old, was := k.snap, k.closed
	k.closed = true
	k.mu.Unlock()
	if was {
		return nil
	}
	k.srv.syncSkillResources(old, nil)
	if k.src.root != nil {
		return k.src.root.Close()
	}
	return nil
}

// current returns the snapshot served now and its generation, or nil
// once the set is closed.
func (k *SkillSet) current() (*snapshot, uint64) {
	k.mu.RLock()
	defer k.mu.RUnlock()
	if k.closed {
		return nil, k.gen
	}
	return k.snap, k.gen
}

// refresh scans the set again, unless it was rescanned since generation
// gen (then the newer snapshot serves); forced names a file to hash again
// whatever its size and time. It returns the snapshot served after.
func (k *SkillSet) refresh(gen uint64, forced string) (*snapshot, error) {
	k.rebuild.Lock()
	defer k.rebuild.Unlock()
	prev, now := k.current()
	if prev == nil || now != gen {
		return prev, nil
	}
	var f map[string]bool
	if forced != "" {
		f = map[string]bool{forced: true}
	}
	snap, problems, err := k.build(prev, f)
	if err == nil {
		err = k.srv.overlapsOthers(k, snap)
	}
	if err != nil {
		k.srv.log.Warn("skills: rescanning failed; serving what was scanned before", "error", err)
		return prev, err
	}
	for _, p := range problems {
		if k.opts.OnProblem != nil {
			k.opts.OnProblem(p)
		} else {
			k.srv.log.Warn("skills: a skill or file is left out", "error", p)
		}
	}
	k.mu.Lock()
	if k.closed {
		k.mu.Unlock()
		return nil, nil
	}
	k.snap = snap
	k.gen++
	k.mu.Unlock()
	k.srv.syncSkillResources(prev, snap)
	return snap, nil
}

// skillsEngine holds a server's skill sets.
type skillsEngine struct {
	mu   sync.RWMutex
	sets []*SkillSet
}

// skillsEngine returns the server's skill sets, made on first use.
func (s *Server) skillsEngine() *skillsEngine {
	s.skillsOnce.Do(func() { s.skills = &skillsEngine{} })
	return s.skills
}

// skillSets returns the sets served now.
func (s *Server) skillSets() []*SkillSet {
	if s.skills == nil {
		return nil
	}
	s.skills.mu.RLock()
	defer s.skills.mu.RUnlock()
	return append([]*SkillSet(nil), s.skills.sets...)
}

// addSkillCapabilities declares the extension (and resources, which it
// needs) when a skill set is served.
func (s *Server) addSkillCapabilities(c *mcp.ServerCapabilities) {
	sets := s.skillSets()
	if len(sets) == 0 {
		return
	}
	var settings mcp.SkillsCapability
	for _, k := range sets {
		settings.DirectoryRead = settings.DirectoryRead || k.opts.DirectoryRead
	}
	raw, _ := json.Marshal(settings)
	c.Extensions = maps.Clone(c.Extensions)
	if c.Extensions == nil {
		c.Extensions = map[string]json.RawMessage{}
	}
	c.Extensions[mcp.ExtensionSkills] = raw
	if c.Resources == nil {
		c.Resources = &mcp.ResourcesCapability{Subscribe: true, ListChanged: true}
	}
}

// syncSkillResources makes the resources registry list the SKILL.md of
// the skills of now rather than those of prev, and announces the change.
// Only the entries that a skill set put there are removed or replaced: a
// resource the application registered at a SKILL.md's URI, before or
// after the set, stays.
func (s *Server) syncSkillResources(prev, now *snapshot) {
	changed := false
	s.mu.Lock()
	if prev != nil {
		for uri, e := range prev.byURI {
			if n, ok := now.lookup(uri); !ok || n.resource.Description != e.resource.Description || *n.resource.Size != *e.resource.Size {
				if r, ok := s.resources.get(uri); ok && r.skill {
					changed = s.resources.remove(uri) || changed
				}
			}
		}
	}
	if now != nil {
		for _, e := range now.skills {
			if _, ok := s.resources.get(e.skill.URI); !ok {
				s.resources.set(e.skill.URI, &resourceEntry{resource: e.resource, handler: s.readSkillFile, skill: true})
				changed = true
			}
		}
	}
	s.mu.Unlock()
	if changed {
		s.listChanged(listResources)
	}
}

// lookup returns the skill whose SKILL.md is at uri; a nil snapshot has
// none.
func (snap *snapshot) lookup(uri string) (*skillEntry, bool) {
	if snap == nil {
		return nil, false
	}
	e, ok := snap.byURI[uri]
	return e, ok
}

// skillFileHandler returns the handler of a skill's file, or nil when no
// set serves uri (findResource, after the registered resources).
func (s *Server) skillFileHandler(uri string) ResourceHandler {
	for _, k := range s.skillSets() {
		if snap, _ := k.current(); snap != nil && snap.files[uri] != nil {
			return s.readSkillFile
		}
	}
	return nil
}

// readSkillFile reads a skill's file for resources/read. A file whose
// bytes are no longer those the entry lists makes the set rescan it, and
// the file is read again under the new snapshot: what is sent always
// matches the entry skills/get returns now.
func (s *Server) readSkillFile(ctx context.Context, r *Request, p *mcp.ReadResourceParams, _ map[string]string) (*mcp.ReadResourceResult, error) {
	for _, k := range s.skillSets() {
		snap, gen := k.current()
		f := snap.fileAt(p.URI)
		if f == nil {
			continue
		}
		c, err := k.contents(ctx, f)
		if errors.Is(err, errChanged) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNotRegular) {
			if snap, _ = k.refresh(gen, f.path); snap.fileAt(p.URI) == nil {
				return nil, mcp.ResourceNotFoundError(p.URI)
			}
			c, err = k.contents(ctx, snap.fileAt(p.URI))
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			s.log.Warn("skills: reading a file failed", "uri", p.URI, "error", err)
			return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: %s could not be read", p.URI)
		}
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{c}}, nil
	}
	return nil, mcp.ResourceNotFoundError(p.URI)
}

// fileAt returns the file served at uri, or nil.
func (snap *snapshot) fileAt(uri string) *skillFile {
	if snap == nil {
		return nil
	}
	return snap.files[uri]
}
