package serve

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/servers/filesystem"
)

func init() {
	register(Spec{
		Name:  "filesystem",
		Args:  "[DIR...]",
		Short: "Read, write, edit and search files in the given directories",
		Long: `Serve the tools of the official filesystem server
(@modelcontextprotocol/server-filesystem): read_text_file, read_media_file,
read_multiple_files, write_file, edit_file, create_directory,
list_directory, list_directory_with_sizes, directory_tree, move_file,
search_files, get_file_info and list_allowed_directories, with the same
arguments and results, confined to the directories DIR... (every access
goes through an os.Root: no .., absolute path or symbolic link leads out).

A client that declares the roots capability replaces the directories with
its roots, as with the official server; --roots within keeps it inside
them, --roots ignore ignores its roots. Without DIR, the tools work only
for clients that give roots.`,
		Example: `  mcpwire serve filesystem ~/projects/app ~/notes
  mcpwire serve filesystem --http 127.0.0.1:8080 .
  mcpwire call read_text_file --args '{"path": "README.md", "head": 5}' -- mcpwire serve filesystem .`,
		PositionalArgs: cobra.ArbitraryArgs,
		Bind: func(fs *pflag.FlagSet) Build {
			roots := "replace"
			fs.Var(app.NamedString(&roots, "POLICY"), "roots", "what the client's roots do: replace the directories (as the official server), within (narrow them only) or ignore")
			return func(ctx context.Context, dirs []string, stderr io.Writer, opts *server.Options) (*server.Server, func() error, error) {
				var policy filesystem.RootsPolicy
				switch roots {
				case "replace":
					policy = filesystem.RootsReplace
				case "within":
					policy = filesystem.RootsWithin
				case "ignore":
					policy = filesystem.RootsIgnore
				default:
					return nil, nil, app.UsageErrorf("--roots %q: want replace, within or ignore", roots)
				}
				if len(dirs) == 0 {
					// As the official server: a legacy client's roots can
					// still give directories. Unless nothing can.
					if policy != filesystem.RootsReplace {
						return nil, nil, app.UsageErrorf("mcpwire serve filesystem --roots %s needs at least one DIR: the client's roots alone give it none", roots)
					}
					fmt.Fprintln(stderr, "mcpwire: serve filesystem: no directory given: every path is refused until the client sends its roots (a client of the 2025-11-25 era with the roots capability); clients of 2026-07-28 get none")
				}
				fsys, err := filesystem.New(dirs, &filesystem.Options{Roots: policy, Logger: opts.Logger})
				if err != nil {
					return nil, nil, app.UsageErrorf("%v", err)
				}
				srv, err := fsys.Server(opts)
				if err != nil {
					fsys.Close()
					return nil, nil, err
				}
				return srv, fsys.Close, nil
			}
		},
	})
}
