package filesystem

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"net/url"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// FileTemplate is the URI template of the files as resources, as the
// official server (2.3.0) has it: resources/read of file:///abs/path
// reads any file the tools could read, as text or as a base64 blob. The
// template has no list: resources/list never walks the disk.
const FileTemplate = "file://{+path}"

var fileTemplate = &mcp.ResourceTemplate{
	URITemplate: FileTemplate,
	Name:        "file",
	Title:       "File",
	Description: "A file inside the allowed directories, by its absolute file:// URI " +
		"(for example file:///home/user/project/README.md). Text files are " +
		"returned as text, other files as a base64 blob with their MIME type. " +
		"Directories are not resources; use the list_directory tool to find files.",
}

// resourceMIME are the official server's MIME types of file resources,
// by lowercase extension; another file is text/plain when its bytes are
// UTF-8 text, else application/octet-stream.
var resourceMIME = map[string]string{
	".txt": "text/plain", ".md": "text/markdown", ".csv": "text/csv", ".html": "text/html",
	".htm": "text/html", ".css": "text/css", ".js": "text/javascript", ".mjs": "text/javascript",
	".ts": "text/typescript", ".json": "application/json", ".xml": "application/xml",
	".yaml": "application/yaml", ".yml": "application/yaml", ".svg": "image/svg+xml",
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".webp": "image/webp", ".bmp": "image/bmp", ".ico": "image/x-icon", ".mp3": "audio/mpeg",
	".wav": "audio/wav", ".ogg": "audio/ogg", ".flac": "audio/flac", ".mp4": "video/mp4",
	".pdf": "application/pdf", ".zip": "application/zip", ".gz": "application/gzip",
}

func textualMIME(m string) bool {
	switch m {
	case "application/json", "application/xml", "application/yaml", "image/svg+xml":
		return true
	}
	return strings.HasPrefix(m, "text/")
}

// fileContents are the contents of one file resource: text when its
// type is textual (or unknown) and its bytes are UTF-8 without a NUL,
// else a base64 blob.
func fileContents(uri, path string, b []byte) mcp.ResourceContents {
	known, ok := resourceMIME[strings.ToLower(filepath.Ext(path))]
	if (!ok || textualMIME(known)) && utf8.Valid(b) && bytes.IndexByte(b, 0) < 0 {
		if !ok {
			known = "text/plain"
		}
		return mcp.ResourceContents{URI: uri, MimeType: known, Text: string(b)}
	}
	if !ok {
		known = "application/octet-stream"
	}
	return mcp.NewBlobContents(uri, known, b)
}

// notFound is resources/read's error for a file that is not there (or
// not a file), with the official server's message.
func notFound(uri, message string) error {
	data, _ := json.Marshal(mcp.ResourceNotFoundData{URI: uri})
	return &jsonrpc.Error{Code: mcp.CodeResourceNotFound, Message: message, Data: data}
}

// readResource reads a file resource through the same resolution as the
// tools: nothing a tool could not read.
func (f *FS) readResource(ctx context.Context, req *server.Request, p *mcp.ReadResourceParams, _ map[string]string) (*mcp.ReadResourceResult, error) {
	set, err := f.dirsFor(ctx, req)
	if err != nil {
		return nil, err
	}
	defer set.release()
	if err := f.cannotOperate(req, set); err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "%s", err.Error())
	}
	u, err := url.Parse(p.URI)
	if err != nil || u.Scheme != "file" || u.Host != "" && u.Host != "localhost" || u.RawQuery != "" || u.Fragment != "" ||
		strings.Contains(strings.ToLower(u.EscapedPath()), "%2f") || !filepath.IsAbs(u.Path) {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid file URI %s: it must be file:///absolute/path", p.URI)
	}
	c := &call{FS: f, set: set}
	t, err := c.resolve(filepath.FromSlash(u.Path), forRead)
	if err != nil {
		if missingPath(err) {
			return nil, notFound(p.URI, err.Error())
		}
		var oe *opError
		if errors.As(err, &oe) {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "Failed to resolve %s: %s", p.URI, err.Error())
		}
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "%s", err.Error())
	}
	defer t.close()
	switch {
	case t.missing:
		return nil, notFound(p.URI, "Resource not found")
	case t.info.IsDir():
		return nil, notFound(p.URI, "Not a file: "+p.URI+" is a directory; directories are not resources")
	}
	b, err := c.readAll(t, f.opts.MaxReadBytes)
	if err != nil {
		var se *sizeError
		if errors.As(err, &se) {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "%s", err.Error())
		}
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "Failed to read %s: %s", p.URI, err.Error())
	}
	return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{fileContents(p.URI, t.path(), b)}}, nil
}

// missingPath reports whether a resolution failed because the path does
// not exist: a missing directory on it, a file where a directory should
// be, a link that leads nowhere.
func missingPath(err error) bool {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return true
	}
	var te toolError
	return errors.As(err, &te) && (strings.HasPrefix(string(te), "Broken symlink: ") || strings.HasPrefix(string(te), "Parent directory does not exist: "))
}
