package doctor

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
)

// TestDoctorCommand runs mcpwire doctor: --json on a broken server is a
// report with exit 4; a good server is exit 0 and a checklist.
func TestDoctorCommand(t *testing.T) {
	h, stop := clitest.BrokenHTTP("404")
	u := serve(t, h, stop) + "/mcp"
	c := clitest.NewCLIEnv(t, Family())
	code, stdout, stderr := c.Run("doctor", "--json", "--probe-timeout", "3s", "--url", u)
	var r Report
	if err := json.Unmarshal([]byte(stdout), &r); err != nil || code != app.ExitConnect || r.OK || !strings.Contains(r.Next, "check the URL's path") || stderr != "" {
		t.Errorf("exit %d, %v, report %+v, stderr %q", code, err, r, stderr)
	}

	t.Setenv(envProcess, "good")
	code, stdout, stderr = c.Run("doctor", "--", os.Args[0])
	if code != app.ExitOK || !strings.Contains(stdout, "[ok  ] server/discover, protocol 2026-07-28 over stdio") || !strings.Contains(stdout, "The server answers:") {
		t.Errorf("exit %d, stdout:\n%s\nstderr %q", code, stdout, stderr)
	}
	c.Fails(app.ExitUsage, "mcpwire: --probe-timeout -1s: want a duration from 1ms to 1h", "doctor", "--probe-timeout", "-1s", "--", os.Args[0])
}
