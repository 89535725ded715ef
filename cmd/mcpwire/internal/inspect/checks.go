package inspect

import (
	"bytes"
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

// saveCheck saves a check (replacing one of the same name).
func (in *Inspector) saveCheck(_ context.Context, c *wire.Check) (*outcome, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	in.mu.Lock()
	i := slices.IndexFunc(in.st.Checks, func(x checkState) bool { return x.Name == c.Name })
	switch {
	case i >= 0:
		in.st.Checks[i] = checkState{Check: *c}
	case len(in.st.Checks) >= wire.MaxChecks:
		in.mu.Unlock()
		return nil, fmt.Errorf("%w: at most %d checks", errBusy, wire.MaxChecks)
	default:
		in.st.Checks = append(in.st.Checks, checkState{Check: *c})
	}
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
	f := &wire.CheckFile{Checks: []wire.Check{}}
	for _, c := range in.st.Checks {
		f.Checks = append(f.Checks, c.Check)
	}
	return f
}

// writeChecks writes the checks to the --checks file, if there is one:
// a new file beside it, renamed over it.
func (in *Inspector) writeChecks() error {
	if in.opts.ChecksFile == "" {
		return nil
	}
	data, err := json.MarshalIndent(in.checkFile(), "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(in.opts.ChecksFile), ".checks-*.json")
	if err != nil {
		return err
	}
	_, err = tmp.Write(append(data, '\n'))
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
	data, err := json.MarshalIndent(h.in.checkFile(), "", "  ")
	if err != nil {
		refuse(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", `attachment; filename="checks.json"`)
	w.Write(append(bytes.TrimSpace(data), '\n'))
}
