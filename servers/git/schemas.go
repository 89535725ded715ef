package git

import "strconv"

// The tools' input schemas, written out so that each property says what
// it means, its default and its bounds. The property names are the
// official server's; repo_path may be left out, and names the served
// repository when given. A numeric argument states its minimum and its
// maximum (the repository's limit), so that the server refuses any other
// number before the tool runs, naming the argument and the bound.

const repoPathProp = `"repo_path":{"type":"string","description":"Path to the Git repository: the served repository's top directory (the default when left out)"}`

const (
	schemaRepoOnly = `{"type":"object","properties":{` + repoPathProp + `},"additionalProperties":false}`

	schemaCommit = `{"type":"object","properties":{` + repoPathProp + `,` +
		`"message":{"type":"string","minLength":1,"description":"Commit message"}},"required":["message"],"additionalProperties":false}`

	schemaAdd = `{"type":"object","properties":{` + repoPathProp + `,` +
		`"files":{"type":"array","minItems":1,"items":{"type":"string","minLength":1},"description":"Paths to stage, relative to the repository's top directory (or absolute inside it); \".\" stages everything. Paths are literal: no glob patterns"}},"required":["files"],"additionalProperties":false}`

	timestampDoc = `Accepts: ISO 8601 format (e.g., '2024-01-15T14:30:25'), relative dates (e.g., '2 weeks ago', 'yesterday'), or absolute dates (e.g., '2024-01-15', 'Jan 15 2024')`

	schemaLogOutput = `{"type":"object","properties":{"commits":{"type":"array","items":{"type":"object","properties":{` +
		`"hash":{"type":"string"},"author":{"type":"string"},"email":{"type":"string"},` +
		`"date":{"type":"string","description":"author date, ISO 8601"},"message":{"type":"string"}},` +
		`"required":["hash","author","email","date","message"]}}},"required":["commits"]}`

	schemaCreateBranch = `{"type":"object","properties":{` + repoPathProp + `,` +
		`"branch_name":{"type":"string","minLength":1,"description":"Name of the new branch"},` +
		`"base_branch":{"type":["string","null"],"description":"Branch or tag to start from (defaults to the current branch)"}},"required":["branch_name"],"additionalProperties":false}`

	schemaCheckout = `{"type":"object","properties":{` + repoPathProp + `,` +
		`"branch_name":{"type":"string","minLength":1,"description":"Name of the branch (or commit) to check out"}},"required":["branch_name"],"additionalProperties":false}`

	schemaShow = `{"type":"object","properties":{` + repoPathProp + `,` +
		`"revision":{"type":"string","minLength":1,"description":"The revision (commit hash, branch name, tag) to show"}},"required":["revision"],"additionalProperties":false}`

	schemaBranch = `{"type":"object","properties":{` + repoPathProp + `,` +
		`"branch_type":{"type":"string","enum":["local","remote","all"],"default":"local","description":"Whether to list local branches ('local'), remote branches ('remote') or all branches ('all')"},` +
		`"contains":{"type":["string","null"],"description":"The commit sha that branch should contain. Do not pass anything to this param if no commit sha is specified"},` +
		`"not_contains":{"type":["string","null"],"description":"The commit sha that branch should NOT contain. Do not pass anything to this param if no commit sha is specified"}},"additionalProperties":false}`
)

// contextProp is context_lines, from 0 to the repository's limit.
func contextProp(limit int) string {
	return `"context_lines":{"type":["integer","null"],"minimum":0,"maximum":` + strconv.Itoa(limit) +
		`,"default":3,"description":"Number of context lines to show around each change (default 3, at most ` + strconv.Itoa(limit) + `)"}`
}

func schemaDiff(contextLimit int) string {
	return `{"type":"object","properties":{` + repoPathProp + `,` + contextProp(contextLimit) + `},"additionalProperties":false}`
}

func schemaDiffTarget(contextLimit int) string {
	return `{"type":"object","properties":{` + repoPathProp + `,` +
		`"target":{"type":"string","minLength":1,"description":"Branch, tag or commit to compare the working tree with"},` +
		contextProp(contextLimit) + `},"required":["target"],"additionalProperties":false}`
}

// schemaLog bounds max_count by the repository's limit.
func schemaLog(countLimit int) string {
	return `{"type":"object","properties":{` + repoPathProp + `,` +
		`"max_count":{"type":["integer","null"],"minimum":1,"maximum":` + strconv.Itoa(countLimit) +
		`,"default":10,"description":"Maximum number of commits to show (default 10, at most ` + strconv.Itoa(countLimit) + `)"},` +
		`"start_timestamp":{"type":["string","null"],"description":"Start timestamp for filtering commits. ` + timestampDoc + `"},` +
		`"end_timestamp":{"type":["string","null"],"description":"End timestamp for filtering commits. ` + timestampDoc + `"}},"additionalProperties":false}`
}

// The schemas of the tools beyond the official twelve.
const (
	remoteProp = `"remote":{"type":"string","minLength":1,"default":"origin","description":"The name of one of the repository's remotes (default origin); never a URL"}`

	schemaFetch = `{"type":"object","properties":{` + repoPathProp + `,` + remoteProp + `},"additionalProperties":false}`

	schemaPull = `{"type":"object","properties":{` + repoPathProp + `,` + remoteProp + `,` +
		`"branch":{"type":"string","minLength":1,"description":"The remote's branch to fast-forward to (default: the current branch's upstream on that remote)"}},"additionalProperties":false}`

	schemaPush = `{"type":"object","properties":{` + repoPathProp + `,` + remoteProp + `,` +
		`"branch":{"type":"string","minLength":1,"description":"The local branch to push to the branch of the same name on the remote (default: the current branch). Never forced"}},"additionalProperties":false}`

	schemaTag = `{"type":"object","properties":{` + repoPathProp + `,` +
		`"action":{"type":"string","enum":["list","create"],"description":"list the tags, or create one"},` +
		`"name":{"type":"string","minLength":1,"description":"The tag to create"},` +
		`"target":{"type":"string","minLength":1,"description":"The commit (or other object) to tag (default HEAD)"},` +
		`"message":{"type":"string","minLength":1,"description":"With a message, the tag is annotated"}},"required":["action"],"additionalProperties":false}`

	schemaMerge = `{"type":"object","properties":{` + repoPathProp + `,` +
		`"branch":{"type":"string","minLength":1,"description":"The local branch to merge into the current one"},` +
		`"allow_merge_commit":{"type":"boolean","default":false,"description":"Record a merge commit when the current branch cannot be fast-forwarded (default: refuse)"},` +
		`"message":{"type":"string","minLength":1,"description":"The merge commit's message (with allow_merge_commit)"}},"required":["branch"],"additionalProperties":false}`
)

// schemaStash bounds pop's index by the repository's limit.
func schemaStash(maxIndex int) string {
	return `{"type":"object","properties":{` + repoPathProp + `,` +
		`"action":{"type":"string","enum":["list","show","push","pop"],"description":"list the stash, show an entry's changes, push the working tree's changes onto it, or pop an entry back"},` +
		`"message":{"type":"string","minLength":1,"description":"push: the entry's message"},` +
		`"include_untracked":{"type":"boolean","default":false,"description":"push: stash untracked files too"},` +
		`"index":{"type":"integer","minimum":0,"maximum":` + strconv.Itoa(maxIndex) + `,"default":0,"description":"show, pop: which entry (0, the latest, by default; at most ` + strconv.Itoa(maxIndex) + `)"}},"required":["action"],"additionalProperties":false}`
}
