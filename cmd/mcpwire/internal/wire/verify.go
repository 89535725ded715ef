package wire

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
)

const verifyLong = `mcpwire verify runs a file of saved checks against a server: each check is
a call (tools/call, resources/read, prompts/get) with the result it must
give, exactly but for the paths it ignores, or a JSON Schema the result
must meet. mcpwire inspect saves them from the page (Save as a check);
the file is JSON, described in the help of mcpwire inspect:

  {"checks": [{"name": "...", "method": "tools/call",
               "params": {"name": "echo", "arguments": {"text": "hi"}},
               "expect": {"result": {...}, "ignore": ["content[*].annotations"],
                          "schema": {...}}}]}

It prints one line per check, then the count; --junit FILE writes a JUnit
XML report as well, for CI. --check-timeout bounds each check. The exit
status is 0 when every check passes, 1 when one fails.`

// newVerifyCmd returns the command "mcpwire verify".
func newVerifyCmd(a *app.App) *cobra.Command {
	var junit string
	var perCheck time.Duration
	cmd := &cobra.Command{
		Use:               "verify CHECKS.json [--junit FILE] (@NAME | --url URL | -- COMMAND [ARG...])",
		Short:             "Run saved checks (calls and the results they must give) against a server",
		Long:              verifyLong,
		Example:           "  mcpwire verify checks.json --junit report.xml -- npx -y @modelcontextprotocol/server-everything\n  mcpwire verify checks.json --url http://127.0.0.1:3000/mcp",
		GroupID:           groupWire,
		Args:              app.ServerArgs("CHECKS.json"),
		ValidArgsFunction: a.CompleteArgs(1),
		RunE: a.RunE(func(cmd *cobra.Command, pos []string) error {
			if perCheck < 0 {
				return app.UsageErrorf("--check-timeout %v: want a positive duration", perCheck)
			}
			f, err := os.Open(pos[0])
			if err != nil {
				return app.Failure(app.UnwrapPathError(err))
			}
			checks, err := ReadChecks(f)
			f.Close()
			if err != nil {
				return app.Failure(fmt.Errorf("%s: %w", pos[0], err))
			}
			var results []CheckResult
			err = a.WithSession(cmd.Context(), func(ctx context.Context, s *client.Session) error {
				results = RunChecks(ctx, s, checks, perCheck)
				return nil
			})
			if err != nil {
				return err
			}
			return reportChecks(a, filepath.Base(pos[0]), junit, results)
		}),
	}
	cmd.Flags().StringVar(&junit, "junit", "", "also write a JUnit XML report to this `FILE`")
	cmd.Flags().DurationVar(&perCheck, "check-timeout", 30*time.Second, "bound each check")
	return cmd
}

// reportChecks prints the results (and writes the JUnit report); it
// fails when a check failed.
func reportChecks(a *app.App, suite, junit string, results []CheckResult) error {
	failed := 0
	var b bytes.Buffer
	for _, r := range results {
		if r.Pass {
			fmt.Fprintf(&b, "PASS %s (%.0f ms)\n", r.Name, r.MS)
		} else {
			failed++
			fmt.Fprintf(&b, "FAIL %s: %s\n", r.Name, r.Why)
		}
	}
	fmt.Fprintf(&b, "%d passed, %d failed\n", len(results)-failed, failed)
	var err error
	if a.Global.JSON {
		err = app.WriteJSON(a.Stdout, map[string]any{"results": results})
	} else {
		_, err = a.Stdout.Write(b.Bytes())
	}
	if err != nil {
		return app.Failure(err)
	}
	if junit != "" {
		var x bytes.Buffer
		if err := WriteJUnit(&x, suite, results); err != nil {
			return app.Failure(err)
		}
		if err := os.WriteFile(junit, x.Bytes(), 0o644); err != nil {
			return app.Failure(app.UnwrapPathError(err))
		}
	}
	if failed > 0 {
		return &app.ExitError{Code: app.ExitFailure} // the lines above say which
	}
	return nil
}
