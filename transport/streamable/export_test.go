package streamable

import "time"

// SetH1SweepEvery sets how often the HTTP/1.1 client checks its idle
// connections, until restore is called.
func SetH1SweepEvery(d time.Duration) (restore func()) {
	old := h1SweepEvery
	h1SweepEvery = d
	return func() { h1SweepEvery = old }
}
