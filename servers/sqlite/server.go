package sqlite

import (
	"fmt"

	"github.com/mcpwire/mcpwire"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// Implementation names the server that New builds.
var Implementation = mcp.Implementation{Name: "mcpwire-sqlite", Title: "SQLite (mcpwire)", Version: mcpwire.Version()}

// Instructions returns the server's instructions for the model.
func (d *Database) Instructions() string {
	s := "Tools to query the SQLite database " + d.path + ". " +
		"list_tables and describe_table show its schema; read_query runs a query on a read-only connection (any statement that would write fails); "
	if d.readOnly {
		s += "the database is open read-only: nothing can change it. "
	} else {
		s += "write_query runs INSERT, UPDATE, DELETE and other changes; create_table runs CREATE TABLE statements and nothing else. "
	}
	return s + fmt.Sprintf("Rows come back as a JSON array of objects, at most %d rows and %d bytes: a longer result is cut with a note, so add a LIMIT. "+
		"append_insight adds a business insight to the memo://insights resource; the mcp-demo prompt runs a guided demo.", d.maxRows, d.maxBytes)
}

// New returns a server with the tools, resource and prompt on d, and its
// instructions. To add them to a server of your own, use Register.
func New(d *Database, opts *server.Options) (*server.Server, error) {
	o := server.Options{}
	if opts != nil {
		o = *opts
	}
	if o.Instructions == "" {
		o.Instructions = d.Instructions()
	}
	srv := server.New(Implementation, &o)
	if err := d.Register(srv); err != nil {
		return nil, err
	}
	return srv, nil
}
