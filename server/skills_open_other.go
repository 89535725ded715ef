//go:build !unix

package server

// openNonblock: no such flag outside Unix; the file's type is checked
// once open.
const openNonblock = 0
