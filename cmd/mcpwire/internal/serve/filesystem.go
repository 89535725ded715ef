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
		Args:  "[--read-only] [--read-only-dir DIR]... [--confine-roots] [DIR...]",
		Short: "Read, write, edit and search files in the given directories",
		Long: `Serve the tools of the official filesystem server
(@modelcontextprotocol/server-filesystem 2.3.0): read_text_file,
read_media_file, read_multiple_files, write_file, append_file, edit_file,
create_directory, list_directory, list_directory_with_sizes,
directory_tree, move_file, copy_file, search_files, get_file_info and
list_allowed_directories, and the resource template file://{+path}, with
the same arguments and results, confined to the directories DIR... (every
access goes through an os.Root: no .., absolute path or symbolic link
leads out). Options may come anywhere; -- ends them.

--read-only offers only the tools that cannot write. --read-only-dir DIR
(repeatable) allows DIR but refuses every write into it, as the official
server words it, whatever the client's roots.

A client that declares the roots capability replaces the directories with
its roots, as with the official server; --confine-roots (or --roots
within) keeps them inside the directories, --roots ignore ignores them.
Without DIR, the tools work only for clients that give roots: it says so
on stderr.`,
		Example: `  mcpwire serve filesystem ~/projects/app ~/notes
  mcpwire serve filesystem --read-only-dir ~/reference ~/projects/app
  mcpwire serve filesystem --read-only ~/projects/app
  mcpwire serve filesystem --http 127.0.0.1:8080 .
  mcpwire call read_text_file --args '{"path": "README.md", "head": 5}' -- mcpwire serve filesystem .`,
		PositionalArgs: cobra.ArbitraryArgs,
		Bind: func(fs *pflag.FlagSet) Build {
			roots := "replace"
			var readOnly, confine bool
			var readOnlyDirs []string
			fs.Var(app.NamedString(&roots, "POLICY"), "roots", "what the client's roots do: replace the directories (as the official server), within (narrow them only) or ignore")
			fs.BoolVar(&confine, "confine-roots", false, "the client's roots count only where they overlap the directories (as --roots within; the official server's flag)")
			fs.BoolVar(&readOnly, "read-only", false, "offer only the tools that cannot change the file system")
			fs.Var(app.NamedStrings(&readOnlyDirs, "DIR"), "read-only-dir", "a directory the tools may read but never write into; an allowed directory too (repeatable)")
			return func(ctx context.Context, dirs []string, stderr io.Writer, opts *server.Options) (*server.Server, func() error, error) {
				if confine {
					switch roots {
					case "replace", "within":
						roots = "within"
					default:
						return nil, nil, app.UsageErrorf("--confine-roots and --roots %s say different things; give one", roots)
					}
					if len(dirs)+len(readOnlyDirs) == 0 {
						// As the official server: nothing to confine to.
						fmt.Fprintln(stderr, "mcpwire: serve filesystem: --confine-roots has no effect without directories; the client's roots set the allowed directories")
						roots = "replace"
					}
				}
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
				if len(dirs)+len(readOnlyDirs) == 0 {
					// As the official server: a legacy client's roots can
					// still give directories. Unless nothing can.
					if policy != filesystem.RootsReplace {
						return nil, nil, app.UsageErrorf("mcpwire serve filesystem --roots %s needs at least one DIR: the client's roots alone give it none", roots)
					}
					fmt.Fprintln(stderr, "mcpwire: serve filesystem: no directory given: every path is refused until the client sends its roots (a client of the 2025-11-25 era with the roots capability); clients of 2026-07-28 get none")
				}
				fsys, err := filesystem.New(dirs, &filesystem.Options{Roots: policy, ReadOnly: readOnly, ReadOnlyDirs: readOnlyDirs, Logger: opts.Logger})
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
