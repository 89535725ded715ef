package inspect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/wire"
)

// Saved checks: the page saves a call with its result as an expectation
// (exact, with paths to ignore, or a JSON Schema the result must meet);
// the inspector keeps them, writes them to the --checks file when there
// is one (never to a path the page names), runs them on the session,
// and serves them as a file (GET /checks) for mcpwire verify.

// checkState is a saved check, with the result of its last run.
type checkState struct {
	wire.Check
	Last *wire.CheckResult `json:"last,omitempty"`
}

// errTooLarge refuses a check that would make the checks file larger
// than mcpwire verify reads.
var errTooLarge = fmt.Errorf("the saved checks would be larger than %d bytes, which mcpwire verify does not read: delete some, or save with a schema or paths to ignore", wire.MaxChecksFile)

// saveCheck saves a check (replacing one of the same name). The checks
// stay a file mcpwire verify reads: at most wire.MaxChecks checks and
// wire.MaxChecksFile bytes.
func (in *Inspector) saveCheck(_ context.Context, c *wire.Check) (*outcome, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	in.mu.Lock()
	checks := slices.Clone(in.st.Checks)
	i := slices.IndexFunc(checks, func(x checkState) bool { return x.Name == c.Name })
	switch {
	case i >= 0:
		checks[i] = checkState{Check: *c}
	case len(checks) >= wire.MaxChecks:
		in.mu.Unlock()
		return nil, fmt.Errorf("%w: at most %d checks", errBusy, wire.MaxChecks)
	default:
		checks = append(checks, checkState{Check: *c})
	}
	if data, err := checkFileOf(checks); err != nil || len(data) > wire.MaxChecksFile {
		in.mu.Unlock()
		return nil, errTooLarge
	}
	in.st.Checks = checks
	in.mu.Unlock()
	if err := in.writeChecks(); err != nil {
		return &outcome{Error: describe(err)}, nil
	}
	in.publish()
	return &outcome{Result: struct{}{}}, nil
}

// deleteArgs name a saved check.
type deleteArgs struct {
	Name string `json:"name"`
}

// deleteCheck removes a saved check.
func (in *Inspector) deleteCheck(_ context.Context, a *deleteArgs) (*outcome, error) {
	in.mu.Lock()
	in.st.Checks = slices.DeleteFunc(in.st.Checks, func(x checkState) bool { return x.Name == a.Name })
	in.mu.Unlock()
	if err := in.writeChecks(); err != nil {
		return &outcome{Error: describe(err)}, nil
	}
	in.publish()
	return &outcome{Result: struct{}{}}, nil
}

// checkFile returns the saved checks as a file.
func (in *Inspector) checkFile() *wire.CheckFile {
	in.mu.Lock()
	defer in.mu.Unlock()
	return checksOf(in.st.Checks)
}

// checksOf returns checks as a file.
func checksOf(checks []checkState) *wire.CheckFile {
	f := &wire.CheckFile{Checks: []wire.Check{}}
	for _, c := range checks {
		f.Checks = append(f.Checks, c.Check)
	}
	return f
}

// checkFileOf returns the file of checks, as written.
func checkFileOf(checks []checkState) ([]byte, error) {
	data, err := json.MarshalIndent(checksOf(checks), "", "  ")
	return append(data, '\n'), err
}

// writeChecks writes the checks to the --checks file, if there is one:
// a new file beside it, renamed over it.
func (in *Inspector) writeChecks() error {
	if in.opts.ChecksFile == "" {
		return nil
	}
	in.mu.Lock()
	data, err := checkFileOf(in.st.Checks)
	in.mu.Unlock()
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(in.opts.ChecksFile), ".checks-*.json")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), in.opts.ChecksFile)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// loadChecks reads the --checks file, if it exists.
func (in *Inspector) loadChecks() error {
	if in.opts.ChecksFile == "" {
		return nil
	}
	f, err := os.Open(in.opts.ChecksFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	cf, err := wire.ReadChecks(f)
	if err != nil {
		return fmt.Errorf("%s: %w", in.opts.ChecksFile, err)
	}
	in.mu.Lock()
	for _, c := range cf.Checks {
		in.st.Checks = append(in.st.Checks, checkState{Check: c})
	}
	in.mu.Unlock()
	return nil
}

// runChecks runs the saved checks on the session.
func (in *Inspector) runChecks(ctx context.Context, _ *noArgs) (*outcome, error) {
	f := in.checkFile()
	return in.run(ctx, "", func(ctx context.Context, s *client.Session) (any, error) {
		res := wire.RunChecks(ctx, s, f, in.opts.RequestTimeout)
		in.mu.Lock()
		for _, r := range res {
			for i := range in.st.Checks {
				if in.st.Checks[i].Name == r.Name {
					in.st.Checks[i].Last = &r
				}
			}
		}
		in.mu.Unlock()
		in.publish()
		return res, nil
	})
}

// checks serves the saved checks as a file.
func (h *handler) checks(w http.ResponseWriter, r *http.Request) {
	h.in.mu.Lock()
	data, err := checkFileOf(h.in.st.Checks)
	h.in.mu.Unlock()
	if err != nil {
		refuse(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", `attachment; filename="checks.json"`)
	w.Write(data)
}
