package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcpwire/mcpwire"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// maxShownProblems bounds the problems an error lists.
const maxShownProblems = 10

func init() {
	register(Spec{
		Name:  "skills",
		Args:  "DIR...",
		Short: "Offer folders of Agent Skills to any MCP host (the Skills extension)",
		Long: `Serve the Agent Skills in the directories DIR... through the Skills
extension of MCP (io.modelcontextprotocol/skills, SEP-2640), for example
the skills a coding agent keeps on disk (~/.claude/skills), to any host
that speaks the extension: skills/list, skills/get, resources/read of
every file at skill://<name>/<path>, and resources/directory/read.

Each subdirectory that holds a SKILL.md is a skill, named by its
directory; its frontmatter must follow the Agent Skills specification
(name and description; the name is the directory's). Skills nested in
other directories are served under their path (acme/billing/refunds). A
DIR that is itself a skill is served under its own name. Every file of a
skill is listed with its SHA-256 digest and size, which hosts verify.

What is left out: hidden files and directories (.git, .env); symbolic
links (no link is followed, and no path leads out of DIR), and the
skills that hold one (or a special file): their manifests could not be
complete; skills over the extension's limits (512 files, 16 MiB). By default an invalid skill
stops the command with the reason; --skip-invalid serves the others
(--verbose logs what is left out). A file changed on disk is noticed
when it is read or its skill is fetched; --reload rescans for skills
added or removed.`,
		Example: `  mcpwire serve skills ~/.claude/skills
  mcpwire serve skills --http 127.0.0.1:8080 ./skills ./more-skills
  mcpwire skills -- mcpwire serve skills ./skills`,
		PositionalArgs: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return app.UsageErrorf("name at least one directory of skills (usage: %s)", cmd.UseLine())
			}
			return nil
		},
		Bind: func(fs *pflag.FlagSet) Build {
			var prefix string
			var skipInvalid bool
			var reload time.Duration
			fs.Var(app.NamedString(&prefix, "PATH"), "prefix", "serve the skills under this path, as skill://PATH/NAME/SKILL.md (segments of A-Z a-z 0-9 . _ ~ -)")
			fs.BoolVar(&skipInvalid, "skip-invalid", false, "serve the valid skills and leave out the others, rather than stop")
			fs.DurationVar(&reload, "reload", 0, "rescan the directories this often, for skills added or removed (0: never)")
			return func(ctx context.Context, dirs []string, _ io.Writer, opts *server.Options) (*server.Server, func() error, error) {
				if reload < 0 {
					return nil, nil, app.UsageErrorf("--reload %v: want a positive interval, or 0", reload)
				}
				return serveSkills(ctx, dirs, opts, prefix, skipInvalid, reload)
			}
		},
	})
}

// serveSkills builds the server of the skills in dirs.
func serveSkills(ctx context.Context, dirs []string, opts *server.Options, prefix string, skipInvalid bool, reload time.Duration) (*server.Server, func() error, error) {
	if opts.Instructions == "" {
		opts.Instructions = "This server serves Agent Skills (skills/list, skills/get): load a skill by the URI of its SKILL.md, then read its files by their skill:// URIs when the skill asks for them."
	}
	srv := server.New(mcp.Implementation{Name: "mcpwire-skills", Title: "mcpwire skills", Version: mcpwire.Version()}, opts)
	var sets []*server.SkillSet
	closeAll := func() error {
		var errs []error
		for _, k := range sets {
			errs = append(errs, k.Close())
		}
		srv.Close()
		return errors.Join(errs...)
	}
	for _, dir := range dirs {
		var problems []error
		o := &server.SkillsOptions{Prefix: prefix, DirectoryRead: true, OnProblem: func(err error) { problems = append(problems, err) }}
		set, err := srv.AddSkillsDir(dir, o)
		if err != nil {
			closeAll()
			return nil, nil, app.UsageErrorf("%s: %v", dir, err)
		}
		sets = append(sets, set)
		for _, p := range problems {
			opts.Logger.Warn("a skill or file is left out", "dir", dir, "problem", p)
		}
		if len(problems) > 0 && !skipInvalid {
			closeAll()
			return nil, nil, app.UsageErrorf("%s: %s (serve the valid skills with --skip-invalid)", dir, describeProblems(problems))
		}
		if len(set.Skills()) == 0 && reload == 0 {
			closeAll()
			return nil, nil, app.UsageErrorf("%s: no skill found (a skill is a directory with a SKILL.md; --reload serves the directory until skills are added)", dir)
		}
	}
	if reload == 0 {
		return srv, closeAll, nil
	}
	rctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(reload)
		defer t.Stop()
		for {
			select {
			case <-rctx.Done():
				return
			case <-t.C:
			}
			for _, k := range sets {
				if err := k.Reload(); err != nil {
					opts.Logger.Warn("rescanning the skills failed", "set", k.String(), "error", err)
				}
			}
		}
	})
	return srv, func() error { cancel(); wg.Wait(); return closeAll() }, nil
}

// describeProblems lists the problems, bounded.
func describeProblems(problems []error) string {
	var s []string
	for i, p := range problems {
		if i == maxShownProblems {
			s = append(s, fmt.Sprintf("and %d more", len(problems)-i))
			break
		}
		s = append(s, strings.TrimPrefix(p.Error(), "skills: "))
	}
	return strings.Join(s, "; ")
}
