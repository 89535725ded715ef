package filesystem

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/servers/filesystem/internal/udiff"
)

type writeArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

func (c *call) writeFile(ctx context.Context, args *writeArgs) (string, error) {
	if int64(len(args.Content)) > c.opts.MaxWriteBytes {
		return "", errorf("Content too large: %d bytes, more than the limit of %d bytes that write_file writes", len(args.Content), c.opts.MaxWriteBytes)
	}
	t, err := c.set.resolve(args.Path)
	if err != nil {
		return "", err
	}
	defer t.close()
	if err := c.write(t, []byte(args.Content), true); err != nil {
		return "", err
	}
	return "Successfully wrote to " + args.Path, nil
}

// write writes data to the target as the official server does: a new
// file is created exclusively (never through a link); an existing one is
// replaced by renaming a fresh file over it, which keeps its permission
// bits. create is false for edit_file, which only replaces.
func (c *call) write(t *target, data []byte, create bool) error {
	if t.missing && len(t.tail) > 0 {
		return opErr("open", t.path(), syscall.ENOENT)
	}
	if t.base == "." {
		return opErr("open", t.path(), syscall.EISDIR)
	}
	if create {
		f, err := t.parent.OpenFile(t.base, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		switch {
		case err == nil:
			_, werr := f.Write(data)
			if cerr := f.Close(); werr == nil {
				werr = cerr
			}
			return opErr("write", t.path(), werr)
		case !errors.Is(err, fs.ErrExist):
			return opErr("open", t.path(), err)
		}
	}
	orig, err := t.parent.Stat(t.base)
	if err != nil {
		return opErr("stat", t.path(), err)
	}
	var rnd [16]byte
	rand.Read(rnd[:])
	tmp := t.base + "." + hex.EncodeToString(rnd[:]) + ".tmp"
	if orig.IsDir() {
		return opErr("rename", filepath.Join(filepath.Dir(t.path()), tmp), syscall.EISDIR).(*opError).withDest(t.path())
	}
	f, err := t.parent.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return opErr("open", filepath.Join(filepath.Dir(t.path()), tmp), err)
	}
	_, err = f.Write(data)
	if err == nil {
		// The permission bits of the file it replaces; a failure here does
		// not fail the write, as in the official server.
		f.Chmod(orig.Mode().Perm())
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = t.parent.Rename(tmp, t.base)
	}
	if err != nil {
		t.parent.Remove(tmp)
		return opErr("rename", filepath.Join(filepath.Dir(t.path()), tmp), err).(*opError).withDest(t.path())
	}
	return nil
}

type edit struct {
	OldText string `json:"oldText"`
	NewText string `json:"newText"`
}

type editArgs struct {
	Path   string `json:"path"`
	Edits  []edit `json:"edits"`
	DryRun bool   `json:"dryRun"`
}

func (c *call) editFile(ctx context.Context, args *editArgs) (string, error) {
	t, err := c.set.resolve(args.Path)
	if err != nil {
		return "", err
	}
	defer t.close()
	b, err := c.readAll(t, c.opts.MaxReadBytes)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(b) {
		return "", errorf("Cannot edit %s: it is not UTF-8 text (editing would replace its invalid bytes)", t.path())
	}
	content := normalizeLineEndings(string(b))
	modified, err := applyEdits(content, args.Edits)
	if err != nil {
		return "", err
	}
	diff := udiff.TwoFiles(t.path(), t.path(), content, modified, "original", "modified")
	ticks := 3
	for strings.Contains(diff, strings.Repeat("`", ticks)) {
		ticks++
	}
	fence := strings.Repeat("`", ticks)
	if !args.DryRun {
		if int64(len(modified)) > c.opts.MaxWriteBytes {
			return "", errorf("Content too large: the edited file would have %d bytes, more than the limit of %d bytes that edit_file writes", len(modified), c.opts.MaxWriteBytes)
		}
		if err := c.write(t, []byte(modified), false); err != nil {
			return "", err
		}
	}
	return fence + "diff\n" + diff + fence + "\n\n", nil
}

func normalizeLineEndings(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// applyEdits applies the edits in order, as the official server does:
// each replaces the first exact occurrence of its oldText or, failing
// that, the first run of lines equal to oldText's lines once trimmed,
// keeping the run's indentation.
func applyEdits(content string, edits []edit) (string, error) {
	for _, e := range edits {
		oldText := normalizeLineEndings(e.OldText)
		newText := normalizeLineEndings(e.NewText)
		if strings.Contains(content, oldText) {
			content = strings.Replace(content, oldText, newText, 1)
			continue
		}
		oldLines := strings.Split(oldText, "\n")
		lines := strings.Split(content, "\n")
		found := false
		for i := 0; i <= len(lines)-len(oldLines); i++ {
			match := true
			for j, ol := range oldLines {
				if jsTrim(ol) != jsTrim(lines[i+j]) {
					match = false
					break
				}
			}
			if !match {
				continue
			}
			indent := jsIndent(lines[i])
			newLines := strings.Split(newText, "\n")
			for j, l := range newLines {
				if j == 0 {
					newLines[j] = indent + jsTrimStart(l)
					continue
				}
				oldIndent := ""
				if j < len(oldLines) {
					oldIndent = jsIndent(oldLines[j])
				}
				newIndent := jsIndent(l)
				if oldIndent != "" && newIndent != "" {
					rel := utf16Len(newIndent) - utf16Len(oldIndent)
					newLines[j] = indent + strings.Repeat(" ", max(0, rel)) + jsTrimStart(l)
				}
			}
			lines = append(lines[:i], append(newLines, lines[i+len(oldLines):]...)...)
			content = strings.Join(lines, "\n")
			found = true
			break
		}
		if !found {
			return "", errorf("Could not find exact match for edit:\n%s", e.OldText)
		}
	}
	return content, nil
}

func (c *call) createDirectory(ctx context.Context, args *pathArgs) (string, error) {
	t, err := c.set.resolve(args.Path)
	if err != nil {
		return "", err
	}
	defer t.close()
	switch {
	case !t.missing && t.info.IsDir():
	case !t.missing:
		return "", opErr("mkdir", t.path(), syscall.EEXIST)
	default:
		if err := t.parent.MkdirAll(filepath.Join(append([]string{t.base}, t.tail...)...), 0o777); err != nil {
			return "", opErr("mkdir", t.path(), err)
		}
	}
	return "Successfully created directory " + args.Path, nil
}

type moveArgs struct {
	Source      string `json:"source"`
	Destination string `json:"destination"`
}

func (c *call) moveFile(ctx context.Context, args *moveArgs) (string, error) {
	src, err := c.set.resolve(args.Source)
	if err != nil {
		return "", err
	}
	defer src.close()
	dst, err := c.set.resolve(args.Destination)
	if err != nil {
		return "", err
	}
	defer dst.close()
	switch {
	case !dst.missing:
		return "", errorf("Destination already exists: %s", dst.path())
	case src.missing || len(dst.tail) > 0:
		return "", opErr("rename", src.path(), syscall.ENOENT).(*opError).withDest(dst.path())
	case src.base == ".":
		return "", errorf("Cannot move %s: it is an allowed directory itself", src.path())
	}
	if err := renameNoReplace(src.parent, src.base, dst.parent, dst.base); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return "", errorf("Destination already exists: %s", dst.path())
		}
		return "", opErr("rename", src.path(), err).(*opError).withDest(dst.path())
	}
	return "Successfully moved " + args.Source + " to " + args.Destination, nil
}

func (e *opError) withDest(dest string) error {
	e.dest = dest
	return e
}
