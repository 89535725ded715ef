package client

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"
	"sync"

	"github.com/mcpwire/mcpwire/mcp"
)

// Loading a skill, as SEP-2640 asks of a host: nothing is read before the
// skill is loaded; loading reads its SKILL.md alone and verifies it
// against the entry the host holds (size, digest, then the frontmatter
// field by field); each other file is read when asked for, only if the
// held entry lists it, and verified too. Content that fails verification
// is never returned.

// ErrSkillVerification is matched (errors.Is) by every
// *SkillVerificationError.
var ErrSkillVerification = errors.New("mcp client: skill verification failed")

// ErrDynamicSkill reports a skill whose entry has no manifest
// ("resources": "dynamic"), which LoadSkill refuses unless
// LoadSkillOptions.AllowDynamic.
var ErrDynamicSkill = errors.New("mcp client: the skill is dynamic: its files have no digests to verify")

// A SkillVerificationError is a skill file whose content is not what the
// held entry says, or that the entry does not list: the content was not
// used. Refresh the entry (Session.GetSkill) and load the skill again;
// a host that persisted an approval of the skill asks for it again, since
// the files changed.
type SkillVerificationError struct {
	// Skill is the URI of the skill's SKILL.md.
	Skill string
	// File is the URI of the file.
	File string
	// What differs: "size", "digest", "frontmatter", "content" (the
	// server sent no usable content), or "unlisted".
	What string
	// Detail says how.
	Detail string
}

func (e *SkillVerificationError) Error() string {
	return fmt.Sprintf("mcp client: skill file %s: %s mismatch: %s", e.File, e.What, e.Detail)
}

// Is reports whether target is ErrSkillVerification.
func (e *SkillVerificationError) Is(target error) bool { return target == ErrSkillVerification }

// LoadSkillOptions configure LoadSkill. A nil *LoadSkillOptions means the
// defaults.
type LoadSkillOptions struct {
	// AllowDynamic loads a skill whose entry has no manifest: its files
	// cannot be verified (its SKILL.md's frontmatter still is), and what
	// is read of it is bounded by mcp.MaxSkillBytes.
	AllowDynamic bool
}

// A LoadedSkill is a skill a host loaded: the entry it holds while it
// acts on the skill, and the verified SKILL.md. Its methods are safe for
// concurrent use.
type LoadedSkill struct {
	sess *Session
	// Entry is the held entry: every read resolves against it.
	Entry mcp.Skill
	// Content is the SKILL.md, verified.
	Content []byte
	dir     string // the skill's directory URI

	mu   sync.Mutex
	read int64 // bytes read of a dynamic skill
}

// LoadSkill loads the skill of entry (from ListSkills, Skills or
// GetSkill): it validates the entry (mcp.Skill.Validate: the naming
// rules, a complete manifest within the limits), reads the skill's
// SKILL.md and nothing else, and verifies it: its size and digest against
// the entry's, then its frontmatter, field by field, against the entry's
// frontmatter. A mismatch is a *SkillVerificationError naming the file
// and what differs. Other files are read later, with ReadFile.
func (s *Session) LoadSkill(ctx context.Context, entry *mcp.Skill, opts *LoadSkillOptions) (*LoadedSkill, error) {
	if err := entry.Validate(); err != nil {
		return nil, fmt.Errorf("mcp client: the skill cannot be loaded: %w", err)
	}
	if entry.Dynamic && (opts == nil || !opts.AllowDynamic) {
		return nil, fmt.Errorf("%w: %s", ErrDynamicSkill, entry.URI)
	}
	dir, _, _ := mcp.SplitSkillURI(entry.URI)
	l := &LoadedSkill{sess: s, Entry: entry.Clone(), dir: dir}
	data, err := l.fetch(ctx, entry.URI)
	if err != nil {
		return nil, err
	}
	fm, err := mcp.ParseSkillFrontmatter(data)
	if err != nil {
		return nil, &SkillVerificationError{Skill: entry.URI, File: entry.URI, What: "frontmatter", Detail: strings.TrimPrefix(err.Error(), "mcp: ")}
	}
	if diff := fm.Differences(entry.Frontmatter); len(diff) > 0 {
		return nil, &SkillVerificationError{Skill: entry.URI, File: entry.URI, What: "frontmatter", Detail: describeDiff(fm, entry.Frontmatter, diff)}
	}
	l.Content = data
	return l, nil
}

// describeDiff says which frontmatter fields differ, quoting the first.
func describeDiff(file, entry mcp.SkillFrontmatter, diff []string) string {
	show := func(f mcp.SkillFrontmatter, k string) string {
		v, ok := f[k]
		if !ok {
			return "absent"
		}
		return clipText(string(v), 80)
	}
	k := diff[0]
	s := fmt.Sprintf("the field %q is %s in the file and %s in the entry", k, show(file, k), show(entry, k))
	if len(diff) > 1 {
		s += fmt.Sprintf(" (and %d more: %s)", len(diff)-1, strings.Join(diff[1:min(len(diff), 6)], ", "))
	}
	return s
}

// clipText bounds a value quoted in an error.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "..."
}

// ReadFile reads one of the skill's files, named by its path from the
// skill's root ("references/FORMS.md") or by its URI, and verifies it
// against the held entry. A file the entry does not list is not read: it
// is a *SkillVerificationError ("unlisted"), as the extension says. A
// dynamic skill has no manifest: a path or URI is read only if it passes
// mcp.ValidateSkillFilePath once escaped. A nested skill's SKILL.md read
// this way is plain content.
func (l *LoadedSkill) ReadFile(ctx context.Context, name string) ([]byte, error) {
	uri, err := l.resolve(name)
	if err != nil {
		return nil, err
	}
	return l.fetch(ctx, uri)
}

// resolve returns the URI of the listed file named by name.
func (l *LoadedSkill) resolve(name string) (string, error) {
	if strings.Contains(name, "://") {
		if _, ok := l.Entry.Resource(name); ok {
			return name, nil
		}
		if rel, ok := strings.CutPrefix(name, l.dir+"/"); ok && l.Entry.Dynamic {
			// No manifest: the URI must at least stay in the skill.
			if err := mcp.ValidateSkillFilePath(rel); err != nil {
				return "", fmt.Errorf("mcp client: %s is not a file of the skill: %w", clipText(name, 200), err)
			}
			return name, nil
		}
		return "", &SkillVerificationError{Skill: l.Entry.URI, File: name, What: "unlisted", Detail: "the held entry does not list the file"}
	}
	rel := path.Clean(strings.TrimPrefix(name, "/"))
	if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("mcp client: %q is not a path within the skill", name)
	}
	for _, r := range l.Entry.Resources {
		p, err := url.PathUnescape(strings.TrimPrefix(r.URI, l.dir+"/"))
		if err == nil && p == rel {
			return r.URI, nil
		}
	}
	if l.Entry.Dynamic {
		// No manifest: the URI must pass the checks a URI given whole
		// passes (an escaped backslash or NUL is refused there too).
		segs := strings.Split(rel, "/")
		for i, s := range segs {
			segs[i] = url.PathEscape(s)
		}
		escaped := strings.Join(segs, "/")
		if err := mcp.ValidateSkillFilePath(escaped); err != nil {
			return "", fmt.Errorf("mcp client: %q is not a file of the skill: %w", clipText(name, 200), err)
		}
		return l.dir + "/" + escaped, nil
	}
	return "", &SkillVerificationError{Skill: l.Entry.URI, File: l.dir + "/" + rel, What: "unlisted", Detail: "the held entry does not list the file"}
}

// fetch reads the file at uri and verifies it against its entry in the
// manifest (a dynamic skill's files only against the size bound).
func (l *LoadedSkill) fetch(ctx context.Context, uri string) ([]byte, error) {
	fail := func(what, format string, args ...any) error {
		return &SkillVerificationError{Skill: l.Entry.URI, File: uri, What: what, Detail: fmt.Sprintf(format, args...)}
	}
	res, err := l.sess.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, err
	}
	var data []byte
	found := 0
	for i := range res.Contents {
		c := &res.Contents[i]
		if c.URI != uri {
			continue
		}
		if found++; found > 1 {
			return nil, fail("content", "the server sent the file twice")
		}
		if data, err = c.Bytes(); err != nil {
			return nil, fail("content", "the server sent invalid base64")
		}
	}
	if found == 0 {
		return nil, fail("content", "the server sent no content for the file")
	}
	if l.Entry.Dynamic {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.read+int64(len(data)) > mcp.MaxSkillBytes {
			return nil, fail("size", "the dynamic skill's files exceed %d bytes", mcp.MaxSkillBytes)
		}
		l.read += int64(len(data))
		return data, nil
	}
	want, _ := l.Entry.Resource(uri)
	if int64(len(data)) != want.Size {
		return nil, fail("size", "%d bytes, the entry says %d", len(data), want.Size)
	}
	if got := mcp.SkillDigest(data); got != want.Digest {
		return nil, fail("digest", "%s, the entry says %s", got, want.Digest)
	}
	return data, nil
}
