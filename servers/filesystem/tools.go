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
// @modelcontextprotocol/server-filesystem 2.3.0, which clients and models
// already know, with two bounds of our own: head and tail are whole
// numbers from 1 (2.3.0: from 0) and depth's exclusiveMinimum 0 is written
// minimum 1 (the same integers); every numeric argument has a minimum and
// a maximum. The $schema member (2020-12, the protocol's default) is left
// out.

// hints are a tool's annotations: never open-world.
func hints(readOnly, idempotent, destructive bool) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{ReadOnlyHint: &readOnly, IdempotentHint: &idempotent, DestructiveHint: &destructive, OpenWorldHint: ptr(false)}
}

func ptr[T any](v T) *T { return &v }

var (
	contentShape = json.RawMessage(`{"type":"object","properties":{"content":{"type":"string"}},"required":["content"],"additionalProperties":false}`)
	maxLinesText = strconv.Itoa(maxLines)
)

var mediaOutput = json.RawMessage(`{"type":"object","properties":{"content":{"type":"array","items":{"anyOf":[` +
	`{"type":"object","properties":{"type":{"type":"string","enum":["image","audio"]},"data":{"type":"string"},"mimeType":{"type":"string"}},"required":["type","data","mimeType"],"additionalProperties":false},` +
	`{"type":"object","properties":{"type":{"type":"string","const":"resource"},"resource":{"type":"object","properties":{"uri":{"type":"string"},"mimeType":{"type":"string"},"blob":{"type":"string"}},"required":["uri","blob"],"additionalProperties":false}},"required":["type","resource"],"additionalProperties":false}` +
	`]}}},"required":["content"],"additionalProperties":false}`)

// tools lists the tools in the official server's order.
func tools() []toolDef {
	return []toolDef{
		{&mcp.Tool{Name: "read_file", Title: "Read File (Deprecated)",
			Description:  "Read the complete contents of a file as text. DEPRECATED: Use read_text_file instead.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"The file to read as text. Absolute, or relative to an allowed directory; it must resolve inside the allowed directories."},"tail":{"description":"If provided, returns only the last N lines of the file","type":"integer","minimum":1,"maximum":` + maxLinesText + `},"head":{"description":"If provided, returns only the first N lines of the file","type":"integer","minimum":1,"maximum":` + maxLinesText + `}},"required":["path"]}`),
			OutputSchema: contentShape, Annotations: hints(true, true, false)}, text((*call).readTextFile)},
		{&mcp.Tool{Name: "read_text_file", Title: "Read Text File",
			Description:  "Read the complete contents of a file from the file system as text. Handles various text encodings and provides detailed error messages if the file cannot be read. Use this tool when you need to examine the contents of a single file. Use the 'head' parameter to read only the first N lines of a file, or the 'tail' parameter to read only the last N lines of a file. Operates on the file as text regardless of extension. Only works within allowed directories.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"The file to read as text. Absolute, or relative to an allowed directory; it must resolve inside the allowed directories."},"tail":{"description":"If provided, returns only the last N lines of the file","type":"integer","minimum":1,"maximum":` + maxLinesText + `},"head":{"description":"If provided, returns only the first N lines of the file","type":"integer","minimum":1,"maximum":` + maxLinesText + `}},"required":["path"]}`),
			OutputSchema: contentShape, Annotations: hints(true, true, false)}, text((*call).readTextFile)},
		{&mcp.Tool{Name: "read_media_file", Title: "Read Media File",
			Description:  "Read a file and return it as a base64-encoded content block with its MIME type. Image and audio files are returned as image/audio content; any other file type is returned as an embedded resource. Only works within allowed directories.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"The image, audio or other file to read as base64. Absolute, or relative to an allowed directory; it must resolve inside the allowed directories."}},"required":["path"]}`),
			OutputSchema: mediaOutput, Annotations: hints(true, true, false)}, result((*call).readMediaFile)},
		{&mcp.Tool{Name: "read_multiple_files", Title: "Read Multiple Files",
			Description:  "Read the contents of multiple files simultaneously. This is more efficient than reading files one by one when you need to analyze or compare multiple files. Each file's content is returned with its path as a reference. Failed reads for individual files won't stop the entire operation. Only works within allowed directories.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"paths":{"minItems":1,"type":"array","items":{"type":"string"},"description":"Array of file paths to read. Each path must be a string pointing to a valid file within allowed directories."}},"required":["paths"]}`),
			OutputSchema: contentShape, Annotations: hints(true, true, false)}, text((*call).readMultipleFiles)},
		{&mcp.Tool{Name: "write_file", Title: "Write File",
			Description:  "Create a new file or completely overwrite an existing file with new content. Use with caution as it will overwrite existing files without warning. Handles text content with proper encoding. Only works within allowed directories.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"The file to create, or to overwrite if it exists; its parent directory must exist. Absolute, or relative to an allowed directory; it must resolve inside the allowed directories."},"content":{"type":"string","description":"The complete text the file will contain, replacing any it had"}},"required":["path","content"]}`),
			OutputSchema: contentShape, Annotations: hints(false, true, true)}, text((*call).writeFile)},
		{&mcp.Tool{Name: "append_file", Title: "Append File",
			Description:  "Append text to the end of a file, creating the file if it does not exist. The existing content is never changed or replaced. The text is appended exactly as given, with no newline added before or after it, so end it with a newline if the next append should start on a new line. Only works within allowed directories.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"The file to append to; it is created if it does not exist. Absolute, or relative to an allowed directory; it must resolve inside the allowed directories."},"content":{"type":"string","description":"Text to append, exactly as given. No newline is added: end it with \\n if the next append should start on a new line."}},"required":["path","content"]}`),
			OutputSchema: contentShape, Annotations: hints(false, false, false)}, text((*call).appendFile)},
		{&mcp.Tool{Name: "edit_file", Title: "Edit File",
			Description:  "Make line-based edits to a text file. Edits apply in order, each to the result of the ones before it, and each replaces the first match of its oldText with newText. oldText must match the file's text exactly, except that line endings (LF or CRLF) never matter and, when there is no exact match, a run of whole lines matches if each line is equal once leading and trailing whitespace is ignored (newText then takes the file's indentation). Whitespace inside a line must match. If any edit has no match, nothing is written and the error shows the closest lines of the file, numbered, to copy oldText from. Returns a git-style diff showing the changes made. Only works within allowed directories.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"The text file to edit. Absolute, or relative to an allowed directory; it must resolve inside the allowed directories."},"edits":{"type":"array","items":{"type":"object","properties":{"oldText":{"type":"string","description":"Text to search for - must match exactly"},"newText":{"type":"string","description":"Text to replace with"}},"required":["oldText","newText"]},"description":"The replacements to make, applied in order, each to the result of the ones before it. If any one has no match, none is written."},"dryRun":{"default":false,"description":"Preview changes using git-style diff format","type":"boolean"}},"required":["path","edits"]}`),
			OutputSchema: contentShape, Annotations: hints(false, false, true)}, text((*call).editFile)},
		{&mcp.Tool{Name: "create_directory", Title: "Create Directory",
			Description:  "Create a new directory or ensure a directory exists. Can create multiple nested directories in one operation. If the directory already exists, this operation will succeed silently. Perfect for setting up directory structures for projects or ensuring required paths exist. Only works within allowed directories.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"The directory to create, with any missing parents; an existing directory is left as is. Absolute, or relative to an allowed directory; it must resolve inside the allowed directories."}},"required":["path"]}`),
			OutputSchema: contentShape, Annotations: hints(false, true, false)}, text((*call).createDirectory)},
		{&mcp.Tool{Name: "list_directory", Title: "List Directory",
			Description:  "List the files and directories directly inside a path, each marked [FILE] or [DIR]. Use it to see what a directory contains; when you also need each entry's size or want entries sorted by size, use list_directory_with_sizes instead, and for a recursive view use directory_tree. Returns one line per entry. Only works within allowed directories.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"The directory to list. Absolute, or relative to an allowed directory; it must resolve inside the allowed directories."}},"required":["path"]}`),
			OutputSchema: contentShape, Annotations: hints(true, true, false)}, text((*call).listDirectory)},
		{&mcp.Tool{Name: "list_directory_with_sizes", Title: "List Directory with Sizes",
			Description:  "List the files and directories directly inside a path with each file's size, marked [FILE] or [DIR], sorted by name or by size, largest first (sortBy). Use it when sizes matter, such as finding the largest files; for names only, use list_directory, which returns less text. Returns one line per entry, followed by the totals. Only works within allowed directories.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"The directory to list. Absolute, or relative to an allowed directory; it must resolve inside the allowed directories."},"sortBy":{"default":"name","description":"Sort entries by name or size","type":"string","enum":["name","size"]}},"required":["path"]}`),
			OutputSchema: contentShape, Annotations: hints(true, true, false)}, text((*call).listDirectoryWithSizes)},
		{&mcp.Tool{Name: "directory_tree", Title: "Directory Tree",
			Description:  "Get a recursive tree view of files and directories as a JSON structure. Each entry includes 'name', 'type' (file/directory), and 'children' for directories. Files have no children array, while directories always have a children array (which may be empty), except at the last level when 'depth' limits the tree: those directories are not read and have no children array. The output is formatted with 2-space indentation for readability. Only works within allowed directories.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"The directory at the root of the tree. Absolute, or relative to an allowed directory; it must resolve inside the allowed directories."},"excludePatterns":{"default":[],"description":"Patterns for entries to leave out, with their contents, matched against each entry's path relative to path. A pattern with no '*' matches that name at any depth ('node_modules' leaves out every node_modules directory); a pattern with '*' is a glob matched as written, and one ending in '/**' also leaves out the directory it names.","type":"array","items":{"type":"string"}},"depth":{"description":"How many levels to descend: 1 lists only the entries directly in path. Directories at the last level have no children array. Omit for the whole tree.","type":"integer","minimum":1,"maximum":` + maxLinesText + `}},"required":["path"]}`),
			OutputSchema: contentShape, Annotations: hints(true, true, false)}, text((*call).directoryTree)},
		{&mcp.Tool{Name: "move_file", Title: "Move File",
			Description:  "Move or rename files and directories. Can move files between directories and rename them in a single operation. If the destination exists, the operation will fail. Works across different directories and can be used for simple renaming within the same directory. Both source and destination must be within allowed directories.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"source":{"type":"string","description":"The file or directory to move or rename. Absolute, or relative to an allowed directory; it must resolve inside the allowed directories."},"destination":{"type":"string","description":"Its new path, including the name; nothing may exist there yet. Absolute, or relative to an allowed directory; it must resolve inside the allowed directories."}},"required":["source","destination"]}`),
			OutputSchema: contentShape, Annotations: hints(false, false, true)}, text((*call).moveFile)},
		{&mcp.Tool{Name: "copy_file", Title: "Copy File",
			Description:  "Copy a file to a new location, without reading its content into the conversation. Copies one regular file, keeping its permissions and modification time; directories are not copied. If the destination exists, the operation will fail: it never overwrites. Both source and destination must be within allowed directories.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"source":{"type":"string","description":"The file to copy"},"destination":{"type":"string","description":"Where to create the copy; nothing may exist there yet"}},"required":["source","destination"]}`),
			OutputSchema: contentShape, Annotations: hints(false, true, false)}, text((*call).copyFile)},
		{&mcp.Tool{Name: "search_files", Title: "Search Files",
			Description:  "Find files and directories by NAME, not by content: this tool never reads or searches inside files. It walks the tree under 'path' and matches a glob pattern against each entry's path relative to 'path' (case-sensitive). Use '*.ext' to match entries directly under 'path', and '**/*.ext' or '**/name' to match at any depth. Returns full paths to all matching items. Great for finding files when you don't know their exact location. Only searches within allowed directories.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"The directory to search under. Absolute, or relative to an allowed directory; it must resolve inside the allowed directories."},"pattern":{"type":"string","description":"Glob matched against each entry's path relative to path, never its content: '*.ts' matches directly under path, '**/*.ts' at any depth."},"excludePatterns":{"default":[],"description":"Patterns for entries to leave out, with their contents, matched against each entry's path relative to path. A pattern with no '*' matches that name at any depth ('node_modules' leaves out every node_modules directory); a pattern with '*' is a glob matched as written, and one ending in '/**' also leaves out the directory it names.","type":"array","items":{"type":"string"}}},"required":["path","pattern"]}`),
			OutputSchema: contentShape, Annotations: hints(true, true, false)}, text((*call).searchFiles)},
		{&mcp.Tool{Name: "get_file_info", Title: "Get File Info",
			Description:  "Retrieve detailed metadata about a file or directory. Returns comprehensive information including size, creation time, last modified time, permissions, type and hard-link count. This tool is perfect for understanding file characteristics without reading the actual content. Only works within allowed directories.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"The file or directory to describe. Absolute, or relative to an allowed directory; it must resolve inside the allowed directories."}},"required":["path"]}`),
			OutputSchema: contentShape, Annotations: hints(true, true, false)}, text((*call).getFileInfo)},
		{&mcp.Tool{Name: "list_allowed_directories", Title: "List Allowed Directories",
			Description:  "Returns the list of directories that this server is allowed to access. Subdirectories within these allowed directories are also accessible. Use this to understand which directories and their nested paths are available before trying to access files.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{}}`),
			OutputSchema: contentShape, Annotations: hints(true, true, false)}, text((*call).listAllowedDirectories)},
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
		if f.opts.ReadOnly && (d.tool.Annotations == nil || d.tool.Annotations.ReadOnlyHint == nil || !*d.tool.Annotations.ReadOnlyHint) {
			continue // withheld: fails closed for a tool that does not say it cannot write
		}
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
	if err := srv.AddResourceTemplate(fileTemplate, f.readResource, nil); err != nil {
		return fmt.Errorf("filesystem: %w", err)
	}
	return nil
}
