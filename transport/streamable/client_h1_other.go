//go:build !unix

package streamable

import "net"

// h1Supported: idle connections cannot be checked here, and calls go
// through net/http.
const h1Supported = false

// h1Alive is not used here.
func h1Alive(net.Conn) func() bool { return func() bool { return false } }
