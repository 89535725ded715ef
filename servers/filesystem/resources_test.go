package filesystem

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// TestResourcesMatchOfficial reads files as resources (file://{+path})
// from both servers, in both eras: the template, the contents (text or
// blob, MIME type), and the error codes of what is missing, a directory
// or outside.
func TestResourcesMatchOfficial(t *testing.T) {
	for _, version := range []mcp.Version{"2025-11-25", "2026-07-28"} {
		t.Run(string(version), func(t *testing.T) {
			official, mine := filepath.Join(t.TempDir(), "tree"), filepath.Join(t.TempDir(), "tree")
			for _, d := range []string{official, mine} {
				os.Mkdir(d, 0o755)
				makeTree(t, d)
			}
			theirs := startOfficialArgs(t, []string{official}, version, nil)
			ours := startOurs(t, []string{mine}, nil, version, nil)
			templates := func(cs *client.Session) string {
				var out []string
				for tpl, err := range cs.ResourceTemplates(t.Context()) {
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, tpl.URITemplate+" "+tpl.Name+" "+tpl.Title+" "+tpl.Description)
				}
				return strings.Join(out, "\n")
			}
			if got, want := templates(ours), templates(theirs); got != want {
				t.Errorf("templates:\nours:     %s\nofficial: %s", got, want)
			}
			read := func(cs *client.Session, root, rel string) string {
				ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
				defer cancel()
				uri := fileURL(filepath.Join(root, rel))
				if strings.HasPrefix(rel, "/") {
					uri = "file://" + rel
				}
				res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
				switch {
				case mcp.IsResourceNotFound(err):
					// 2.3.0 (SDK v2) answers -32602 with the URI in both
					// eras; ours -32002 in the legacy era, as 2025-11-25
					// says, -32602 in the modern one.
					return "not found"
				case err != nil:
					return "error " + strings.TrimPrefix(jsonrpc.ErrorCode(err).String(), "error ")
				}
				b, _ := json.Marshal(res.Contents)
				return strings.ReplaceAll(strings.ReplaceAll(string(b), fileURL(root), "{root}"), root, "{root}")
			}
			for _, rel := range []string{"hello.txt", "unicode/日本語.md", "image.png", "binary.bin", "doc.pdf", "empty.txt", "code.py",
				"link-to-hello.txt", "linkdir/main.go", "missing.txt", "src", "nodir/x.txt", "/etc/hostname", "../outside.txt"} {
				if got, want := read(ours, mine, rel), read(theirs, official, rel); got != want {
					t.Errorf("%s:\nours:     %s\nofficial: %s", rel, got, want)
				}
			}
		})
	}
}
