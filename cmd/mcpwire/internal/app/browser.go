package app

import (
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/mcpwire/mcpwire/auth"
)

// EnvBrowser names the program that opens a page (mcpwire login's
// authorization page, mcpwire inspect's) instead of the system's browser.
const EnvBrowser = "MCPWIRE_BROWSER"

// Browser returns the way to open a web page: the test hook
// a.OpenBrowser, else the program of MCPWIRE_BROWSER (run directly, the
// URL as its last argument), else the system's browser.
func (a *App) Browser() func(ctx context.Context, url string) error {
	if a.OpenBrowser != nil {
		return a.OpenBrowser
	}
	if spec := strings.Fields(a.Getenv(EnvBrowser)); len(spec) > 0 {
		return func(_ context.Context, u string) error {
			// Not bound to the command's context: the browser may
			// outlive mcpwire.
			cmd := exec.Command(spec[0], append(spec[1:], u)...)
			if err := cmd.Start(); err != nil {
				return fmt.Errorf("%s: %v", EnvBrowser, err)
			}
			go cmd.Wait() // reaps the program; mcpwire does not wait for it
			return nil
		}
	}
	return auth.OpenBrowser
}
