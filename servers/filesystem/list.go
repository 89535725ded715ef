package filesystem

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/mcpwire/mcpwire/servers/filesystem/internal/glob"
)

// An entry is a directory entry: its name and type.
type entry struct {
	name string
	typ  fs.FileMode // the type bits only
}

func (e entry) Name() string      { return e.name }
func (e entry) IsDir() bool       { return e.typ.IsDir() }
func (e entry) Type() fs.FileMode { return e.typ }
func (e entry) isLink() bool      { return e.typ&fs.ModeSymlink != 0 }

// readDir lists an open directory, sorted by name (as Node's readdir
// returns entries), refusing more than limit entries.
func (c *call) readDir(dir *os.Root, display string, limit int) ([]entry, error) {
	f, err := dir.Open(".")
	if err != nil {
		return nil, opErr("scandir", display, err)
	}
	defer f.Close()
	out, err := listDir(dir, f, limit)
	if err != nil {
		var tm *tooManyError
		if errors.As(err, &tm) {
			return nil, tooMany(c.opts.MaxEntries)
		}
		return nil, opErr("scandir", display, err)
	}
	slices.SortFunc(out, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	return out, nil
}

// A tooManyError stops a call that would list or visit more directory
// entries than MaxEntries.
type tooManyError struct{ limit int }

func (e *tooManyError) Error() string {
	return fmt.Sprintf("Too many entries: this call would list or visit more than %d directory entries, the limit of one call", e.limit)
}

func tooMany(limit int) error { return &tooManyError{limit} }

func entryKind(e entry) string {
	if e.IsDir() {
		return "[DIR]"
	}
	return "[FILE]"
}

// openListed resolves a path to a directory to list.
func (c *call) openListed(p string) (*os.Root, string, error) {
	t, err := c.resolve(p, forRead)
	if err != nil {
		return nil, "", err
	}
	defer t.close()
	d, err := t.openDir("scandir")
	return d, t.path(), err
}

func (c *call) listDirectory(ctx context.Context, args *pathArgs) (string, error) {
	d, display, err := c.openListed(args.Path)
	if err != nil {
		return "", err
	}
	defer d.Close()
	entries, err := c.readDir(d, display, c.opts.MaxEntries)
	if err != nil {
		return "", err
	}
	lines := make([]string, len(entries))
	for i, e := range entries {
		lines[i] = entryKind(e) + " " + jsString(e.Name())
	}
	return strings.Join(lines, "\n"), nil
}

type listSizesArgs struct {
	Path   string `json:"path"`
	SortBy string `json:"sortBy"`
}

func (c *call) listDirectoryWithSizes(ctx context.Context, args *listSizesArgs) (string, error) {
	d, display, err := c.openListed(args.Path)
	if err != nil {
		return "", err
	}
	defer d.Close()
	entries, err := c.readDir(d, display, c.opts.MaxEntries)
	if err != nil {
		return "", err
	}
	type sized struct {
		name  string
		dir   bool
		size  int64 // -1: unknown
		order int
	}
	list := make([]sized, len(entries))
	var files, dirs, unknown int
	var total int64
	for i, e := range entries {
		s := sized{name: jsString(e.Name()), dir: e.IsDir(), size: -1, order: i}
		// Sizes follow links, but only inside the allowed directories: a
		// link leading elsewhere, or nowhere, and an entry gone meanwhile
		// have an unknown size, as in the official server.
		if !e.isLink() {
			if fi, err := d.Lstat(e.Name()); err == nil {
				s.size = fi.Size()
			}
		} else if t, err := c.resolve(filepath.Join(display, e.Name()), forRead); err == nil {
			if !t.missing {
				if fi, err := t.parent.Lstat(t.base); err == nil {
					s.size = fi.Size()
				}
			}
			t.close()
		}
		switch {
		case s.dir:
			dirs++
		case s.size < 0:
			files++
			unknown++
		default:
			files++
			total += s.size
		}
		list[i] = s
	}
	if args.SortBy == "size" {
		slices.SortStableFunc(list, func(a, b sized) int {
			switch {
			case a.size > b.size:
				return -1
			case a.size < b.size:
				return 1
			}
			return 0
		})
	} else {
		sortByName(list, func(s sized) string { return s.name })
	}
	var b strings.Builder
	for _, s := range list {
		kind, size := "[FILE]", "unknown"
		if s.size >= 0 {
			size = formatSize(s.size)
		}
		size = padStart(size, 10)
		if s.dir {
			kind, size = "[DIR]", ""
		}
		b.WriteString(kind + " " + padEnd(s.name, 30) + " " + size + "\n")
	}
	b.WriteString("\nTotal: " + strconv.Itoa(files) + " files, " + strconv.Itoa(dirs) + " directories\n")
	b.WriteString("Combined size: " + formatSize(total))
	switch {
	case unknown == 1:
		b.WriteString(" (excludes 1 file of unknown size)")
	case unknown > 1:
		b.WriteString(" (excludes " + strconv.Itoa(unknown) + " files of unknown size)")
	}
	return b.String(), nil
}

type treeArgs struct {
	Path            string   `json:"path"`
	ExcludePatterns []string `json:"excludePatterns"`
	Depth           *float64 `json:"depth"`
}

// An exclude is one of the excludePatterns of directory_tree and
// search_files, read as the official server reads them (2.3.0): a pattern
// with a * is a glob matched as written, and one ending in /** also
// excludes the directory it names; a pattern without one also matches
// that name at any depth, and everything below it.
type exclude struct {
	forms []*glob.Pattern // any match excludes
	dir   *glob.Pattern   // the pattern less its /**: matched against directories only
}

// compileExcludes compiles the exclude patterns of one call, all within
// one budget of expanded bytes (glob.CompileWithin): every entry of the walk is matched
// against each of them, so their count and their brace expansions are
// bounded together, as one pattern's are.
func compileExcludes(patterns []string) ([]exclude, error) {
	var out []exclude
	budget := glob.DefaultMaxExpandedLength
	for _, p := range patterns {
		forms := []string{p}
		if !strings.Contains(p, "*") {
			forms = append(forms, "**/"+p, "**/"+p+"/**")
		}
		var e exclude
		for _, f := range forms {
			g, err := glob.CompileWithin(f, &budget)
			if err != nil {
				return nil, excludeErr(p, err)
			}
			e.forms = append(e.forms, g)
		}
		if strings.Contains(p, "*") && strings.HasSuffix(p, "/**") {
			g, err := glob.CompileWithin(strings.TrimSuffix(p, "/**"), &budget)
			if err != nil {
				return nil, excludeErr(p, err)
			}
			e.dir = g
		}
		out = append(out, e)
	}
	return out, nil
}

// excludeErr is the error of an exclude pattern that does not compile,
// or that goes beyond the budget of them all.
func excludeErr(p string, err error) error {
	if errors.Is(err, glob.ErrTooLarge) {
		return errorf("Too many or too large exclude patterns (at %.60q): together they may expand to %d bytes of patterns; give fewer", p, glob.DefaultMaxExpandedLength)
	}
	return errorf("Invalid pattern %q: %v", p, err)
}

func excluded(rel string, isDir bool, ex []exclude) bool {
	for _, e := range ex {
		for _, g := range e.forms {
			if g.Match(rel) {
				return true
			}
		}
		if isDir && e.dir != nil && e.dir.Match(rel) {
			return true
		}
	}
	return false
}

func (c *call) directoryTree(ctx context.Context, args *treeArgs) (string, error) {
	ex, err := compileExcludes(args.ExcludePatterns)
	if err != nil {
		return "", err
	}
	depth := int64(maxLines)
	if args.Depth != nil {
		if depth, err = wholeNumber("depth", "a whole number of levels", *args.Depth); err != nil {
			return "", err
		}
	}
	d, display, err := c.openListed(args.Path)
	if err != nil {
		return "", err
	}
	defer d.Close()
	var b strings.Builder
	w := &treeWalk{c: c, b: &b, ex: ex, depth: depth, budget: c.opts.MaxEntries}
	if err := w.tree(ctx, d, display, "", 1); err != nil {
		return "", err
	}
	return b.String(), nil
}

// A treeWalk writes directory_tree's JSON.
type treeWalk struct {
	c      *call
	b      *strings.Builder
	ex     []exclude
	depth  int64 // the last level whose directories are read
	budget int
}

// tree writes the JSON array of the entries of d, at the given level (1
// for the entries of the path asked), as JSON.stringify(tree, null, 2)
// writes it. Links are files: they are not followed. Directories at the
// depth limit are not read and have no children.
func (w *treeWalk) tree(ctx context.Context, d *os.Root, display, rel string, level int64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := w.c.readDir(d, display, w.budget)
	if err != nil {
		return err
	}
	b := w.b
	indent := strings.Repeat("  ", int(2*(level-1)))
	first := true
	for _, e := range entries {
		name := e.Name()
		erel := path.Join(rel, name)
		if excluded(jsString(erel), e.IsDir(), w.ex) {
			continue
		}
		if w.budget--; w.budget < 0 {
			return tooMany(w.c.opts.MaxEntries)
		}
		if first {
			b.WriteString("[\n")
			first = false
		} else {
			b.WriteString(",\n")
		}
		b.WriteString(indent + "  {\n" + indent + `    "name": `)
		writeJSONString(b, jsString(name))
		if !e.IsDir() {
			b.WriteString(",\n" + indent + `    "type": "file"` + "\n" + indent + "  }")
			continue
		}
		if level >= w.depth {
			b.WriteString(",\n" + indent + `    "type": "directory"` + "\n" + indent + "  }")
			continue
		}
		b.WriteString(",\n" + indent + `    "type": "directory",` + "\n" + indent + `    "children": `)
		sub, err := d.OpenRoot(name)
		if err != nil {
			return opErr("scandir", filepath.Join(display, name), err)
		}
		err = w.tree(ctx, sub, filepath.Join(display, name), erel, level+1)
		sub.Close()
		if err != nil {
			return err
		}
		b.WriteString("\n" + indent + "  }")
	}
	if first {
		b.WriteString("[]")
		return nil
	}
	b.WriteString("\n" + indent + "]")
	return nil
}

type searchArgs struct {
	Path            string   `json:"path"`
	Pattern         string   `json:"pattern"`
	ExcludePatterns []string `json:"excludePatterns"`
}

func (c *call) searchFiles(ctx context.Context, args *searchArgs) (string, error) {
	pat, err := glob.Compile(args.Pattern)
	if err != nil {
		return "", errorf("Invalid pattern %q: %v", args.Pattern, err)
	}
	ex, err := compileExcludes(args.ExcludePatterns)
	if err != nil {
		return "", err
	}
	d, display, err := c.openListed(args.Path)
	if err != nil {
		return "", err
	}
	defer d.Close()
	var results, unreadable []string
	budget := c.opts.MaxEntries
	s := &search{c: c, pat: pat, ex: ex, base: display, budget: &budget, results: &results, unreadable: &unreadable}
	if err := s.walk(ctx, d, "", true); err != nil {
		return "", err
	}
	text := "No matches found"
	if len(results) > 0 {
		text = strings.Join(results, "\n")
	}
	if n := len(unreadable); n > 0 {
		what := "directories"
		if n == 1 {
			what = "directory"
		}
		text += "\n\nThe search is incomplete: " + strconv.Itoa(n) + " " + what + " could not be read, and any matches inside are missing:\n" + strings.Join(unreadable, "\n")
	}
	return text, nil
}

type search struct {
	c          *call
	pat        *glob.Pattern
	ex         []exclude
	base       string // the real path searched
	budget     *int
	results    *[]string
	unreadable *[]string // the directories below the top that could not be read, with the error's code
}

// walk searches d, which is base/rel. A directory below the top that
// cannot be read is skipped and named after the results, as in the
// official server; links are matched when they lead somewhere inside the
// allowed directories, never followed.
func (s *search) walk(ctx context.Context, d *os.Root, rel string, top bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	display := filepath.Join(s.base, rel)
	entries, err := s.c.readDir(d, display, *s.budget)
	if err != nil {
		var tm *tooManyError
		if top || errors.As(err, &tm) {
			return err
		}
		*s.unreadable = append(*s.unreadable, unreadableName(display, err))
		return nil
	}
	for _, e := range entries {
		name := e.Name()
		erel := name
		if rel != "" {
			erel = rel + "/" + name
		}
		jrel := jsString(erel)
		if excluded(jrel, e.IsDir(), s.ex) {
			continue
		}
		if *s.budget--; *s.budget < 0 {
			return tooMany(s.c.opts.MaxEntries)
		}
		if e.isLink() && !s.leadsInside(display+string(filepath.Separator)+name) {
			continue
		}
		if s.pat.Match(jrel) {
			*s.results = append(*s.results, jsString(display+string(filepath.Separator)+name))
		}
		if e.IsDir() {
			sub, err := d.OpenRoot(name)
			if err != nil {
				*s.unreadable = append(*s.unreadable, unreadableName(filepath.Join(display, name), err))
				continue
			}
			err = s.walk(ctx, sub, erel, false)
			sub.Close()
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// unreadableName names a directory that could not be read, with the
// error's code as Node names it (EACCES), when it has one.
func unreadableName(dir string, err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		if t, ok := errnoText[errno]; ok {
			return jsString(dir) + " (" + t[0] + ")"
		}
	}
	return jsString(dir)
}

// leadsInside reports whether the link full leads to something that
// exists inside the allowed directories.
func (s *search) leadsInside(full string) bool {
	t, err := s.c.resolve(full, forRead)
	if err != nil {
		return false
	}
	t.close()
	return !t.missing
}

func (c *call) getFileInfo(ctx context.Context, args *pathArgs) (string, error) {
	t, err := c.resolve(args.Path, forRead)
	if err != nil {
		return "", err
	}
	defer t.close()
	if t.missing {
		return "", opErr("lstat", t.path(), syscall.ENOENT)
	}
	fi, err := t.parent.Stat(t.base)
	if err != nil {
		return "", opErr("stat", t.path(), err)
	}
	mode, atime, links := statDetails(fi)
	oct := strconv.FormatUint(uint64(mode), 8)
	if len(oct) > 3 {
		oct = oct[len(oct)-3:]
	}
	return "size: " + strconv.FormatInt(fi.Size(), 10) +
		"\ncreated: " + dateString(birthTime(t.parent, t.base)) +
		"\nmodified: " + dateString(fi.ModTime()) +
		"\naccessed: " + dateString(atime) +
		"\nisDirectory: " + strconv.FormatBool(fi.IsDir()) +
		"\nisFile: " + strconv.FormatBool(fi.Mode().IsRegular()) +
		"\npermissions: " + oct +
		"\nhardLinks: " + strconv.FormatUint(links, 10), nil
}

func (c *call) listAllowedDirectories(ctx context.Context, _ *struct{}) (string, error) {
	text := "Allowed directories:\n" + strings.Join(c.set.names, "\n")
	if ro := c.readOnlyList(); len(ro) > 0 {
		// The read-only directories follow, as in the official server.
		text += "\n\nRead-only directories (writes refused, whatever the allowed directories in force):\n  " + strings.Join(ro, "\n  ")
	}
	return text, nil
}
