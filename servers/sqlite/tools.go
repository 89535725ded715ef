package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	msqlite "modernc.org/sqlite"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// The names of the tools, the resource and the prompt, as the official
// server names them.
const (
	ToolReadQuery     = "read_query"
	ToolWriteQuery    = "write_query"
	ToolCreateTable   = "create_table"
	ToolListTables    = "list_tables"
	ToolDescribeTable = "describe_table"
	ToolAppendInsight = "append_insight"
	MemoURI           = "memo://insights"
	PromptDemo        = "mcp-demo"
)

type queryArgs struct {
	Query string `json:"query"`
}

type tableArgs struct {
	TableName string `json:"table_name"`
}

type insightArgs struct {
	Insight string `json:"insight"`
}

type noArgs struct{}

const (
	schemaReadQuery   = `{"type":"object","properties":{"query":{"type":"string","minLength":1,"description":"SELECT SQL query to execute"}},"required":["query"],"additionalProperties":false}`
	schemaWriteQuery  = `{"type":"object","properties":{"query":{"type":"string","minLength":1,"description":"SQL query to execute"}},"required":["query"],"additionalProperties":false}`
	schemaCreateTable = `{"type":"object","properties":{"query":{"type":"string","minLength":1,"description":"CREATE TABLE SQL statement"}},"required":["query"],"additionalProperties":false}`
	schemaListTables  = `{"type":"object","properties":{},"additionalProperties":false}`
	schemaDescribe    = `{"type":"object","properties":{"table_name":{"type":"string","minLength":1,"description":"Name of the table to describe"}},"required":["table_name"],"additionalProperties":false}`
	schemaInsight     = `{"type":"object","properties":{"insight":{"type":"string","minLength":1,"description":"Business insight discovered from data analysis"}},"required":["insight"],"additionalProperties":false}`

	// schemaRows is the output schema of the tools that return rows.
	schemaRows = `{"type":"object","properties":{` +
		`"columns":{"type":"array","items":{"type":"string"},"description":"the result's columns, in order (a repeated name gets a suffix: a, a:2)"},` +
		`"rows":{"type":"array","items":{"type":"object"},"description":"each row, its members the columns"},` +
		`"truncated":{"type":"boolean","description":"whether rows were left out at the server's row or size limit"}},` +
		`"required":["columns","rows","truncated"]}`
)

func hints(readOnly, destructive, idempotent bool) *mcp.ToolAnnotations {
	f := false
	return &mcp.ToolAnnotations{ReadOnlyHint: &readOnly, DestructiveHint: &destructive, IdempotentHint: &idempotent, OpenWorldHint: &f}
}

func tool(name, title, desc, schema string, a *mcp.ToolAnnotations) *mcp.Tool {
	return &mcp.Tool{Name: name, Title: title, Description: desc, InputSchema: json.RawMessage(schema), Annotations: a}
}

func rowsTool(t *mcp.Tool) *mcp.Tool {
	t.OutputSchema = json.RawMessage(schemaRows)
	return t
}

// Register adds the tools, the memo://insights resource and the mcp-demo
// prompt to srv. A read-only database gets no write_query or
// create_table.
func (d *Database) Register(srv *server.Server) error {
	ro := hints(true, false, true)
	errs := []error{
		server.AddTool(srv, rowsTool(tool(ToolReadQuery, "Read query", "Execute a SELECT query on the SQLite database", schemaReadQuery, ro)), d.readQuery),
		server.AddTool(srv, rowsTool(tool(ToolListTables, "List tables", "List all tables in the SQLite database", schemaListTables, ro)), d.listTables),
		server.AddTool(srv, rowsTool(tool(ToolDescribeTable, "Describe table", "Get the schema information for a specific table", schemaDescribe, ro)), d.describeTable),
		server.AddTool(srv, tool(ToolAppendInsight, "Append insight", "Add a business insight to the memo", schemaInsight, hints(false, false, false)),
			func(ctx context.Context, _ *server.Request, in insightArgs) (*mcp.CallToolResult, error) {
				return d.appendInsight(srv, in)
			}),
		srv.AddResource(&mcp.Resource{URI: MemoURI, Name: "Business Insights Memo", Description: "A living document of discovered business insights", MimeType: "text/plain"}, d.readMemo),
		srv.AddPrompt(&mcp.Prompt{
			Name:        PromptDemo,
			Description: "A prompt to seed the database with initial data and demonstrate what you can do with an SQLite MCP Server + Claude",
			Arguments:   []mcp.PromptArgument{{Name: "topic", Description: "Topic to seed the database with initial data", Required: true}},
		}, getDemo, nil),
	}
	if !d.readOnly {
		errs = append(errs,
			server.AddTool(srv, tool(ToolWriteQuery, "Write query", "Execute an INSERT, UPDATE, or DELETE query on the SQLite database", schemaWriteQuery, hints(false, true, false)), d.writeQuery),
			server.AddTool(srv, tool(ToolCreateTable, "Create table", "Create a new table in the SQLite database", schemaCreateTable, hints(false, false, false)), d.createTable),
		)
	}
	return errors.Join(errs...)
}

// rowsResult is a tool result holding rows: their JSON array as text (and
// a second text block saying why they were cut, if they were), and as
// structured content.
func rowsResult(res *result) (*mcp.CallToolResult, error) {
	structured, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	content := mcp.ContentList{&mcp.TextContent{Text: res.text()}}
	if res.note != "" {
		content = append(content, &mcp.TextContent{Text: res.note})
	}
	return &mcp.CallToolResult{Content: content, StructuredContent: structured}, nil
}

// readQuery runs the query on a read-only connection (mode=ro,
// query_only): a statement that would write fails in SQLite itself,
// whatever its text.
func (d *Database) readQuery(ctx context.Context, _ *server.Request, in queryArgs) (*mcp.CallToolResult, error) {
	res, err := d.query(ctx, in.Query)
	if err != nil {
		return nil, dbError(err)
	}
	return rowsResult(res)
}

func (d *Database) listTables(ctx context.Context, _ *server.Request, _ noArgs) (*mcp.CallToolResult, error) {
	res, err := d.query(ctx, "SELECT name FROM sqlite_master WHERE type='table'")
	if err != nil {
		return nil, dbError(err)
	}
	return rowsResult(res)
}

func (d *Database) describeTable(ctx context.Context, _ *server.Request, in tableArgs) (*mcp.CallToolResult, error) {
	// The name is a bound parameter of the table-valued pragma function,
	// never SQL text. SQLite would read it only up to a NUL, and describe
	// another table.
	if strings.IndexByte(in.TableName, 0) >= 0 {
		return nil, fmt.Errorf("Error: no such table: %q", in.TableName)
	}
	res, err := d.query(ctx, "SELECT * FROM pragma_table_info(?)", in.TableName)
	if err != nil {
		return nil, dbError(err)
	}
	if len(res.Rows) == 0 {
		return nil, fmt.Errorf("Error: no such table: %s", in.TableName)
	}
	return rowsResult(res)
}

// writeQuery runs the query as one transaction (see change): committed
// when every statement succeeds, rolled back otherwise.
func (d *Database) writeQuery(ctx context.Context, _ *server.Request, in queryArgs) (*mcp.CallToolResult, error) {
	if hasPrefixFold(in.Query, "SELECT") {
		return nil, errors.New("Error: SELECT queries are not allowed for write_query")
	}
	n, err := d.change(ctx, writeRule, func(ctx context.Context, tx *sql.Tx) (int64, error) {
		return d.exec(ctx, tx, in.Query)
	})
	if err != nil {
		return nil, dbError(err)
	}
	return server.TextResult(fmt.Sprintf(`[{"affected_rows":%d}]`, n)), nil
}

// createTable runs the statement under createRule, which lets it create
// tables and nothing else, so that SQLite, not a reading of the text,
// keeps a second statement from changing or dropping data; as one
// transaction, so that a statement the rule refuses undoes the ones
// before it.
func (d *Database) createTable(ctx context.Context, _ *server.Request, in queryArgs) (*mcp.CallToolResult, error) {
	if !hasPrefixFold(in.Query, "CREATE TABLE") {
		return nil, errors.New("Error: Only CREATE TABLE statements are allowed")
	}
	_, err := d.change(ctx, createRule, func(ctx context.Context, tx *sql.Tx) (int64, error) {
		return d.exec(ctx, tx, in.Query)
	})
	if err != nil {
		return nil, dbError(err)
	}
	return server.TextResult("Table created successfully"), nil
}

func (d *Database) appendInsight(srv *server.Server, in insightArgs) (*mcp.CallToolResult, error) {
	if len(in.Insight) > d.maxInsightBytes {
		return nil, fmt.Errorf("Error: an insight may have at most %d bytes, not %d", d.maxInsightBytes, len(in.Insight))
	}
	d.mu.Lock()
	if len(d.insights) >= d.maxInsights {
		d.mu.Unlock()
		return nil, fmt.Errorf("Error: the memo is full (%d insights, the server's limit)", d.maxInsights)
	}
	d.insights = append(d.insights, in.Insight)
	d.mu.Unlock()
	srv.ResourceUpdated(MemoURI)
	return server.TextResult("Insight added to memo"), nil
}

// Memo returns the text of the memo://insights resource.
func (d *Database) Memo() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.insights) == 0 {
		return "No business insights have been discovered yet."
	}
	var b strings.Builder
	b.WriteString("📊 Business Intelligence Memo 📊\n\nKey Insights Discovered:\n\n")
	for i, in := range d.insights {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("- " + in)
	}
	if len(d.insights) > 1 {
		fmt.Fprintf(&b, "\nSummary:\nAnalysis has revealed %d key business insights that suggest opportunities for strategic optimization and growth.", len(d.insights))
	}
	return b.String()
}

func (d *Database) readMemo(ctx context.Context, _ *server.Request, p *mcp.ReadResourceParams, _ map[string]string) (*mcp.ReadResourceResult, error) {
	return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: MemoURI, MimeType: "text/plain", Text: d.Memo()}}}, nil
}

func getDemo(ctx context.Context, _ *server.Request, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
	topic := p.Arguments["topic"]
	text := strings.TrimSpace(strings.ReplaceAll(demoPrompt, "{topic}", topic))
	return &mcp.GetPromptResult{
		Description: "Demo template for " + topic,
		Messages:    []mcp.PromptMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: text}}},
	}, nil
}

// dbError words an SQLite error as the official server does.
func dbError(err error) error {
	var se *msqlite.Error
	if errors.As(err, &se) {
		return fmt.Errorf("Database error: %w", err)
	}
	return fmt.Errorf("Error: %w", err)
}

func hasPrefixFold(s, prefix string) bool {
	s = strings.TrimSpace(s)
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
