// Package filesystem is an MCP filesystem server: the tools and the file
// resources of the official @modelcontextprotocol/server-filesystem
// (version 2.3.0), with the same names, arguments, annotations, output
// schemas and result texts, confined to a set of allowed directories by
// os.Root. It is what
// mcpwire serve filesystem runs, and it embeds in any mcpwire server.
//
// # Serving it
//
//	fsys, err := filesystem.New([]string{"/home/me/project"}, nil)
//	if err != nil {
//		log.Fatal(err)
//	}
//	defer fsys.Close()
//	srv, err := fsys.Server(nil) // the tools, the instructions, the roots hook
//	if err != nil {
//		log.Fatal(err)
//	}
//	err = srv.Run(ctx, stdio.New(nil))
//
// To add the tools to a server of your own, make it with ServerOptions
// (which adds the instructions and the hook that hears the client's roots
// change) and call Register:
//
//	srv := server.New(info, fsys.ServerOptions(&server.Options{...}))
//	err := fsys.Register(srv)
//
// # The tools
//
// read_text_file (head, tail), read_file (deprecated, the same),
// read_media_file, read_multiple_files, write_file, append_file (creates
// the file when missing, never changes what is there), edit_file (dryRun;
// a unified diff, as jsdiff writes it; the file keeps its line endings;
// an oldText that matches nowhere is answered with the closest lines of
// the file, numbered), create_directory, list_directory,
// list_directory_with_sizes (sortBy), directory_tree (excludePatterns,
// depth), move_file, copy_file (one regular file, never over anything),
// search_files (glob patterns as minimatch reads them, excludePatterns;
// directories it could not read are named after the matches),
// get_file_info and list_allowed_directories. The resource template
// file://{+path} (FileTemplate) reads any file the tools can read, as text
// or as a base64 blob; resources/list stays empty.
//
// Options.ReadOnly lists only the tools annotated readOnlyHint (the
// official --read-only); Options.ReadOnlyDirs names directories the tools
// read but never write into (--read-only-dir; see Confinement). Paths are
// absolute, or relative to the first allowed directory; ~ is the home
// directory. Every failure is a tool result with isError set and a text
// worded as the official server words it ("ENOENT: no such file or
// directory, open '/a/b'", "Access denied - path outside allowed
// directories: ..."), never a protocol error.
//
// # Confinement
//
// Each allowed directory is opened once as an os.Root, and every access
// goes through a root: a path is resolved one component at a time from
// an open directory, so .., absolute paths and symbolic links cannot lead
// out of it, and a symbolic link swapped in after a check cannot either
// (the check and the use are the same walk). Symbolic links are followed
// as the official server follows them (it works on real paths): one that
// leads into an allowed directory, even by an absolute target or into
// another allowed directory, is followed, one that leads elsewhere is
// refused with "Access denied - symlink target outside allowed
// directories". The resolution ends in an open directory and one name in
// it, and the tool acts there: whatever happens to the path meanwhile,
// the act stays inside the root. Two operations that os.Root lacks,
// renaming without replacing (renameat2 with RENAME_NOREPLACE) and a
// file's birth time (statx), use the descriptor of such an open directory
// and one plain name, never following a link.
//
// A read-only directory (Options.ReadOnlyDirs) refuses every write below
// it: write_file, append_file, edit_file (even with dryRun), a
// copy_file into it (copying out is a read), create_directory, and a
// move_file whose source or destination is in it or holds it. The check
// runs on the real path a request resolves to, so a symbolic link into
// it is refused too, and the directory is known by the path the system
// has for it now (it is held open), so a rename of it or of a directory
// above it does not lift the marking. The client's roots never do.
//
// # Limits
//
// Each call reads at most MaxReadBytes (DefaultMaxReadBytes, 8 MiB: the
// file read, the total of read_multiple_files, the lines of head or tail),
// writes at most MaxWriteBytes (DefaultMaxWriteBytes, 16 MiB) and lists or
// visits at most MaxEntries directory entries (DefaultMaxEntries); past a
// limit the call fails with a text that names it. Walks stop when the
// request is cancelled.
//
// # Roots
//
// In the legacy era (up to 2025-11-25) a client that declares the roots
// capability decides the allowed directories, as in the official server:
// its roots (file: URIs naming directories) replace the configured ones
// for its session. The server asks for them (roots/list) before the
// session's first tool call, and again before the next call after each
// notifications/roots/list_changed. When no root names a usable
// directory, the current directories stay. Options.Roots can instead keep
// the client within the configured directories (RootsWithin) or ignore
// its roots (RootsIgnore). Each session has its own roots: over HTTP, one
// client's roots never change another's access.
//
// A server made without directories gets them only from roots: every call
// of a client that gives none (a legacy client without the roots
// capability, any client of the stateless era unless ModernRoots) fails
// with the official server's "Server cannot operate: No allowed
// directories available..." text, and a path asked while no root names a
// usable directory with "Access denied - no allowed directories". (The
// official server closes a legacy connection it cannot serve; this one
// answers every call with the reason instead.)
//
// The stateless era (2026-07-28) has no session, deprecates roots and
// drops notifications/roots/list_changed; a server can learn the roots
// only by asking within each request (an input_required round, which
// costs a round trip). Modern requests therefore use the configured
// directories, unless Options.ModernRoots makes every tool call ask a
// client that declares roots first.
//
// # Intended differences from the official server
//
// The differential test (TestDifferential) runs about 170 calls against
// both servers (2.3.0, from npm, in both protocol eras) on identical
// trees and compares texts and the trees left behind; TestDifferentialFlags
// does the same with --read-only-dir and --read-only. Where they differ,
// it is on purpose:
//
//   - Limits: reads, writes and listings are bounded (see Limits); the
//     official server reads anything, whole, into memory, and stops a walk
//     at 100,000 entries with its own text.
//   - head and tail are whole numbers from 1 to 2^53-1, as their input
//     schemas say; 2.3.0 takes 0 (no lines). directory_tree's depth is
//     written minimum 1 where 2.3.0 writes exclusiveMinimum 0 (the same
//     integers). Anything else is an invalid-argument error naming the
//     argument and the bound.
//   - write_file and edit_file replace an existing file by renaming a new
//     one over it: a failed write leaves the old content, never part of
//     the new; 2.3.0 writes in place (the file keeps its inode and hard
//     links, and a failure can leave it half written).
//   - move_file between two file systems fails (EXDEV); 2.3.0 copies and
//     removes. Its error for a missing source names the destination where
//     2.3.0 names its staging file.
//   - edit_file refuses a file that is not valid UTF-8, which the official
//     server would rewrite with its invalid bytes replaced by U+FFFD. Its
//     edits are bounded in work (about 2 GiB of text compared and copied
//     by the edits of one call: many edits of a large file, or an oldText
//     of thousands of lines against as many similar lines, fail with "The
//     edits need too much work"), and the edited text, a dry run's too, in
//     size (MaxWriteBytes, checked as replacement lines take the file's
//     indentation): the official server has no bound on either.
//   - move_file refuses to move an allowed directory itself.
//   - The texts of invalid-argument errors come from mcpwire's schema
//     validator; tool schemas omit the $schema member.
//   - get_file_info names a time zone other than UTC by its abbreviation
//     (CEST), where JavaScript writes its long name (Central European
//     Summer Time).
//   - list_directory_with_sizes sorts names by the Unicode root collation
//     (what localeCompare does under an English locale) whatever the
//     process's locale: that of golang.org/x/text/collate (CLDR 23), from
//     a table of its own (collate.go), where Node's ICU has a newer CLDR
//     (docs/rough_edges.md).
//   - Glob patterns: the negated extglob !(a|b) inside a pattern is not
//     supported (a clear error); ? matches one character where minimatch
//     matches one UTF-16 code unit. Brace expansion yields at most 1024
//     patterns of 16 KiB in all, and the exclude patterns of one call
//     share that budget (each pattern without a * counts three times:
//     p, **/p and **/p/**); beyond it the call fails with "Too many or
//     too large exclude patterns".
//   - The roots of a legacy session are asked at its first tool call, not
//     right after initialization, so that the call sees them (see Roots).
//   - Without directories, a legacy client that gives no roots gets the
//     official "Server cannot operate" text on every call; 2.3.0 closes
//     the connection and exits.
//   - The server has instructions and is named mcpwire-filesystem; an
//     allowed directory that does not exist fails New (the official server
//     warns and skips it). resources/read of a file larger than
//     MaxReadBytes is an invalid-params error; of a missing file, -32002
//     in the legacy era, as 2025-11-25 says (2.3.0 answers -32602 in both
//     eras, the URI in its data either way); TestResourcesMatchOfficial
//     compares the rest.
package filesystem
