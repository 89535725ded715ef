package check

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// The checks of the Skills extension (SEP-2640, specification/stable/
// skills.mdx of modelcontextprotocol/ext-skills), for a server that
// declares it: the capability, skills/list and its entries, skills/get,
// a few files read back against their entries as a host verifies them,
// and resources/directory/read when declared.

// areaSkills is the area of the report.
const areaSkills = "Skills (extension)"

var (
	chkSkillsCapability = &Check{"skills.capability", areaSkills,
		"the extension's settings are an object, directoryRead inline, and the resources capability is declared",
		"SEP-2640 Capability Negotiation"}
	chkSkillsList = &Check{"skills.list", areaSkills,
		"skills/list pages whole entries: a skill URI ending in its frontmatter's name, Agent Skills frontmatter, a complete manifest of sha256 digests and sizes (512 files, 16 MiB)",
		"SEP-2640 Listing Skills, Skill Entries, Limits"}
	chkSkillsGet = &Check{"skills.get", areaSkills,
		"skills/get returns a listed skill's entry, without a cursor, and -32602 for a skill not served",
		"SEP-2640 Getting a Skill, Error Handling"}
	chkSkillsFiles = &Check{"skills.files", areaSkills,
		"files read back with their listed size and digest, and each SKILL.md's frontmatter is its entry's",
		"SEP-2640 Integrity and Verification, Frontmatter"}
	chkSkillsDirectory = &Check{"skills.directory-read", areaSkills,
		"resources/directory/read lists a skill's root and refuses a file with -32602",
		"SEP-2640 Reading Directories"}
)

func init() {
	areas = append(areas, areaSkills)
	Catalogue = append(Catalogue, chkSkillsCapability, chkSkillsList, chkSkillsGet, chkSkillsFiles, chkSkillsDirectory)
}

// skillChecks runs the checks of the extension.
func (c *checker) skillChecks(ctx context.Context, p *peer) {
	settings, _ := p.caps.Skills()
	c.checkSkillsCapability(p)
	skills := c.checkSkillsList(ctx, p)
	if p.broken != nil {
		return
	}
	c.checkSkillsGet(ctx, p, skills)
	c.checkSkillsFiles(ctx, p, skills)
	c.checkSkillsDirectory(ctx, p, settings.DirectoryRead, skills)
}

func (c *checker) checkSkillsCapability(p *peer) {
	c.begin()
	raw := p.caps.Extensions[mcp.ExtensionSkills]
	var settings map[string]json.RawMessage
	var problems []string
	if err := json.Unmarshal(raw, &settings); err != nil || settings == nil {
		problems = append(problems, fmt.Sprintf("the settings are %s, not an object ({} declares the extension without options)", clip(string(raw), 60)))
	}
	for _, k := range []string{"config", "specVersion", "stability", "id"} {
		if _, ok := settings[k]; ok {
			problems = append(problems, fmt.Sprintf("the settings hold %q: they sit inline under the identifier, without an envelope", k))
		}
	}
	if d, ok := settings["directoryRead"]; ok && string(d) != "true" && string(d) != "false" {
		problems = append(problems, "directoryRead is not a boolean")
	}
	if p.caps.Resources == nil {
		problems = append(problems, "the resources capability is not declared, which skill files are read through")
	}
	if len(problems) > 0 {
		c.add(chkSkillsCapability, p.era(), Fail, lines(problems))
		return
	}
	c.add(chkSkillsCapability, p.era(), Pass, "")
}

// checkSkillsList lists the skills and checks every entry; it returns the
// valid ones.
func (c *checker) checkSkillsList(ctx context.Context, p *peer) []mcp.Skill {
	c.begin()
	l, err := c.list(ctx, p, mcp.MethodListSkills, "skills")
	if err != nil {
		c.addf(chkSkillsList, p.era(), Fail, "skills/list: %v", err)
		return nil
	}
	var problems, warnings []string
	if l.problem != "" {
		problems = append(problems, l.problem)
	}
	if p.modern && l.pages > 0 && (!hasMember(l.firstRaw, "ttlMs") || !hasMember(l.firstRaw, "cacheScope")) {
		problems = append(problems, "the result lacks ttlMs or cacheScope, which 2026-07-28 requires of a cacheable result")
	}
	var valid []mcp.Skill
	uris, names := map[string]bool{}, map[string]int{}
	for i, raw := range l.items {
		var sk mcp.Skill
		if err := json.Unmarshal(raw, &sk); err != nil {
			problems = append(problems, fmt.Sprintf("entry %d does not decode: %s", i, trimMCP(err)))
			continue
		}
		if uris[sk.URI] {
			problems = append(problems, fmt.Sprintf("%s is listed twice (an entry is never split across pages)", sk.URI))
			continue
		}
		uris[sk.URI] = true
		if err := sk.Validate(); err != nil {
			problems = append(problems, trimMCP(err))
			continue
		}
		if err := sk.Frontmatter.Check(); err != nil {
			problems = append(problems, sk.URI+": "+trimMCP(err))
			continue
		}
		if sk.Dynamic {
			warnings = append(warnings, sk.URI+": resources is \"dynamic\": its files have no digests, and hosts may decline it")
		}
		if !strings.HasPrefix(sk.URI, mcp.SkillScheme+"://") {
			warnings = append(warnings, sk.URI+": not under the skill:// scheme, which servers should use")
		}
		if names[sk.Frontmatter.Name()]++; names[sk.Frontmatter.Name()] == 2 {
			warnings = append(warnings, fmt.Sprintf("the name %q is listed more than once: names should be unique within a listing", sk.Frontmatter.Name()))
		}
		valid = append(valid, sk)
	}
	switch {
	case len(problems) > 0:
		c.add(chkSkillsList, p.era(), Fail, lines(append(problems, warnings...)))
	case len(warnings) > 0:
		c.add(chkSkillsList, p.era(), Warn, lines(warnings))
	default:
		c.addf(chkSkillsList, p.era(), Pass, "%d skills on %d page(s)", len(valid), l.pages)
	}
	return valid
}

// trimMCP returns an error's text without the package prefix.
func trimMCP(err error) string { return strings.TrimPrefix(err.Error(), "mcp: ") }

func (c *checker) checkSkillsGet(ctx context.Context, p *peer, skills []mcp.Skill) {
	c.begin()
	var problems []string
	if len(skills) > 0 {
		uri := skills[0].URI
		r, err := p.call(ctx, mcp.MethodGetSkill, map[string]any{"uri": uri})
		switch {
		case err != nil:
			c.addf(chkSkillsGet, p.era(), Fail, "%v", orEnded(err, p.w))
			return
		case r.resp == nil:
			problems = append(problems, "skills/get of "+uri+" went unanswered")
		case r.resp.Error != nil:
			problems = append(problems, "skills/get of "+uri+": "+describeError(r.resp.Error))
		default:
			var res struct {
				Skill mcp.Skill `json:"skill"`
			}
			if err := json.Unmarshal(r.resp.Result, &res); err != nil {
				problems = append(problems, "the result does not decode: "+trimMCP(err))
			} else if res.Skill.URI != uri {
				problems = append(problems, fmt.Sprintf("skills/get of %s returned the entry of %s", uri, res.Skill.URI))
			} else if err := res.Skill.Validate(); err != nil {
				problems = append(problems, trimMCP(err))
			}
			if hasMember(r.resp.Result, "nextCursor") {
				problems = append(problems, "the result has a nextCursor: a single entry is not a list")
			}
			if p.modern && (!hasMember(r.resp.Result, "ttlMs") || !hasMember(r.resp.Result, "cacheScope")) {
				problems = append(problems, "the result lacks ttlMs or cacheScope, which 2026-07-28 requires of a cacheable result")
			}
		}
	}
	const unknown = "skill://mcpwire-check-no-such-skill/SKILL.md"
	r, err := p.call(ctx, mcp.MethodGetSkill, map[string]any{"uri": unknown})
	code, isErr := codeOf(r)
	switch {
	case err != nil:
		c.addf(chkSkillsGet, p.era(), Fail, "%v", orEnded(err, p.w))
		return
	case r.resp == nil:
		problems = append(problems, "skills/get of a skill not served went unanswered")
	case !isErr:
		problems = append(problems, "skills/get of "+unknown+" was answered with a result")
	case code != jsonrpc.CodeInvalidParams:
		problems = append(problems, fmt.Sprintf("skills/get of a skill not served: %s; want -32602", describeError(r.resp.Error)))
	}
	if len(problems) > 0 {
		c.add(chkSkillsGet, p.era(), Fail, lines(problems))
		return
	}
	c.add(chkSkillsGet, p.era(), Pass, "")
}

// checkSkillsFiles reads a few files, as a host that loads skills would:
// the SKILL.md of the first skills, then the first skill's other files.
func (c *checker) checkSkillsFiles(ctx context.Context, p *peer, skills []mcp.Skill) {
	c.begin()
	type file struct {
		skill *mcp.Skill
		res   mcp.SkillResource
	}
	var files []file
	for i := range skills {
		if r, ok := skills[i].Resource(skills[i].URI); ok && len(files) < maxReads {
			files = append(files, file{&skills[i], r})
		}
	}
	if len(skills) > 0 {
		for _, r := range skills[0].Resources {
			if r.URI != skills[0].URI && len(files) < 2*maxReads {
				files = append(files, file{&skills[0], r})
			}
		}
	}
	if len(files) == 0 {
		c.add(chkSkillsFiles, p.era(), Skip, "no skill with a manifest is listed")
		return
	}
	var problems []string
	for _, f := range files {
		r, err := p.call(ctx, mcp.MethodReadResource, map[string]any{"uri": f.res.URI})
		if err != nil {
			c.addf(chkSkillsFiles, p.era(), Fail, "%v", orEnded(err, p.w))
			return
		}
		data, why := fileBytes(r, f.res.URI)
		switch {
		case why != "":
			problems = append(problems, f.res.URI+": "+why)
		case int64(len(data)) != f.res.Size:
			problems = append(problems, fmt.Sprintf("%s: %d bytes, the entry says %d", f.res.URI, len(data), f.res.Size))
		case mcp.SkillDigest(data) != f.res.Digest:
			problems = append(problems, fmt.Sprintf("%s: its digest is %s, the entry says %s", f.res.URI, mcp.SkillDigest(data), f.res.Digest))
		case f.res.URI == f.skill.URI:
			fm, err := mcp.ParseSkillFrontmatter(data)
			if err != nil {
				problems = append(problems, f.res.URI+": "+trimMCP(err))
			} else if diff := fm.Differences(f.skill.Frontmatter); len(diff) > 0 {
				problems = append(problems, fmt.Sprintf("%s: the frontmatter differs from the entry's in %s", f.res.URI, joinAnd(diff)))
			}
		}
	}
	if len(problems) > 0 {
		c.add(chkSkillsFiles, p.era(), Fail, lines(problems))
		return
	}
	c.addf(chkSkillsFiles, p.era(), Pass, "%d files verified", len(files))
}

// fileBytes returns the bytes of the contents at uri of a resources/read
// reply, or why there are none.
func fileBytes(r *reply, uri string) ([]byte, string) {
	switch {
	case r.resp == nil:
		return nil, "resources/read went unanswered"
	case r.resp.Error != nil:
		return nil, "resources/read: " + describeError(r.resp.Error)
	}
	var res mcp.ReadResourceResult
	if err := json.Unmarshal(r.resp.Result, &res); err != nil {
		return nil, "the result does not decode: " + err.Error()
	}
	for _, ct := range res.Contents {
		if ct.URI == uri {
			data, err := ct.Bytes()
			if err != nil {
				return nil, "invalid base64"
			}
			return data, ""
		}
	}
	return nil, "no contents for the file"
}

func (c *checker) checkSkillsDirectory(ctx context.Context, p *peer, declared bool, skills []mcp.Skill) {
	c.begin()
	switch {
	case !declared:
		c.add(chkSkillsDirectory, p.era(), Skip, "directoryRead is not declared")
		return
	case len(skills) == 0:
		c.add(chkSkillsDirectory, p.era(), Skip, "no skill is listed")
		return
	}
	dir, _, _ := mcp.SplitSkillURI(skills[0].URI)
	var problems []string
	n, cursor := 0, ""
	for pages := 0; pages < DefaultMaxPages; pages++ {
		params := map[string]any{"uri": dir}
		if cursor != "" {
			params["cursor"] = cursor
		}
		r, err := p.call(ctx, mcp.MethodReadDirectory, params)
		if err != nil {
			c.addf(chkSkillsDirectory, p.era(), Fail, "%v", orEnded(err, p.w))
			return
		}
		if r.resp == nil || r.resp.Error != nil {
			why := "unanswered"
			if r.resp != nil {
				why = describeError(r.resp.Error)
			}
			problems = append(problems, fmt.Sprintf("resources/directory/read of the skill's root %s: %s", dir, why))
			break
		}
		var res mcp.ReadDirectoryResult
		if err := json.Unmarshal(r.resp.Result, &res); err != nil || res.Resources == nil {
			problems = append(problems, "the result has no resources array")
			break
		}
		for _, child := range res.Resources {
			if parent, _, ok := cutLast(child.URI); !ok || parent != dir {
				problems = append(problems, fmt.Sprintf("%s is not a direct child of %s", child.URI, dir))
			}
		}
		n += len(res.Resources)
		if cursor = string(res.NextCursor); cursor == "" {
			break
		}
	}
	r, err := p.call(ctx, mcp.MethodReadDirectory, map[string]any{"uri": skills[0].URI})
	code, isErr := codeOf(r)
	switch {
	case err != nil:
		c.addf(chkSkillsDirectory, p.era(), Fail, "%v", orEnded(err, p.w))
		return
	case !isErr || code != jsonrpc.CodeInvalidParams:
		problems = append(problems, "resources/directory/read of a file (the SKILL.md) is not refused with -32602")
	}
	if len(problems) > 0 {
		c.add(chkSkillsDirectory, p.era(), Fail, lines(problems))
		return
	}
	c.addf(chkSkillsDirectory, p.era(), Pass, "%d children in %s", n, dir)
}

// cutLast splits a URI at its last slash.
func cutLast(uri string) (parent, last string, ok bool) {
	i := strings.LastIndexByte(uri, '/')
	if i < 0 {
		return "", "", false
	}
	return uri[:i], uri[i+1:], true
}
