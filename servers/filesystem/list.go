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
	"sync"
	"syscall"

	"golang.org/x/text/collate"

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
	t, err := c.set.resolve(p)
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

var collators = sync.Pool{New: func() any { return newCollator() }}

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
		size  int64
		order int
	}
	list := make([]sized, len(entries))
	var files, dirs int
	var total int64
	for i, e := range entries {
		s := sized{name: jsString(e.Name()), dir: e.IsDir(), order: i}
		// Sizes follow links, but only inside the allowed directories: a
		// link leading elsewhere shows 0, as one that leads nowhere does.
		if !e.isLink() {
			if fi, err := d.Lstat(e.Name()); err == nil {
				s.size = fi.Size()
			}
		} else if t, err := c.set.resolve(filepath.Join(display, e.Name())); err == nil {
			if !t.missing {
				if fi, err := t.parent.Stat(t.base); err == nil {
					s.size = fi.Size()
				}
			}
			t.close()
		}
		if s.dir {
			dirs++
		} else {
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
		col := collators.Get().(*collate.Collator)
		slices.SortStableFunc(list, func(a, b sized) int { return col.CompareString(a.name, b.name) })
		collators.Put(col)
	}
	var b strings.Builder
	for _, s := range list {
		kind, size := "[FILE]", padStart(formatSize(s.size), 10)
		if s.dir {
			kind, size = "[DIR]", ""
		}
		b.WriteString(kind + " " + padEnd(s.name, 30) + " " + size + "\n")
	}
	b.WriteString("\nTotal: " + strconv.Itoa(files) + " files, " + strconv.Itoa(dirs) + " directories\n")
	b.WriteString("Combined size: " + formatSize(total))
	return b.String(), nil
}

type treeArgs struct {
	Path            string   `json:"path"`
	ExcludePatterns []string `json:"excludePatterns"`
}

// treeExcludes compiles directory_tree's exclude patterns: one without a
// * also excludes that name anywhere, and everything below it.
func treeExcludes(patterns []string) ([]*glob.Pattern, error) {
	var out []*glob.Pattern
	for _, p := range patterns {
		forms := []string{p}
		if !strings.Contains(p, "*") {
			forms = append(forms, "**/"+p, "**/"+p+"/**")
		}
		for _, f := range forms {
			g, err := glob.Compile(f)
			if err != nil {
				return nil, errorf("Invalid pattern %q: %v", p, err)
			}
			out = append(out, g)
		}
	}
	return out, nil
}

func excluded(rel string, ex []*glob.Pattern) bool {
	for _, g := range ex {
		if g.Match(rel) {
			return true
		}
	}
	return false
}

func (c *call) directoryTree(ctx context.Context, args *treeArgs) (string, error) {
	ex, err := treeExcludes(args.ExcludePatterns)
	if err != nil {
		return "", err
	}
	d, display, err := c.openListed(args.Path)
	if err != nil {
		return "", err
	}
	defer d.Close()
	var b strings.Builder
	budget := c.opts.MaxEntries
	if err := c.tree(ctx, &b, d, display, "", ex, 0, &budget); err != nil {
		return "", err
	}
	return b.String(), nil
}

// tree writes the JSON array of the entries of d, as JSON.stringify(tree,
// null, 2) writes it at the given depth. Links are files: they are not
// followed.
func (c *call) tree(ctx context.Context, b *strings.Builder, d *os.Root, display, rel string, ex []*glob.Pattern, depth int, budget *int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := c.readDir(d, display, *budget)
	if err != nil {
		return err
	}
	indent := strings.Repeat("  ", depth)
	first := true
	for _, e := range entries {
		if *budget--; *budget < 0 {
			return tooMany(c.opts.MaxEntries)
		}
		name := e.Name()
		erel := path.Join(rel, name)
		if excluded(erel, ex) {
			continue
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
		b.WriteString(",\n" + indent + `    "type": "directory",` + "\n" + indent + `    "children": `)
		sub, err := d.OpenRoot(name)
		if err != nil {
			return opErr("scandir", filepath.Join(display, name), err)
		}
		err = c.tree(ctx, b, sub, filepath.Join(display, name), erel, ex, depth+2, budget)
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
	var ex []*glob.Pattern
	for _, p := range args.ExcludePatterns {
		g, err := glob.Compile(p)
		if err != nil {
			return "", errorf("Invalid pattern %q: %v", p, err)
		}
		ex = append(ex, g)
	}
	d, display, err := c.openListed(args.Path)
	if err != nil {
		return "", err
	}
	defer d.Close()
	var results []string
	budget := c.opts.MaxEntries
	s := &search{c: c, pat: pat, ex: ex, base: display, budget: &budget, results: &results}
	if err := s.walk(ctx, d, "", true); err != nil {
		return "", err
	}
	if len(results) == 0 {
		return "No matches found", nil
	}
	return strings.Join(results, "\n"), nil
}

type search struct {
	c       *call
	pat     *glob.Pattern
	ex      []*glob.Pattern
	base    string // the real path searched
	budget  *int
	results *[]string
}

// walk searches d, which is base/rel. Unreadable directories below the
// top are skipped, as in the official server; links are matched when
// they lead somewhere inside the allowed directories, never followed.
func (s *search) walk(ctx context.Context, d *os.Root, rel string, top bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	display := filepath.Join(s.base, rel)
	entries, err := s.c.readDir(d, display, *s.budget)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if *s.budget--; *s.budget < 0 {
			return tooMany(s.c.opts.MaxEntries)
		}
		name := e.Name()
		erel := name
		if rel != "" {
			erel = rel + "/" + name
		}
		if e.isLink() && !s.leadsInside(d, name, display+string(filepath.Separator)+name) {
			continue
		}
		jrel := jsString(erel)
		if excluded(jrel, s.ex) {
			continue
		}
		if s.pat.Match(jrel) {
			*s.results = append(*s.results, jsString(display+string(filepath.Separator)+name))
		}
		if e.IsDir() {
			sub, err := d.OpenRoot(name)
			if err != nil {
				continue
			}
			err = s.walk(ctx, sub, erel, false)
			sub.Close()
			var tm *tooManyError
			if err != nil && (ctx.Err() != nil || errors.As(err, &tm)) {
				return err
			}
		}
	}
	return nil
}

// leadsInside reports whether the link name in d leads to something that
// exists inside the allowed directories.
func (s *search) leadsInside(d *os.Root, name, full string) bool {
	t, err := s.c.set.resolve(full)
	if err != nil {
		return false
	}
	t.close()
	return !t.missing
}

func (c *call) getFileInfo(ctx context.Context, args *pathArgs) (string, error) {
	t, err := c.set.resolve(args.Path)
	if err != nil {
		return "", err
	}
	defer t.close()
	if t.missing {
		return "", opErr("stat", t.path(), syscall.ENOENT)
	}
	fi, err := t.parent.Stat(t.base)
	if err != nil {
		return "", opErr("stat", t.path(), err)
	}
	mode, atime := statDetails(fi)
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
		"\npermissions: " + oct, nil
}

func (c *call) listAllowedDirectories(ctx context.Context, _ *struct{}) (string, error) {
	return "Allowed directories:\n" + strings.Join(c.set.names, "\n"), nil
}
