package serve

import (
	"context"
	"io"

	"github.com/spf13/pflag"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/servers/sqlite"
)

func init() {
	register(Spec{
		Name:  "sqlite",
		Short: "Query and change one SQLite database file",
		Long: `Serve the tools of the archived official SQLite server
(mcp-server-sqlite): read_query, write_query, create_table, list_tables,
describe_table and append_insight, the memo://insights resource and the
mcp-demo prompt, on the database file --db (created when missing, unless
--read-only).

read_query runs on a read-only connection: SQLite itself refuses any
statement that would write. With --read-only the file is opened read-only
and write_query and create_table are not offered. Results are JSON, at
most 1000 rows and 1 MiB, with a note when cut.`,
		Example: `  mcpwire serve sqlite --db ~/data/app.db
  mcpwire serve sqlite --db ~/data/app.db --read-only --http 127.0.0.1:8080
  mcpwire call read_query --args '{"query": "SELECT 1"}' -- mcpwire serve sqlite --db app.db`,
		Bind: func(fs *pflag.FlagSet) Build {
			var path string
			var readOnly bool
			fs.Var(app.NamedString(&path, "FILE"), "db", "the SQLite database file to serve (required)")
			fs.BoolVar(&readOnly, "read-only", false, "open the file read-only: no tool can change it")
			return func(ctx context.Context, _ []string, _ io.Writer, opts *server.Options) (*server.Server, func() error, error) {
				if path == "" {
					return nil, nil, app.UsageErrorf("mcpwire serve sqlite needs --db FILE")
				}
				db, err := sqlite.Open(ctx, path, &sqlite.Options{ReadOnly: readOnly})
				if err != nil {
					return nil, nil, app.UsageErrorf("%v", err)
				}
				srv, err := sqlite.New(db, opts)
				if err != nil {
					db.Close()
					return nil, nil, err
				}
				return srv, db.Close, nil
			}
		},
	})
}
