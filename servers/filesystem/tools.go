package filesystem

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// The tools' schemas, descriptions and annotations are those of
// @modelcontextprotocol/server-filesystem 2026.8.31, which clients and
// models already know; only the $schema member (draft-07 there, the
// protocol's default 2020-12 here) is left out.

func hints(readOnly bool, idempotent, destructive *bool) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{ReadOnlyHint: &readOnly, IdempotentHint: idempotent, DestructiveHint: destructive, OpenWorldHint: ptr(false)}
}

func ptr[T any](v T) *T { return &v }

var (
	readOnly = hints(true, nil, nil)
	// write_file, edit_file, create_directory, move_file.
	writeHints   = hints(false, ptr(true), ptr(true))
	editHints    = hints(false, ptr(false), ptr(true))
	createHints  = hints(false, ptr(true), ptr(false))
	moveHints    = hints(false, ptr(false), ptr(true))
	contentShape = json.RawMessage(`{"type":"object","properties":{"content":{"type":"string"}},"required":["content"],"additionalProperties":false}`)
	pathOnly     = json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)
	// head and tail are whole numbers from 1 to maxLines (the official
	// server's are any number, read with JavaScript's rules).
	readText = json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},` +
		`"tail":{"description":"If provided, returns only the last N lines of the file","type":"integer","minimum":1,"maximum":` + strconv.Itoa(maxLines) + `},` +
		`"head":{"description":"If provided, returns only the first N lines of the file","type":"integer","minimum":1,"maximum":` + strconv.Itoa(maxLines) + `}},"required":["path"]}`)
)

var mediaOutput = json.RawMessage(`{"type":"object","properties":{"content":{"type":"array","items":{"anyOf":[` +
	`{"type":"object","properties":{"type":{"type":"string","enum":["image","audio"]},"data":{"type":"string"},"mimeType":{"type":"string"}},"required":["type","data","mimeType"],"additionalProperties":false},` +
	`{"type":"object","properties":{"type":{"type":"string","const":"resource"},"resource":{"type":"object","properties":{"uri":{"type":"string"},"mimeType":{"type":"string"},"blob":{"type":"string"}},"required":["uri","blob"],"additionalProperties":false}},"required":["type","resource"],"additionalProperties":false}` +
	`]}}},"required":["content"],"additionalProperties":false}`)

// tools lists the tools in the official server's order.
func tools() []toolDef {
	return []toolDef{
		{&mcp.Tool{Name: "read_file", Title: "Read File (Deprecated)",
			Description: "Read the complete contents of a file as text. DEPRECATED: Use read_text_file instead.",
			InputSchema: readText, OutputSchema: contentShape, Annotations: readOnly}, text((*call).readTextFile)},
		{&mcp.Tool{Name: "read_text_file", Title: "Read Text File",
			Description: "Read the complete contents of a file from the file system as text. " +
				"Handles various text encodings and provides detailed error messages " +
				"if the file cannot be read. Use this tool when you need to examine " +
				"the contents of a single file. Use the 'head' parameter to read only " +
				"the first N lines of a file, or the 'tail' parameter to read only " +
				"the last N lines of a file. Operates on the file as text regardless of extension. " +
				"Only works within allowed directories.",
			InputSchema: readText, OutputSchema: contentShape, Annotations: readOnly}, text((*call).readTextFile)},
		{&mcp.Tool{Name: "read_media_file", Title: "Read Media File",
			Description: "Read a file and return it as a base64-encoded content block with its MIME type. " +
				"Image and audio files are returned as image/audio content; any other file type is " +
				"returned as an embedded resource. Only works within allowed directories.",
			InputSchema: pathOnly, OutputSchema: mediaOutput, Annotations: readOnly}, result((*call).readMediaFile)},
		{&mcp.Tool{Name: "read_multiple_files", Title: "Read Multiple Files",
			Description: "Read the contents of multiple files simultaneously. This is more " +
				"efficient than reading files one by one when you need to analyze " +
				"or compare multiple files. Each file's content is returned with its " +
				"path as a reference. Failed reads for individual files won't stop " +
				"the entire operation. Only works within allowed directories.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"paths":{"minItems":1,"type":"array","items":{"type":"string"},"description":"Array of file paths to read. Each path must be a string pointing to a valid file within allowed directories."}},"required":["paths"]}`),
			OutputSchema: contentShape, Annotations: readOnly}, text((*call).readMultipleFiles)},
		{&mcp.Tool{Name: "write_file", Title: "Write File",
			Description: "Create a new file or completely overwrite an existing file with new content. " +
				"Use with caution as it will overwrite existing files without warning. " +
				"Handles text content with proper encoding. Only works within allowed directories.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`),
			OutputSchema: contentShape, Annotations: writeHints}, text((*call).writeFile)},
		{&mcp.Tool{Name: "edit_file", Title: "Edit File",
			Description: "Make line-based edits to a text file. Each edit replaces exact line sequences " +
				"with new content. Returns a git-style diff showing the changes made. " +
				"Only works within allowed directories.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"edits":{"type":"array","items":{"type":"object","properties":{"oldText":{"type":"string","description":"Text to search for - must match exactly"},"newText":{"type":"string","description":"Text to replace with"}},"required":["oldText","newText"]}},"dryRun":{"default":false,"description":"Preview changes using git-style diff format","type":"boolean"}},"required":["path","edits"]}`),
			OutputSchema: contentShape, Annotations: editHints}, text((*call).editFile)},
		{&mcp.Tool{Name: "create_directory", Title: "Create Directory",
			Description: "Create a new directory or ensure a directory exists. Can create multiple " +
				"nested directories in one operation. If the directory already exists, " +
				"this operation will succeed silently. Perfect for setting up directory " +
				"structures for projects or ensuring required paths exist. Only works within allowed directories.",
			InputSchema: pathOnly, OutputSchema: contentShape, Annotations: createHints}, text((*call).createDirectory)},
		{&mcp.Tool{Name: "list_directory", Title: "List Directory",
			Description: "Get a detailed listing of all files and directories in a specified path. " +
				"Results clearly distinguish between files and directories with [FILE] and [DIR] " +
				"prefixes. This tool is essential for understanding directory structure and " +
				"finding specific files within a directory. Only works within allowed directories.",
			InputSchema: pathOnly, OutputSchema: contentShape, Annotations: readOnly}, text((*call).listDirectory)},
		{&mcp.Tool{Name: "list_directory_with_sizes", Title: "List Directory with Sizes",
			Description: "Get a detailed listing of all files and directories in a specified path, including sizes. " +
				"Results clearly distinguish between files and directories with [FILE] and [DIR] " +
				"prefixes. This tool is useful for understanding directory structure and " +
				"finding specific files within a directory. Only works within allowed directories.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"sortBy":{"default":"name","description":"Sort entries by name or size","type":"string","enum":["name","size"]}},"required":["path"]}`),
			OutputSchema: contentShape, Annotations: readOnly}, text((*call).listDirectoryWithSizes)},
		{&mcp.Tool{Name: "directory_tree", Title: "Directory Tree",
			Description: "Get a recursive tree view of files and directories as a JSON structure. " +
				"Each entry includes 'name', 'type' (file/directory), and 'children' for directories. " +
				"Files have no children array, while directories always have a children array (which may be empty). " +
				"The output is formatted with 2-space indentation for readability. Only works within allowed directories.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"excludePatterns":{"default":[],"type":"array","items":{"type":"string"}}},"required":["path"]}`),
			OutputSchema: contentShape, Annotations: readOnly}, text((*call).directoryTree)},
		{&mcp.Tool{Name: "move_file", Title: "Move File",
			Description: "Move or rename files and directories. Can move files between directories " +
				"and rename them in a single operation. If the destination exists, the " +
				"operation will fail. Works across different directories and can be used " +
				"for simple renaming within the same directory. Both source and destination must be within allowed directories.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"source":{"type":"string"},"destination":{"type":"string"}},"required":["source","destination"]}`),
			OutputSchema: contentShape, Annotations: moveHints}, text((*call).moveFile)},
		{&mcp.Tool{Name: "search_files", Title: "Search Files",
			Description: "Recursively search for files and directories matching a pattern. " +
				"The patterns should be glob-style patterns that match paths relative to the working directory. " +
				"Use pattern like '*.ext' to match files in current directory, and '**/*.ext' to match files in all subdirectories. " +
				"Returns full paths to all matching items. Great for finding files when you don't know their exact location. " +
				"Only searches within allowed directories.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"pattern":{"type":"string"},"excludePatterns":{"default":[],"type":"array","items":{"type":"string"}}},"required":["path","pattern"]}`),
			OutputSchema: contentShape, Annotations: readOnly}, text((*call).searchFiles)},
		{&mcp.Tool{Name: "get_file_info", Title: "Get File Info",
			Description: "Retrieve detailed metadata about a file or directory. Returns comprehensive " +
				"information including size, creation time, last modified time, permissions, " +
				"and type. This tool is perfect for understanding file characteristics " +
				"without reading the actual content. Only works within allowed directories.",
			InputSchema: pathOnly, OutputSchema: contentShape, Annotations: readOnly}, text((*call).getFileInfo)},
		{&mcp.Tool{Name: "list_allowed_directories", Title: "List Allowed Directories",
			Description: "Returns the list of directories that this server is allowed to access. " +
				"Subdirectories within these allowed directories are also accessible. " +
				"Use this to understand which directories and their nested paths are available " +
				"before trying to access files.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{}}`), OutputSchema: contentShape, Annotations: readOnly}, text((*call).listAllowedDirectories)},
	}
}

// ToolNames lists the names of the tools, in the order they are listed.
func ToolNames() []string {
	var names []string
	for _, t := range tools() {
		names = append(names, t.tool.Name)
	}
	return names
}

// A call is what a tool handler works with: the allowed directories of
// the call and the FS's options.
type call struct {
	*FS
	set *dirSet
}

type toolDef struct {
	tool *mcp.Tool
	run  func(ctx context.Context, c *call, args json.RawMessage) (*mcp.CallToolResult, error)
}

// text adapts a tool whose result is one text, which the official server
// also returns as the structured content {"content": text}.
func text[A any](h func(c *call, ctx context.Context, args *A) (string, error)) func(context.Context, *call, json.RawMessage) (*mcp.CallToolResult, error) {
	return result(func(c *call, ctx context.Context, args *A) (*mcp.CallToolResult, error) {
		s, err := h(c, ctx, args)
		if err != nil {
			return nil, err
		}
		return textResult(s), nil
	})
}

func textResult(s string) *mcp.CallToolResult {
	var sc []byte
	if utf8.ValidString(s) {
		// One pass into a buffer of the right size: results run to
		// megabytes (a file read, a tree).
		sc = make([]byte, 0, len(s)+len(s)/8+16)
		sc = append(sc, `{"content":`...)
		sc = appendJSONString(sc, s)
		sc = append(sc, '}')
	} else {
		sc, _ = json.Marshal(struct {
			Content string `json:"content"`
		}{s})
	}
	return &mcp.CallToolResult{
		Content:           mcp.ContentList{&mcp.TextContent{Text: s}},
		StructuredContent: sc,
	}
}

// result adapts a tool handler with typed arguments.
func result[A any](h func(c *call, ctx context.Context, args *A) (*mcp.CallToolResult, error)) func(context.Context, *call, json.RawMessage) (*mcp.CallToolResult, error) {
	return func(ctx context.Context, c *call, raw json.RawMessage) (*mcp.CallToolResult, error) {
		var args A
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, fmt.Errorf("invalid arguments: %w", err)
		}
		return h(c, ctx, &args)
	}
}

// Register adds the tools to srv. For the client's roots to be followed
// when they change, srv must have been made with ServerOptions (or
// Options.OnRootsListChanged calling RootsListChanged).
func (f *FS) Register(srv *server.Server) error {
	for _, d := range tools() {
		run := d.run
		err := srv.AddTool(d.tool, func(ctx context.Context, req *server.Request, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
			set, err := f.dirsFor(ctx, req)
			if err != nil {
				return nil, err
			}
			defer set.release()
			if err := f.cannotOperate(req, set); err != nil {
				return nil, err
			}
			return run(ctx, &call{FS: f, set: set}, p.Arguments)
		})
		if err != nil {
			return fmt.Errorf("filesystem: %w", err)
		}
	}
	return nil
}
