package filesystem

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/mcpwire/mcpwire/mcp"
)

type readTextArgs struct {
	Path string   `json:"path"`
	Head *float64 `json:"head"`
	Tail *float64 `json:"tail"`
}

// maxLines bounds head and tail: the largest whole number that every JSON
// peer holds exactly (JavaScript's Number.MAX_SAFE_INTEGER). Their input
// schema says so (minimum 1, maximum maxLines), and the server checks the
// arguments against it before the tool runs.
const maxLines = 1<<53 - 1

// lineCount turns a head or tail argument into a count. The schema has
// refused anything else already; the check keeps a float64 that is not a
// whole number from 1 to maxLines from ever becoming an int64 (Go's
// conversion of an out-of-range float is undefined: -1e300 became a
// negative index).
func lineCount(name string, v float64) (int64, error) {
	return wholeNumber(name, "a whole number of lines", v)
}

// wholeNumber is lineCount for any count from 1 to maxLines; what names
// it in the error.
func wholeNumber(name, what string, v float64) (int64, error) {
	if v != math.Trunc(v) || v < 1 || v > maxLines {
		return 0, errorf("%s must be %s from 1 to %d, not %v", name, what, int64(maxLines), v)
	}
	return int64(v), nil
}

func (c *call) readTextFile(ctx context.Context, args *readTextArgs) (string, error) {
	t, err := c.resolve(args.Path, forRead)
	if err != nil {
		return "", err
	}
	defer t.close()
	if args.Head != nil && args.Tail != nil {
		return "", errorf("Cannot specify both head and tail parameters simultaneously")
	}
	switch {
	case args.Tail != nil:
		n, err := lineCount("tail", *args.Tail)
		if err != nil {
			return "", err
		}
		return c.tail(t, n)
	case args.Head != nil:
		n, err := lineCount("head", *args.Head)
		if err != nil {
			return "", err
		}
		return c.head(t, n)
	}
	b, err := c.readAll(t, c.opts.MaxReadBytes)
	if err != nil {
		return "", err
	}
	return decodeUTF8(b), nil
}

// openRegular opens the target for reading, refusing what is not a
// regular file, as the official server does: a directory (EISDIR), and
// a FIFO, socket or device, which would block or never end. The file
// opened must be the one the resolution saw (a link or another file
// swapped in meanwhile is refused).
func (c *call) openRegular(t *target) (*os.File, fs.FileInfo, error) {
	switch {
	case t.missing:
		return nil, nil, opErr("lstat", t.path(), syscall.ENOENT)
	case t.info.IsDir():
		return nil, nil, opErr("read", t.path(), syscall.EISDIR)
	case !t.info.Mode().IsRegular():
		return nil, nil, errorf("Cannot read: not a regular file: %s", t.path())
	}
	f, fi, err := t.openFile("open")
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() || !os.SameFile(fi, t.info) {
		f.Close()
		return nil, nil, errorf("Refusing to read: %s was replaced while it was being opened", t.path())
	}
	return f, fi, nil
}

// A sizeError reports a file larger than what a call may read.
type sizeError struct {
	path        string
	size, limit int64
}

func (e *sizeError) Error() string {
	return fmt.Sprintf("File too large: %s has %d bytes, more than the limit of %d bytes for one call; read part of it with head or tail", e.path, e.size, e.limit)
}

func tooLarge(path string, size, limit int64) error { return &sizeError{path, size, limit} }

// readAll reads the whole target, up to limit bytes.
func (c *call) readAll(t *target, limit int64) ([]byte, error) {
	f, fi, err := c.openRegular(t)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > limit {
		return nil, tooLarge(t.path(), fi.Size(), limit)
	}
	b := make([]byte, 0, fi.Size()+1)
	for {
		if int64(len(b)) > limit {
			return nil, tooLarge(t.path(), int64(len(b)), limit)
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := f.Read(b[len(b):min(cap(b), int(limit)+1)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, opErr("read", "", err)
		}
	}
}

// head returns the first n lines, as the official server's headFile
// (2.3.0): the lines up to n, each without its line ending (LF, or
// CRLF), joined by \n; when the file has fewer, what follows its last
// newline too, as it is.
func (c *call) head(t *target, n int64) (string, error) {
	f, _, err := c.openRegular(t)
	if err != nil {
		return "", err
	}
	defer f.Close()
	limit := c.opts.MaxReadBytes
	tooMuch := func() error {
		return errorf("File too large: the first %d lines of %s are more than the limit of %d bytes for one call", n, t.path(), limit)
	}
	var buf []byte
	lines := int64(0)
	complete := false
	chunk := make([]byte, min(64<<10, limit+1))
read:
	for {
		m, err := f.Read(chunk)
		data := chunk[:m]
		for {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				break
			}
			if lines++; lines >= n {
				buf = append(buf, data[:i]...)
				complete = true
				break read
			}
			buf = append(buf, data[:i+1]...)
			data = data[i+1:]
		}
		buf = append(buf, data...)
		if int64(len(buf)) > limit+1 {
			return "", tooMuch()
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", opErr("read", "", err)
		}
	}
	if int64(len(buf)) > limit {
		return "", tooMuch()
	}
	parts := bytes.Split(buf, []byte("\n"))
	done := len(parts)
	if !complete {
		done-- // what follows the last newline, kept as it is (if any)
		if len(parts[done]) == 0 {
			parts = parts[:done]
		}
	}
	for i := range done {
		parts[i] = bytes.TrimSuffix(parts[i], []byte("\r"))
	}
	return decodeUTF8(bytes.Join(parts, []byte("\n"))), nil
}

// tailChunk is the step in which the official server reads a file
// backwards; where it stops decides which bytes it decodes.
const tailChunk = 1024

// tail returns the last n lines as the official server's tailFile
// (2.3.0): it reads 1 KiB chunks from the end until they hold n newlines
// (n+1 when the file ends with one: a final newline ends the last line),
// decodes them, makes CRLF LF, drops one final newline, and keeps the
// last n parts split on \n.
func (c *call) tail(t *target, n int64) (string, error) {
	f, fi, err := c.openRegular(t)
	if err != nil {
		return "", err
	}
	defer f.Close()
	size := fi.Size()
	if size == 0 {
		return "", nil
	}
	// Read backwards in blocks of whole chunks, counting newlines chunk by
	// chunk, to find where the official server would have stopped.
	const block = 64 * tailChunk
	var data []byte
	pos, newlines := size, int64(0)
	need := n
	var last [1]byte
	if _, err := f.ReadAt(last[:], size-1); err != nil && err != io.EOF {
		return "", opErr("read", "", err)
	}
	if last[0] == '\n' && need < maxLines {
		need++
	}
	for pos > 0 && newlines < need {
		start := max(0, pos-block)
		buf := make([]byte, pos-start)
		if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
			return "", opErr("read", "", err)
		}
		// Walk the block's chunks from its end.
		end := int64(len(buf))
		cut := int64(0) // where, in buf, reading stops
		for end > 0 && newlines < need {
			cs := max(0, end-tailChunk)
			newlines += int64(bytes.Count(buf[cs:end], []byte("\n")))
			end = cs
		}
		cut = end
		data = append(buf[cut:], data...)
		pos = start + cut
		if int64(len(data)) > c.opts.MaxReadBytes {
			return "", errorf("File too large: the last %d lines of %s are more than the limit of %d bytes for one call", n, t.path(), c.opts.MaxReadBytes)
		}
		if cut > 0 {
			break
		}
	}
	text := strings.TrimSuffix(strings.ReplaceAll(decodeUTF8(data), "\r\n", "\n"), "\n")
	parts := strings.Split(text, "\n")
	// slice(-n): the last n parts.
	if n < int64(len(parts)) {
		parts = parts[int64(len(parts))-n:]
	}
	return strings.Join(parts, "\n"), nil
}

type pathArgs struct {
	Path string `json:"path"`
}

// mimeTypes are the official server's: what is not here is returned as an
// embedded resource of type application/octet-stream.
var mimeTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".webp": "image/webp", ".bmp": "image/bmp", ".svg": "image/svg+xml",
	".mp3": "audio/mpeg", ".wav": "audio/wav", ".ogg": "audio/ogg", ".flac": "audio/flac",
}

func (c *call) readMediaFile(ctx context.Context, args *pathArgs) (*mcp.CallToolResult, error) {
	t, err := c.resolve(args.Path, forRead)
	if err != nil {
		return nil, err
	}
	defer t.close()
	b, err := c.readAll(t, c.opts.MaxReadBytes)
	if err != nil {
		return nil, err
	}
	p := t.path()
	mime, ok := mimeTypes[strings.ToLower(filepath.Ext(p))]
	if !ok {
		mime = "application/octet-stream"
	}
	data := base64.StdEncoding.EncodeToString(b)
	// The structured content repeats the content block, its members in the
	// official server's order.
	type blob struct {
		URI      string `json:"uri"`
		MimeType string `json:"mimeType"`
		Blob     string `json:"blob"`
	}
	type block struct {
		Type     string `json:"type"`
		Data     string `json:"data,omitempty"`
		MimeType string `json:"mimeType,omitempty"`
		Resource *blob  `json:"resource,omitempty"`
	}
	var item mcp.Content
	var structured block
	switch {
	case strings.HasPrefix(mime, "image/"):
		item = &mcp.ImageContent{Data: data, MimeType: mime}
		structured = block{Type: "image", Data: data, MimeType: mime}
	case strings.HasPrefix(mime, "audio/"):
		item = &mcp.AudioContent{Data: data, MimeType: mime}
		structured = block{Type: "audio", Data: data, MimeType: mime}
	default:
		uri := fileURL(p)
		item = &mcp.EmbeddedResource{Resource: mcp.ResourceContents{URI: uri, MimeType: mime, Blob: data}}
		structured = block{Type: "resource", Resource: &blob{URI: uri, MimeType: mime, Blob: data}}
	}
	sc, err := json.Marshal(struct {
		Content []block `json:"content"`
	}{[]block{structured}})
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{Content: mcp.ContentList{item}, StructuredContent: sc}, nil
}

type readMultipleArgs struct {
	Paths []string `json:"paths"`
}

func (c *call) readMultipleFiles(ctx context.Context, args *readMultipleArgs) (string, error) {
	results := make([]string, len(args.Paths))
	budget := c.opts.MaxReadBytes
	for i, p := range args.Paths {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		content, err := func() (string, error) {
			t, err := c.resolve(p, forRead)
			if err != nil {
				return "", err
			}
			defer t.close()
			b, err := c.readAll(t, budget)
			if err != nil {
				return "", err
			}
			budget -= int64(len(b))
			return decodeUTF8(b), nil
		}()
		var se *sizeError
		if errors.As(err, &se) && se.limit < c.opts.MaxReadBytes {
			err = errorf("File too large: %s has %d bytes; with the files before it, that is more than the limit of %d bytes that one call reads", se.path, se.size, c.opts.MaxReadBytes)
		}
		if err != nil {
			results[i] = p + ": Error - " + err.Error()
			continue
		}
		results[i] = p + ":\n" + content + "\n"
	}
	return strings.Join(results, "\n---\n"), nil
}
