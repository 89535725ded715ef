//go:build unix

package server

import "syscall"

// openNonblock opens a skill's file without blocking: a FIFO put where a
// regular file was cannot hold a request (the type is checked once open).
const openNonblock = syscall.O_NONBLOCK
