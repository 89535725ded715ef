package server

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
)

// Scanning a skill set: walk the tree for the directories that hold a
// SKILL.md and the regular files under them, then build each skill's
// entry: its frontmatter, checked, and the manifest of its files with
// their digests. Everything is bounded (SkillsOptions), and a skill that
// breaks a rule is left out with a SkillError saying why.

// maxSkillDepth bounds how deep a scan descends.
const maxSkillDepth = 32

// A SkillError is a skill, or a file, that a skill set leaves out, and
// why.
type SkillError struct {
	// Path is the skill's directory or the file, relative to the set's
	// root ("." for the root), with / separators.
	Path string
	// Err says what is wrong.
	Err error
}

func (e *SkillError) Error() string { return "skills: " + e.Path + ": " + e.Err.Error() }

// Unwrap returns e.Err.
func (e *SkillError) Unwrap() error { return e.Err }

// scannedFile is a regular file found under a skill directory.
type scannedFile struct {
	path string // relative to the root, with /
	size int64
	mod  time.Time
}

// digestKey identifies a file's content for the digest cache: a file of
// the same size and modification time is taken to be unchanged (a read
// that finds otherwise rescans: see SkillSet.verify).
type digestKey struct {
	path string
	size int64
	mod  time.Time
}

// scanner walks one skill set's tree.
type scanner struct {
	set      *SkillSet
	entries  int
	files    []scannedFile // under skill directories, in walk order
	dirs     []string      // the skill directories
	unlisted []scannedFile // under skill directories, what cannot be served (path and why, in err)
	why      map[string]error
	problems []error
}

// problem records a skill or file left out.
func (sc *scanner) problem(p string, format string, args ...any) {
	sc.problems = append(sc.problems, &SkillError{Path: p, Err: fmt.Errorf(format, args...)})
}

// cannot records what cannot be served at p: under a skill's directory it
// makes the skill's manifest incomplete, and so leaves the skill out
// (build); elsewhere it is a problem of its own.
func (sc *scanner) cannot(p string, inSkill bool, format string, args ...any) {
	if !inSkill {
		sc.problem(p, format, args...)
		return
	}
	if sc.why == nil {
		sc.why = map[string]error{}
	}
	sc.unlisted = append(sc.unlisted, scannedFile{path: p})
	sc.why[p] = fmt.Errorf(format, args...)
}

// walk reads the directory dir (depth deep) and what is under it. inSkill
// tells whether a directory above it is a skill. It fails only when the
// scan must stop: too many entries, or the root unreadable.
func (sc *scanner) walk(dir string, depth int, inSkill bool) error {
	max := sc.set.opts.MaxEntries
	ents, err := sc.set.src.readDir(dir, max-sc.entries)
	if sc.entries += len(ents); errors.Is(err, errTooManyEntries) || sc.entries > max {
		return fmt.Errorf("skills: more than %d files and directories to search (SkillsOptions.MaxEntries): point at a smaller tree", max)
	}
	if err != nil {
		if dir == "." {
			return fmt.Errorf("skills: reading the root: %w", err)
		}
		sc.cannot(dir, inSkill, "cannot be read: %v", err)
		return nil
	}
	here := slices.ContainsFunc(ents, func(e fs.DirEntry) bool { return e.Name() == mcp.SkillFile && e.Type().IsRegular() })
	if here {
		sc.dirs = append(sc.dirs, dir)
	}
	in := inSkill || here
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue // hidden: .git, .env, editor files
		}
		p := path.Join(dir, name)
		switch t := e.Type(); {
		case t.IsDir():
			if depth+1 > maxSkillDepth {
				sc.cannot(p, in, "more than %d directories deep: not searched", maxSkillDepth)
				continue
			}
			if err := sc.walk(p, depth+1, in); err != nil {
				return err
			}
		case t.IsRegular():
			if !in {
				continue
			}
			fi, err := e.Info()
			if err != nil {
				sc.cannot(p, in, "cannot be read: %v", err)
				continue
			}
			sc.files = append(sc.files, scannedFile{path: p, size: fi.Size(), mod: fi.ModTime()})
		case t&fs.ModeSymlink != 0:
			sc.cannot(p, in, "is a symbolic link, which skills do not follow")
		default:
			if in {
				sc.cannot(p, in, "is not a regular file (%v)", t)
			}
		}
	}
	return nil
}

// snapshot is what a skill set serves: built by a scan, replaced whole
// when something changes, never modified.
type snapshot struct {
	skills []*skillEntry                   // by URI
	byURI  map[string]*skillEntry          // SKILL.md URI → skill
	files  map[string]*skillFile           // file URI → file
	dirs   map[string][]mcp.Resource       // directory URI → its children, by URI
	folded map[string]string               // lowercased skill path → the skill's URI
	hashes map[digestKey]string            // the digests computed, for the next scan
	byDir  map[string]*skillEntry          // skill directory (relative path) → skill
	paths  map[string]map[*skillEntry]bool // file path → the skills that list it
}

// skillEntry is one served skill.
type skillEntry struct {
	dir      string // its directory, relative to the root
	skill    mcp.Skill
	resource mcp.Resource // its SKILL.md, as resources/list shows it
}

// skillFile is one served file.
type skillFile struct {
	uri, path, mime, digest string
	size                    int64
	mod                     time.Time
}

// build scans the set's tree and builds a snapshot, reusing the digests
// of prev for files that did not change (forced names files to hash
// again whatever their size and time). Problems are skills and files left
// out; err stops everything.
func (k *SkillSet) build(prev *snapshot, forced map[string]bool) (snap *snapshot, problems []error, err error) {
	sc := &scanner{set: k}
	if err := sc.walk(".", 0, false); err != nil {
		return nil, nil, err
	}
	byPath := func(a, b scannedFile) int { return strings.Compare(a.path, b.path) }
	slices.SortFunc(sc.files, byPath)
	slices.SortFunc(sc.unlisted, byPath)
	sort.Strings(sc.dirs)
	if len(sc.dirs) > k.opts.MaxSkills {
		return nil, nil, fmt.Errorf("skills: %d skills, more than %d (SkillsOptions.MaxSkills)", len(sc.dirs), k.opts.MaxSkills)
	}
	var total int64
	for _, f := range sc.files {
		if total += f.size; total > k.opts.MaxTotalBytes {
			return nil, nil, fmt.Errorf("skills: the skills hold more than %d bytes (SkillsOptions.MaxTotalBytes)", k.opts.MaxTotalBytes)
		}
	}
	snap = &snapshot{
		byURI: map[string]*skillEntry{}, files: map[string]*skillFile{}, dirs: map[string][]mcp.Resource{},
		folded: map[string]string{}, hashes: map[digestKey]string{}, byDir: map[string]*skillEntry{},
		paths: map[string]map[*skillEntry]bool{},
	}
	var old map[digestKey]string
	if prev != nil {
		old = prev.hashes
	}
	h := &hasher{set: k, old: old, forced: forced, next: snap.hashes}
	for _, dir := range sc.dirs {
		if bad := filesUnder(sc.unlisted, dir); len(bad) > 0 {
			// Its manifest could not be complete.
			sc.problem(dir, "%s %v; the skill cannot be served without it", bad[0].path, sc.why[bad[0].path])
			continue
		}
		e, err := k.buildSkill(dir, filesUnder(sc.files, dir), h)
		if err != nil {
			sc.problems = append(sc.problems, &SkillError{Path: dir, Err: err})
			continue
		}
		if other, dup := snap.folded[strings.ToLower(e.skill.URI)]; dup {
			sc.problem(dir, "its URI %s is the same as %s's but for case", e.skill.URI, other)
			continue
		}
		snap.add(e, h.files)
	}
	snap.index(k.prefixURI())
	return snap, sc.problems, nil
}

// filesUnder returns the files (sorted by path) under dir.
func filesUnder(files []scannedFile, dir string) []scannedFile {
	if dir == "." {
		return files
	}
	lo := sort.Search(len(files), func(i int) bool { return files[i].path >= dir+"/" })
	hi := sort.Search(len(files), func(i int) bool { return files[i].path >= dir+"0" }) // '0' follows '/'
	return files[lo:hi]
}

// add records a skill and its files.
func (s *snapshot) add(e *skillEntry, files map[string]*skillFile) {
	s.skills = append(s.skills, e)
	s.byURI[e.skill.URI] = e
	s.byDir[e.dir] = e
	s.folded[strings.ToLower(e.skill.URI)] = e.skill.URI
	for _, r := range e.skill.Resources {
		f := files[r.URI]
		s.files[r.URI] = f
		if s.paths[f.path] == nil {
			s.paths[f.path] = map[*skillEntry]bool{}
		}
		s.paths[f.path][e] = true
	}
}

// index builds the directory listings: every directory of every skill's
// files, up to the first segment of the skill paths.
func (s *snapshot) index(base string) {
	children := map[string]map[string]mcp.Resource{}
	addChild := func(dir string, r mcp.Resource) {
		if children[dir] == nil {
			children[dir] = map[string]mcp.Resource{}
		}
		children[dir][r.URI] = r
	}
	for uri, f := range s.files {
		child := mcp.Resource{URI: uri, Name: path.Base(f.path), MimeType: f.mime, Size: new(f.size)}
		if e, ok := s.byURI[uri]; ok {
			child = e.resource
		}
		for {
			i := strings.LastIndexByte(child.URI, '/')
			dir := child.URI[:i]
			if len(dir) <= len(base) {
				break
			}
			addChild(dir, child)
			name, _ := url.PathUnescape(dir[strings.LastIndexByte(dir, '/')+1:])
			child = mcp.Resource{URI: dir, Name: name, MimeType: mcp.MimeTypeDirectory}
		}
	}
	for dir, m := range children {
		list := make([]mcp.Resource, 0, len(m))
		for _, r := range m {
			list = append(list, r)
		}
		slices.SortFunc(list, func(a, b mcp.Resource) int { return cmp.Compare(a.URI, b.URI) })
		s.dirs[dir] = list
	}
}

// buildSkill builds the entry of the skill in dir, whose files are files.
func (k *SkillSet) buildSkill(dir string, files []scannedFile, h *hasher) (*skillEntry, error) {
	skillPath := slices.Clone(k.prefix)
	if dir != "." {
		skillPath = append(skillPath, strings.Split(dir, "/")...)
	}
	if len(skillPath) == 0 {
		return nil, errors.New("the root of the set is a skill: give its name as SkillsOptions.Prefix")
	}
	for _, seg := range skillPath[:len(skillPath)-1] {
		if !unreservedSegment(seg) {
			return nil, fmt.Errorf("the directory %q of its skill path is not made of A-Z a-z 0-9 . _ ~ -", seg)
		}
	}
	name := skillPath[len(skillPath)-1]
	if err := mcp.ValidateSkillName(name); err != nil {
		return nil, fmt.Errorf("the directory name is not a skill name: %w", err)
	}
	if len(files) > mcp.MaxSkillResources {
		return nil, fmt.Errorf("%d files, more than %d", len(files), mcp.MaxSkillResources)
	}
	var total int64
	for _, f := range files {
		total += f.size
	}
	if total > mcp.MaxSkillBytes {
		return nil, fmt.Errorf("%d bytes of files, more than %d", total, mcp.MaxSkillBytes)
	}
	dirURI := k.prefixURI() + strings.Join(skillPath, "/")
	uri := dirURI + "/" + mcp.SkillFile
	folded := map[string]string{}
	e := &skillEntry{dir: dir, skill: mcp.Skill{URI: uri}}
	var md *skillFile
	for _, f := range files {
		rel := strings.TrimPrefix(f.path, dir+"/")
		if dir == "." {
			rel = f.path
		}
		if other, dup := folded[foldPath(rel)]; dup {
			return nil, fmt.Errorf("the files %q and %q would be one file where case is folded or trailing dots and spaces dropped", other, rel)
		}
		folded[foldPath(rel)] = rel
		escaped, err := escapePath(rel)
		if err != nil {
			return nil, fmt.Errorf("the file %s: %w", rel, err)
		}
		sf, err := h.file(f, dirURI+"/"+escaped)
		if err != nil {
			return nil, err
		}
		e.skill.Resources = append(e.skill.Resources, mcp.SkillResource{URI: sf.uri, Digest: sf.digest, Size: sf.size})
		if rel == mcp.SkillFile {
			md = sf
		}
	}
	if md == nil {
		return nil, errors.New("its SKILL.md is gone")
	}
	// SKILL.md first, then the files by URI.
	slices.SortStableFunc(e.skill.Resources, func(a, b mcp.SkillResource) int {
		return cmp.Or(-cmp.Compare(boolInt(a.URI == uri), boolInt(b.URI == uri)), strings.Compare(a.URI, b.URI))
	})
	data, err := k.readAll(md.path, md.size)
	if err != nil {
		return nil, err
	}
	if mcp.SkillDigest(data) != md.digest {
		return nil, errors.New("its SKILL.md changed while it was read")
	}
	fm, err := mcp.ParseSkillFrontmatter(data)
	if err != nil {
		return nil, err
	}
	if err := fm.Check(); err != nil {
		return nil, err
	}
	if fm.Name() != name {
		return nil, fmt.Errorf("its frontmatter's name %q is not its directory's name %q", fm.Name(), name)
	}
	e.skill.Frontmatter = fm
	e.resource = mcp.Resource{URI: uri, Name: fm.Name(), Description: fm.Description(), MimeType: mcp.MimeTypeMarkdown, Size: new(md.size)}
	return e, nil
}

// foldPath returns the form a relative path takes on a file system that
// folds case and drops the trailing dots and spaces of names (Windows;
// macOS folds case): two files of a skill must not share it, or a host
// that keeps the skill on disk would write one over the other.
func foldPath(rel string) string {
	segs := strings.Split(strings.ToLower(rel), "/")
	for i, s := range segs {
		segs[i] = strings.TrimRight(s, ". ")
	}
	return strings.Join(segs, "/")
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// unreservedSegment reports whether s is a non-empty run of the URI's
// unreserved characters, which need no escaping in an authority or a
// path and fold to nothing else.
func unreservedSegment(s string) bool {
	if s == "" || s == "." || s == ".." {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
			return false
		}
	}
	return true
}

// escapePath turns the relative path of a file into the path of its URI:
// each segment percent-escaped. Names outside printable ASCII are
// refused, so that no two files' URIs read alike once normalised (by
// Unicode form, or by a host's file system), as are the characters that
// no portable file name has.
func escapePath(rel string) (string, error) {
	segs := strings.Split(rel, "/")
	for i, s := range segs {
		for _, c := range []byte(s) {
			if c < 0x20 || c >= 0x7f {
				return "", errors.New("the name has characters outside printable ASCII")
			}
			if strings.IndexByte(`\:*?"<>|`, c) >= 0 {
				return "", fmt.Errorf("the name has %q, which no portable file name has", c)
			}
		}
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/"), nil
}
