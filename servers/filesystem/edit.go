package filesystem

import (
	"context"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/servers/filesystem/internal/udiff"
)

type edit struct {
	OldText string `json:"oldText"`
	NewText string `json:"newText"`
}

type editArgs struct {
	Path   string `json:"path"`
	Edits  []edit `json:"edits"`
	DryRun bool   `json:"dryRun"`
}

// editFile applies the edits as the official server does (2.3.0): the
// file is read with its line endings made LF, edited, shown as a diff,
// and written back with the line ending it mostly had (CRLF or LF).
// Resolved for writing even for a dry run, as in the official server: a
// file in a read-only directory is refused.
func (c *call) editFile(ctx context.Context, args *editArgs) (string, error) {
	t, err := c.resolve(args.Path, forWrite)
	if err != nil {
		return "", err
	}
	defer t.close()
	b, err := c.readAll(t, c.opts.MaxReadBytes)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(b) {
		return "", errorf("Cannot edit %s: it is not UTF-8 text (editing would replace its invalid bytes)", t.path())
	}
	raw := string(b)
	crlf := crlfMostly(raw)
	content := normalizeLineEndings(raw)
	modified, err := applyEdits(content, args.Edits)
	if err != nil {
		return "", err
	}
	diff := udiff.TwoFiles(t.path(), t.path(), content, modified, "original", "modified")
	if crlf {
		modified = strings.ReplaceAll(modified, "\n", "\r\n")
	}
	ticks := 3
	for strings.Contains(diff, strings.Repeat("`", ticks)) {
		ticks++
	}
	fence := strings.Repeat("`", ticks)
	if !args.DryRun {
		if int64(len(modified)) > c.opts.MaxWriteBytes {
			return "", errorf("Content too large: the edited file would have %d bytes, more than the limit of %d bytes that edit_file writes", len(modified), c.opts.MaxWriteBytes)
		}
		if err := c.write(t, []byte(modified), false); err != nil {
			return "", err
		}
	}
	return fence + "diff\n" + diff + fence + "\n\n", nil
}

func normalizeLineEndings(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// crlfMostly reports whether more of the line breaks of s are CRLF than
// bare LF: the file is then written back with CRLF.
func crlfMostly(s string) bool {
	crlf := strings.Count(s, "\r\n")
	return crlf > strings.Count(s, "\n")-crlf
}

// applyEdits applies the edits in order, as the official server does:
// each replaces the first exact occurrence of its oldText or, failing
// that, the first run of whole lines equal to oldText's lines once
// trimmed (a final newline of oldText ends its last line and must be
// there in the file), newText then taking the file's indentation.
func applyEdits(content string, edits []edit) (string, error) {
	for index, e := range edits {
		oldText := normalizeLineEndings(e.OldText)
		newText := normalizeLineEndings(e.NewText)
		if strings.Contains(content, oldText) {
			content = strings.Replace(content, oldText, newText, 1)
			continue
		}
		oldEndsLine := strings.HasSuffix(oldText, "\n")
		newEndsLine := strings.HasSuffix(newText, "\n")
		oldLines := strings.Split(strings.TrimSuffix(oldText, "\n"), "\n")
		repl := newText
		if oldEndsLine && newEndsLine {
			repl = strings.TrimSuffix(newText, "\n")
		}
		replLines := strings.Split(repl, "\n")
		lines := strings.Split(content, "\n")
		lastStart := len(lines) - len(oldLines)
		if oldEndsLine {
			lastStart--
		}
		found := false
		for i := 0; i <= lastStart; i++ {
			match := true
			for j, ol := range oldLines {
				if jsTrim(ol) != jsTrim(lines[i+j]) {
					match = false
					break
				}
			}
			if !match {
				continue
			}
			editUnit := indentUnit(append(append([]string(nil), oldLines...), replLines...))
			fileUnit := indentUnit(lines)
			newLines := make([]string, len(replLines))
			for j, l := range replLines {
				k := min(j, len(oldLines)-1)
				newLines[j] = reindentLine(l, lines[i+k], oldLines[k], editUnit, fileUnit)
			}
			cut := len(oldLines)
			if oldEndsLine && !newEndsLine {
				// oldText took the newline after the lines; newText puts none
				// back, so its last line runs into the line that followed.
				newLines[len(newLines)-1] += lines[i+len(oldLines)]
				cut++
			}
			lines = append(lines[:i], append(newLines, lines[i+cut:]...)...)
			content = strings.Join(lines, "\n")
			found = true
			break
		}
		if !found {
			return "", toolError(describeMismatch(content, e.OldText, index, len(edits)))
		}
	}
	return content, nil
}

// jsIndentRunes is the leading white space of s, as runes: JavaScript's
// white space is all in the BMP, one UTF-16 unit per rune, so rune
// counts are JavaScript's lengths.
func jsIndentRunes(s string) []rune { return []rune(jsIndent(s)) }

// indentUnit is the indentation unit of some lines: a tab when an
// indented line starts with one, else the narrowest run of leading
// spaces, "" when no line is indented.
func indentUnit(lines []string) string {
	narrowest := math.MaxInt
	for _, l := range lines {
		ind := jsIndentRunes(l)
		if len(ind) == 0 || jsTrim(l) == "" {
			continue
		}
		if strings.ContainsRune(string(ind), '\t') {
			return "\t"
		}
		narrowest = min(narrowest, len(ind))
	}
	if narrowest == math.MaxInt {
		return ""
	}
	return strings.Repeat(" ", narrowest)
}

// reindentLine gives a replacement line the indentation of the file line
// it replaces, shifted by its own indentation's difference from the
// oldText line that matched; in indent levels when the edit and the file
// indent with different characters (tabs and spaces).
func reindentLine(line, fileLine, oldLine, editUnit, fileUnit string) string {
	body := jsTrimStart(line)
	if body == "" {
		return line
	}
	fileIndent := jsIndentRunes(fileLine)
	newIndent := jsIndentRunes(line)
	delta := len(newIndent) - len(jsIndentRunes(oldLine))
	var indent string
	switch {
	case editUnit != "" && fileUnit != "" && (editUnit == "\t") != (fileUnit == "\t"):
		levels := delta / len(editUnit) // truncated, as Math.trunc
		if levels >= 0 {
			indent = string(fileIndent) + strings.Repeat(fileUnit, levels)
		} else {
			indent = string(fileIndent[:max(0, len(fileIndent)+levels*len(fileUnit))])
		}
	case delta >= 0:
		indent = string(fileIndent) + string(newIndent[len(newIndent)-delta:])
	default:
		indent = string(fileIndent[:max(0, len(fileIndent)+delta)])
	}
	return indent + body
}

// What the no-match error shows, as the official server shows it.
const (
	mismatchWorkLimit    = 10_000_000
	mismatchContext      = 2
	mismatchMaxRegion    = 30
	mismatchMaxLineUnits = 500
)

// grams are a line's bigrams of UTF-16 units, white space removed.
type grams struct {
	counts map[uint64]int
	size   int
}

func lineGrams(line string) grams {
	var units []uint16
	for _, r := range line {
		if !isJSSpace(r) {
			units = utf16.AppendRune(units, r)
		}
	}
	g := grams{counts: map[uint64]int{}}
	if len(units) == 1 {
		g.counts[1<<32|uint64(units[0])]++
	}
	for i := 0; i+1 < len(units); i++ {
		g.counts[uint64(units[i])<<16|uint64(units[i+1])]++
	}
	for _, n := range g.counts {
		g.size += n
	}
	return g
}

// similarity is the Dice similarity of two lines' bigrams.
func similarity(a, b grams) float64 {
	if a.size+b.size == 0 {
		return 1
	}
	shared := 0
	for k, n := range a.counts {
		shared += min(n, b.counts[k])
	}
	return float64(2*shared) / float64(a.size+b.size)
}

// describeMismatch is the official server's error for an edit whose
// oldText matched nowhere in content (the file as the earlier edits left
// it): what the matcher tolerates, and the run of file lines most like
// oldText, numbered, with the first line that differs.
func describeMismatch(content, oldText string, index, count int) string {
	oldLines := strings.Split(normalizeLineEndings(oldText), "\n")
	fileLines := strings.Split(content, "\n")
	lineCount := len(fileLines)
	switch {
	case strings.HasSuffix(content, "\n"):
		lineCount--
	case content == "":
		lineCount = 0
	}
	parts := []string{
		"Could not find exact match for edit " + strconv.Itoa(index+1) + " of " + strconv.Itoa(count) + ". " +
			"oldText must match the file's text exactly; only line endings, and leading and trailing whitespace on whole lines, may differ. No edits were applied.",
		"oldText:\n" + oldText,
	}
	done := func(last string) string { return strings.Join(append(parts, last), "\n\n") }
	if lineCount == 0 {
		return done("The file is empty.")
	}
	oldGrams := make([]grams, len(oldLines))
	work := 0
	for i, l := range oldLines {
		oldGrams[i] = lineGrams(l)
		work += len(oldGrams[i].counts) + 1
	}
	if float64(len(fileLines))*float64(work) > mismatchWorkLimit {
		return done("The file has " + strconv.Itoa(lineCount) + " lines, too many to search for the closest text to this oldText. Read the file and copy oldText from it exactly.")
	}
	fileGrams := make([]grams, len(fileLines))
	for i, l := range fileLines {
		fileGrams[i] = lineGrams(l)
	}
	best, bestScore := 0, 0.0
	for i := range lineCount {
		score := 0.0
		for j := range min(len(oldLines), len(fileLines)-i) {
			score += similarity(oldGrams[j], fileGrams[i+j])
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	if bestScore == 0 {
		return done("No line of the file resembles oldText. Read the file and copy oldText from it exactly.")
	}
	start := min(max(0, best-mismatchContext), lineCount-1)
	end := min(lineCount, best+len(oldLines)+mismatchContext, start+mismatchMaxRegion)
	clipped := false
	clip := func(line string) string {
		n := utf16Len(line)
		if n <= mismatchMaxLineUnits {
			return line
		}
		clipped = true
		return utf16Prefix(line, mismatchMaxLineUnits) + " [... cut: the line has " + strconv.Itoa(n) + " characters]"
	}
	var numbered []string
	for k, l := range fileLines[start:end] {
		numbered = append(numbered, strconv.Itoa(start+k+1)+": "+clip(l))
	}
	after := ""
	if index > 0 {
		after = ", after the earlier edits in this call"
	}
	parts = append(parts, "Closest text in the file (lines "+strconv.Itoa(start+1)+"-"+strconv.Itoa(end)+" of "+
		strconv.Itoa(lineCount)+after+"):\n"+strings.Join(numbered, "\n"))
	differs := 0
	for j, l := range oldLines {
		if best+j >= lineCount || jsTrim(l) != jsTrim(fileLines[best+j]) {
			differs = j
			break
		}
	}
	quote := func(s string) string { return string(appendJSONString(nil, s)) }
	if best+differs >= lineCount {
		parts = append(parts, "oldText line "+strconv.Itoa(differs+1)+" ("+quote(clip(oldLines[differs]))+") runs past the end of the file, which ends at line "+strconv.Itoa(lineCount)+".")
	} else {
		parts = append(parts, "First difference, oldText line "+strconv.Itoa(differs+1)+" against file line "+strconv.Itoa(best+differs+1)+":\n"+
			"  oldText: "+quote(clip(oldLines[differs]))+"\n"+
			"  file:    "+quote(clip(fileLines[best+differs])))
	}
	if clipped {
		return done("Some lines above were cut. Read the file to copy oldText from it exactly.")
	}
	return done("Retry with oldText copied exactly from the file, without the line-number prefixes.")
}

// utf16Prefix is the longest prefix of s of at most n UTF-16 units that
// ends between two runes.
func utf16Prefix(s string, n int) string {
	units := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if units+w > n {
			return s[:i]
		}
		units += w
	}
	return s
}
