package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/mcp"
)

// The files of a skill set: where they are, how they are opened (regular
// files only, never through a FIFO that would block), hashed and read,
// and the budget of bytes being read at once.

// skillSource is where a skill set's files are: an fs.FS, or the os.Root
// of a directory, through which no path, symbolic link or .. leads out.
type skillSource struct {
	fsys fs.FS
	root *os.Root // for AddSkillsDir; nil for AddSkills
}

// dirChunk is how many entries a directory is read by.
const dirChunk = 256

// errTooManyEntries reports a directory read past its bound.
var errTooManyEntries = errors.New("too many entries")

// readDir returns the entries of the directory name, sorted by name;
// errTooManyEntries when it has more than limit, found without reading
// much more than that (an fs.FS whose directories cannot be read in
// chunks is read whole).
func (src *skillSource) readDir(name string, limit int) ([]fs.DirEntry, error) {
	f, err := src.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, ok := f.(fs.ReadDirFile)
	if !ok {
		ents, err := fs.ReadDir(src.fsys, name)
		if err == nil && len(ents) > limit {
			err = errTooManyEntries
		}
		return ents, err
	}
	var ents []fs.DirEntry
	for {
		chunk, err := d.ReadDir(dirChunk)
		ents = append(ents, chunk...)
		if len(ents) > limit {
			return nil, errTooManyEntries
		}
		if errors.Is(err, io.EOF) || err == nil && len(chunk) == 0 {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, nil
}

// errNotRegular reports a path that is not a regular file.
var errNotRegular = errors.New("not a regular file")

// open opens the regular file name. Through an os.Root it opens without
// blocking (a FIFO put in a file's place cannot hold the request); an
// fs.FS is asked for the file's type first.
func (src *skillSource) open(name string) (fs.File, fs.FileInfo, error) {
	var f fs.File
	if src.root != nil {
		of, err := src.root.OpenFile(name, os.O_RDONLY|openNonblock, 0)
		if err != nil {
			return nil, nil, err
		}
		f = of
	} else {
		if fi, err := fs.Stat(src.fsys, name); err != nil {
			return nil, nil, err
		} else if !fi.Mode().IsRegular() {
			return nil, nil, fmt.Errorf("%s: %w", name, errNotRegular)
		}
		var err error
		if f, err = src.fsys.Open(name); err != nil {
			return nil, nil, err
		}
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s: %w", name, errNotRegular)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// errChanged reports a file whose content is not what the scan found.
var errChanged = errors.New("the file changed")

// readAll reads the file at p, which the scan found size bytes long.
func (k *SkillSet) readAll(p string, size int64) ([]byte, error) {
	f, _, err := k.src.open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, size+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) != size {
		return nil, fmt.Errorf("%s: %w", p, errChanged)
	}
	return data, nil
}

// hashFile returns the digest of the file at p, which the scan found
// size bytes long, reading it as a stream.
func (k *SkillSet) hashFile(p string, size int64) (string, error) {
	f, _, err := k.src.open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, size+1))
	if err != nil {
		return "", err
	}
	if n != size {
		return "", fmt.Errorf("%s: %w", p, errChanged)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// hasher computes the digests of one scan, reusing those of the scan
// before for files whose size and time did not change.
type hasher struct {
	set    *SkillSet
	old    map[digestKey]string
	forced map[string]bool // paths to hash again whatever their size and time
	next   map[digestKey]string
	files  map[string]*skillFile // by URI
}

// file returns the served file f, at uri.
func (h *hasher) file(f scannedFile, uri string) (*skillFile, error) {
	if h.files == nil {
		h.files = map[string]*skillFile{}
	}
	if sf, ok := h.files[uri]; ok {
		return sf, nil
	}
	key := digestKey(f)
	d, ok := h.next[key]
	if !ok && !h.forced[f.path] {
		d, ok = h.old[key]
	}
	if !ok {
		var err error
		if d, err = h.set.hashFile(f.path, f.size); err != nil {
			return nil, err
		}
	}
	h.next[key] = d
	sf := &skillFile{uri: uri, path: f.path, mime: mimeType(f.path), digest: d, size: f.size, mod: f.mod}
	h.files[uri] = sf
	return sf, nil
}

// contents reads a served file for resources/read: as text when it is
// valid UTF-8 without NUL, otherwise as a base64 blob. It returns
// errChanged when the bytes are not those of the snapshot (their size or
// digest differ).
func (k *SkillSet) contents(ctx context.Context, f *skillFile) (mcp.ResourceContents, error) {
	if err := k.budget.acquire(ctx, f.size); err != nil {
		return mcp.ResourceContents{}, err
	}
	defer k.budget.release(f.size)
	data, err := k.readAll(f.path, f.size)
	if err != nil {
		return mcp.ResourceContents{}, err
	}
	if mcp.SkillDigest(data) != f.digest {
		return mcp.ResourceContents{}, fmt.Errorf("%s: %w", f.path, errChanged)
	}
	if utf8.Valid(data) && bytes.IndexByte(data, 0) < 0 {
		return mcp.ResourceContents{URI: f.uri, MimeType: f.mime, Text: string(data)}, nil
	}
	return mcp.NewBlobContents(f.uri, f.mime, data), nil
}

// mimeTypes maps the extensions of the files skills usually hold to their
// types; the table is the package's own, so that a listing does not
// depend on the machine's /etc/mime.types.
var mimeTypes = map[string]string{
	".md": "text/markdown", ".markdown": "text/markdown", ".txt": "text/plain", ".csv": "text/csv",
	".html": "text/html", ".htm": "text/html", ".css": "text/css", ".xml": "application/xml",
	".json": "application/json", ".yaml": "application/yaml", ".yml": "application/yaml", ".toml": "application/toml",
	".js": "text/javascript", ".mjs": "text/javascript", ".ts": "text/x-typescript", ".py": "text/x-python",
	".sh": "text/x-shellscript", ".bash": "text/x-shellscript", ".rb": "text/x-ruby", ".go": "text/x-go",
	".sql": "application/sql", ".pdf": "application/pdf", ".png": "image/png", ".jpg": "image/jpeg",
	".jpeg": "image/jpeg", ".gif": "image/gif", ".svg": "image/svg+xml", ".webp": "image/webp",
	".zip": "application/zip",
}

// mimeType returns the type of the file at p, by its extension;
// application/octet-stream for the others.
func mimeType(p string) string {
	if t, ok := mimeTypes[strings.ToLower(path.Ext(p))]; ok {
		return t
	}
	return "application/octet-stream"
}

// A byteBudget bounds the bytes being read at once: each read waits, in
// order, until its bytes fit (a read larger than the whole budget waits
// for all of it).
type byteBudget struct {
	mu      sync.Mutex
	size    int64
	free    int64
	waiters []*budgetWaiter
}

type budgetWaiter struct {
	n     int64
	ready chan struct{}
}

func newByteBudget(size int64) *byteBudget { return &byteBudget{size: size, free: size} }

// acquire waits until n bytes fit, or ctx ends.
func (b *byteBudget) acquire(ctx context.Context, n int64) error {
	n = min(n, b.size)
	b.mu.Lock()
	if len(b.waiters) == 0 && b.free >= n {
		b.free -= n
		b.mu.Unlock()
		return nil
	}
	w := &budgetWaiter{n: n, ready: make(chan struct{})}
	b.waiters = append(b.waiters, w)
	b.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-w.ready: // granted meanwhile: give it back
		b.free += n
	default:
		for i, x := range b.waiters {
			if x == w {
				b.waiters = append(b.waiters[:i], b.waiters[i+1:]...)
				break
			}
		}
	}
	b.grantLocked()
	return ctx.Err()
}

// release returns n bytes.
func (b *byteBudget) release(n int64) {
	n = min(n, b.size)
	b.mu.Lock()
	b.free += n
	b.grantLocked()
	b.mu.Unlock()
}

// grantLocked lets the waiters in, in order, while their bytes fit.
func (b *byteBudget) grantLocked() {
	for len(b.waiters) > 0 && b.waiters[0].n <= b.free {
		w := b.waiters[0]
		b.waiters = b.waiters[1:]
		b.free -= w.n
		close(w.ready)
	}
}
