package filesystem

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
)

// errnoText names the system errors the tools meet, as Node (libuv) words
// them: the official server passes Node's messages on to the model, so
// ours read the same.
var errnoText = map[syscall.Errno][2]string{
	syscall.ENOENT:       {"ENOENT", "no such file or directory"},
	syscall.EISDIR:       {"EISDIR", "illegal operation on a directory"},
	syscall.ENOTDIR:      {"ENOTDIR", "not a directory"},
	syscall.EEXIST:       {"EEXIST", "file already exists"},
	syscall.EACCES:       {"EACCES", "permission denied"},
	syscall.EPERM:        {"EPERM", "operation not permitted"},
	syscall.ENOTEMPTY:    {"ENOTEMPTY", "directory not empty"},
	syscall.ELOOP:        {"ELOOP", "too many symbolic links encountered"},
	syscall.EINVAL:       {"EINVAL", "invalid argument"},
	syscall.EXDEV:        {"EXDEV", "cross-device link not permitted"},
	syscall.ENAMETOOLONG: {"ENAMETOOLONG", "name too long"},
	syscall.ENOSPC:       {"ENOSPC", "no space left on device"},
	syscall.EROFS:        {"EROFS", "read-only file system"},
	syscall.EBUSY:        {"EBUSY", "resource busy or locked"},
	syscall.EMFILE:       {"EMFILE", "too many open files"},
	syscall.EIO:          {"EIO", "i/o error"},
	syscall.EFBIG:        {"EFBIG", "file too large"},
}

// An opError is a failed file system operation, worded as Node words it:
// "ENOENT: no such file or directory, open '/a/b'".
type opError struct {
	op, path, dest string // dest: the second path of rename
	err            error
}

func (e *opError) Error() string {
	var errno syscall.Errno
	if errors.As(e.err, &errno) {
		if t, ok := errnoText[errno]; ok {
			s := t[0] + ": " + t[1] + ", " + e.op
			if e.path != "" {
				s += " '" + e.path + "'"
			}
			if e.dest != "" {
				s += " -> '" + e.dest + "'"
			}
			return s
		}
	}
	if isEscape(e.err) {
		return "Access denied - " + e.path + " changed while in use: a symbolic link in it now leads outside the allowed directory"
	}
	msg := e.err.Error()
	var pe *fs.PathError
	if errors.As(e.err, &pe) {
		msg = pe.Err.Error()
	}
	if e.dest != "" {
		return fmt.Sprintf("%s '%s' -> '%s': %s", e.op, e.path, e.dest, msg)
	}
	return fmt.Sprintf("%s '%s': %s", e.op, e.path, msg)
}

func (e *opError) Unwrap() error { return e.err }

func opErr(op, path string, err error) error {
	if err == nil {
		return nil
	}
	return &opError{op: op, path: path, err: err}
}

// isEscape reports whether err is os.Root's refusal of a path that
// escapes the root. The standard library does not export that error;
// its text is part of the os package's tests, and TestEscapeDetection
// checks that it still reads the same.
func isEscape(err error) bool {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
}

// toolError is a failure worded for the model, with nothing to add.
type toolError string

func (e toolError) Error() string { return string(e) }

func errorf(format string, args ...any) error { return toolError(fmt.Sprintf(format, args...)) }
