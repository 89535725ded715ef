// Package git serves a git repository to MCP clients: the twelve tools
// of the official Python server mcp-server-git (0.6.2), with the same
// names, arguments and result texts, and the remote and history tools its
// users ask for (git_fetch, git_pull, git_push, git_stash, git_tag,
// git_merge), confined to one repository.
//
//	repo, err := git.Open(ctx, "/home/me/project", nil)
//	if err != nil { ... }
//	srv, err := git.New(repo, nil)      // a server with the tools and instructions
//	err = srv.Run(ctx, stdio.New(nil))
//
// or, to add the tools to a server of your own, repo.Register(srv). The
// command line is mcpwire serve git --repository DIR [--http ADDR].
//
// # Tools
//
//	git_status         git status                              read-only
//	git_diff_unstaged  git diff (context_lines)                read-only
//	git_diff_staged    git diff --cached (context_lines)       read-only
//	git_diff           git diff TARGET: the working tree against a branch or commit
//	git_commit         commits what is staged (message)
//	git_add            stages paths (files)
//	git_reset          unstages everything                     destructive
//	git_log            max_count, start_timestamp, end_timestamp; structured output too
//	git_create_branch  branch_name, base_branch
//	git_checkout       branch_name
//	git_show           a commit: header and diff against its first parent
//	git_branch         branch_type local/remote/all, contains, not_contains
//	git_fetch          remote: one of the repository's remotes (default origin)
//	git_pull           remote, branch: fetch, then fast-forward only
//	git_push           remote, branch: only with Options.AllowPush; never forced
//	git_stash          action list/show/push/pop (message, include_untracked, index)
//	git_tag            action list/create (name, target, message: annotated)
//	git_merge          branch (local), allow_merge_commit (default: fast-forward only)
//
// Options.ReadOnly offers only the tools annotated readOnlyHint.
//
// # Remotes, and failures that leave nothing behind
//
// No URL, remote or refspec comes from the client: a remote must be one
// the repository has (named exactly, so "--upload-pack=...", "ext::..."
// or a path is refused), a branch or tag is a name that git
// check-ref-format accepts under refs/heads/ or refs/tags/ (so
// "+refs/*:refs/*", "a:b", "main~1" and "-f" are refused), and the server
// writes the refspec; nothing is ever forced. The ext:: transport is
// off, and git never prompts: it runs without a controlling terminal
// (its own session, stopped whole at its time limit or when its call is
// cancelled: SIGTERM, on which git removes its lock files, then SIGKILL
// two seconds later), with empty askpass programs and no credential
// helper (credentials come from an ssh agent). Each remote command has Options.RemoteTimeout, and a URL's
// credentials never show in a result.
//
// git_pull fast-forwards or changes nothing. git_merge refuses what is
// not a fast-forward unless allow_merge_commit; a merge that stops on a
// conflict is aborted. git_stash pop starts only on a tree without
// changes to tracked files, and one that conflicts is undone (the entry
// is kept; the untracked files it restored are removed again). A failed
// call leaves no merge or stash half done.
//
// The annotations (readOnlyHint, destructiveHint, idempotentHint,
// openWorldHint) are the official server's.
//
// # Confinement
//
// The server works on the repository it was opened on and nothing else:
//
//   - repo_path, which every official tool requires, may be left out;
//     when given it must resolve, symbolic links and all, to the served
//     repository's top directory. A path elsewhere, through "..", through
//     a symbolic link out, or to a directory inside the repository (which
//     could be another repository) is refused.
//   - The repository keeps its git data in its own .git directory: Open
//     refuses a .git file or link pointing elsewhere (a linked worktree,
//     a submodule's checkout, or a planted "gitdir:" line: the class of
//     CVE-2026-134465, where a .git file led the official server out of
//     --repository), a .git directory with a commondir file, and a
//     core.worktree setting that moves the work tree. Every git command
//     is then given the git directory and the work tree (--git-dir,
//     --work-tree) instead of finding them, so a core.worktree set later
//     is ignored, and it runs only while .git is still the directory
//     Open found: a .git swapped for a file, a link or another directory
//     makes every tool refuse.
//   - Nested repositories and submodules are other repositories: the
//     commands that compare the working tree (git_status,
//     git_diff_unstaged, git_diff) neither run git status in them nor
//     compare their commits (--ignore-submodules=all), git_commit with
//     nothing staged answers without git status, and git_add refuses a
//     path inside one, and one (or a directory holding one, "."
//     included) whose .git file or link leads out of the repository; one
//     whose git directory is inside (.git/modules) is staged as git
//     stages it. git still opens the HEAD file that a nested .git file
//     points to, to recognize a repository there; nothing of it reaches
//     a result.
//   - git_add's paths must stay inside the working tree: ".." out of it,
//     absolute paths outside it, paths through a symbolic link and paths
//     into .git are refused before git runs (CVE-2026-27735 was git_add
//     staging files outside the repository). Paths are literal
//     (--literal-pathspecs): no glob patterns, no pathspec magic.
//   - A revision, branch name, base branch, commit or timestamp that
//     starts with '-' is refused in every tool, even when a ref of that
//     name exists, since git would read it as an option (--output=FILE
//     writes a file). The official server added this check to git_diff
//     and git_checkout first and to git_show, git_create_branch, git_log
//     and git_branch later. Revisions are then resolved with git
//     rev-parse --verify --end-of-options, and only the object name git
//     returns reaches the command that uses it; paths follow "--".
//   - git runs as a program with an argument list, never through a shell;
//     its environment drops the GIT_* variables that could point it at
//     another repository or program (GIT_DIR, GIT_WORK_TREE,
//     GIT_INDEX_FILE, GIT_EXTERNAL_DIFF, GIT_CONFIG_PARAMETERS, ...),
//     keeping only the author and committer identity and which
//     configuration files apply; it never prompts, pages or opens an
//     editor; diffs use --no-ext-diff.
//   - Each git command has a time limit (Options.Timeout) and each result
//     a size limit (Options.MaxOutput): a longer output is cut, git is
//     stopped, and the text says so. git_add's number of paths is bounded
//     too, and so is every numeric argument: the input schemas give
//     context_lines 0 to Options.MaxContextLines and max_count 1 to
//     Options.MaxLogCount, and any other number (1e300, -1, 1.5, 2^53+1)
//     is refused before git runs, with a tool error naming the argument
//     and the bound. 1.0 and 1e1 are integers, as JSON Schema says.
//
// The repository's own configuration and hooks are trusted, as git trusts
// them: git_commit runs the pre-commit and commit-msg hooks, as the
// official server's commits do.
//
// # The engine: the git program
//
// The tools run the git program (2.24 or later, for --end-of-options)
// rather than github.com/go-git/go-git/v5, for correctness first and
// speed second. Correctness: git's own output is the reference, and
// go-git cannot produce several of the results at all: it has no diff of
// the working tree against the index or a commit (git_diff_unstaged,
// git_diff), no git status text, no parser for dates such as "2 weeks
// ago" or "yesterday" that git_log accepts, and its patches differ from
// git's (full object names on index lines, no rename detection). Speed,
// measured by servers/git/enginebench (its own module, so that go-git
// never enters mcpwire's) on a repository of 3,001 commits and 1,000
// files with a dirty working tree, median of 15 runs, git 2.39:
//
//	                       git       go-git    go-git/git
//	status                 10.3 ms   43.4 ms     4.2x
//	diff HEAD~50 HEAD       5.0 ms   12.8 ms     2.6x  (and not git's text)
//	show HEAD               1.8 ms    2.7 ms     1.5x
//	log -n 10               1.5 ms    0.2 ms     0.13x
//	log --since --until     7.8 ms  312.4 ms    40x
//	walk every commit      40.3 ms  226.6 ms     5.6x
//
// go-git wins only where starting a process is most of the work (a short
// log, about 1.3 ms saved); git wins the rest, by up to 40 times when a
// date range makes go-git read every commit. The price of the git program
// is a process per call (two when a revision is resolved first) and the
// dependency on git being installed, which a user of a git server has.
//
// # Differences from the official tools
//
// The texts are the official ones ("Repository status:\n...", "Diff with
// main:\n...", "Files staged successfully", ...) except where the
// official text is an accident of Python:
//
//   - git_log shows one format whether or not timestamps are given
//     (Commit, Author "name <email>", Date in ISO 8601, the full Message),
//     where the official server shows Python reprs ('abc...',
//     <git.Actor ...>) without timestamps and only the subject with them;
//     it also returns the commits as structured content.
//   - git_show's diff is git's own patch (diff --git, index and hunk
//     lines), against the first parent for merges; the official server
//     prints "--- a\n+++ b" and GitPython's hunks, and reprs in the
//     header.
//   - git_commit refuses to commit when nothing is staged ("nothing to
//     commit"), where the official server records an empty commit.
//   - git_status, git_diff_unstaged and git_diff do not show changes in
//     submodules (see Confinement).
//   - git_checkout does not create a branch from a remote one of the same
//     name (--no-guess): the official server verifies the name as a
//     revision first, which has the same effect.
//   - git_branch's branch_type may be left out (local), as the official
//     handler allows though its schema requires it; an unknown type is a
//     tool error rather than a text result.
//   - Arguments are checked strictly: an unknown argument is an error
//     rather than ignored, and a max_count over the server's limit is an
//     error rather than a longer log.
package git
