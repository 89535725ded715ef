//go:build !unix

package cli

import (
	"os"
)

// alive reports whether the process pid exists (on Windows, FindProcess
// opens it, and fails when there is none).
func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
