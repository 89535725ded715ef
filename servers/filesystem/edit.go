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
	modified, err := applyEdits(content, args.Edits, c.opts.MaxWriteBytes)
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

// editWorkLimit bounds the work of the edits of one call, in bytes
// passed over: each edit passes over the whole file (to find oldText,
// and to replace it), and each comparison of a line of oldText with a
// line of the file counts lineCompareWork and the bytes it compares.
// The official server has no bound: there, many edits of a large file,
// or an oldText of thousands of lines against a file of as many similar
// ones, take minutes or hours.
const (
	editWorkLimit   = 2 << 30
	lineCompareWork = 128
)

// editBudget is what the edits of one call may still do: work, and the
// size of the edited text (maxBytes: even a dry run never builds a file
// larger than edit_file would write).
type editBudget struct {
	work     int64
	maxBytes int64
}

// spend takes n from the work left, or says that there is none.
func (b *editBudget) spend(n int64, index, count int) error {
	if b.work -= n; b.work < 0 {
		return errorf("The edits need too much work: edit %d of %d would take the call past %d bytes of text compared and copied (a large file, many edits, or an oldText of many lines against many similar lines). No edits were applied; give fewer edits, or an oldText that matches exactly.", index+1, count, int64(editWorkLimit))
	}
	return nil
}

// fits refuses an edited text that would be larger than maxBytes; more
// tells that size is only what was counted before the bound was passed.
func (b *editBudget) fits(size int64, more bool, index, count int) error {
	if size <= b.maxBytes {
		return nil
	}
	orMore := ""
	if more {
		orMore = " or more"
	}
	return errorf("Content too large: the edited file would have %d bytes%s, more than the limit of %d bytes that edit_file writes (edit %d of %d). No edits were applied.", size, orMore, b.maxBytes, index+1, count)
}

// applyEdits applies the edits in order, as the official server does:
// each replaces the first exact occurrence of its oldText or, failing
// that, the first run of whole lines equal to oldText's lines once
// trimmed (a final newline of oldText ends its last line and must be
// there in the file), newText then taking the file's indentation. The
// work and the size of the result are bounded (editBudget); maxBytes is
// the largest edited text.
func applyEdits(content string, edits []edit, maxBytes int64) (string, error) {
	b := &editBudget{work: editWorkLimit, maxBytes: maxBytes}
	for index, e := range edits {
		oldText := normalizeLineEndings(e.OldText)
		newText := normalizeLineEndings(e.NewText)
		if err := b.spend(int64(len(content))+int64(len(oldText))+int64(len(newText)), index, len(edits)); err != nil {
			return "", err
		}
		if strings.Contains(content, oldText) {
			if err := b.fits(int64(len(content)-len(oldText)+len(newText)), false, index, len(edits)); err != nil {
				return "", err
			}
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
		// Splitting the file, trimming its lines, finding its indentation
		// and joining it again pass over it three times more.
		if err := b.spend(3*int64(len(content)), index, len(edits)); err != nil {
			return "", err
		}
		found := false
		trimmed := make([]string, len(oldLines))
		for j, ol := range oldLines {
			trimmed[j] = jsTrim(ol)
		}
		// Each line of the file is trimmed once: trimming it at each
		// comparison made the work grow with the square of the lines'
		// length, past what the budget counted.
		fileTrimmed := make([]string, len(lines))
		for k, l := range lines {
			fileTrimmed[k] = jsTrim(l)
		}
		for i := 0; i <= lastStart; i++ {
			match := true
			for j := range oldLines {
				// Lines of equal length are compared byte by byte.
				work := int64(lineCompareWork)
				if len(trimmed[j]) == len(fileTrimmed[i+j]) {
					work += int64(len(trimmed[j]))
				}
				if err := b.spend(work, index, len(edits)); err != nil {
					return "", err
				}
				if trimmed[j] != fileTrimmed[i+j] {
					match = false
					break
				}
			}
			if !match {
				continue
			}
			editUnit := indentUnit(append(append([]string(nil), oldLines...), replLines...))
			fileUnit := indentUnit(lines)
			// The replacement lines take the file's indentation, which a
			// long indentation (or unit) and many lines could multiply:
			// each line's size is counted before it is made.
			size := int64(len(content))
			for _, l := range lines[i : i+len(oldLines)] {
				size -= int64(len(l)) + 1
			}
			newLines := make([]string, len(replLines))
			for j, l := range replLines {
				k := min(j, len(oldLines)-1)
				r := reindent(l, lines[i+k], oldLines[k], editUnit, fileUnit)
				if size += r.size() + 1; size > b.maxBytes {
					return "", b.fits(size, true, index, len(edits))
				}
				if err := b.spend(r.size(), index, len(edits)); err != nil {
					return "", err
				}
				newLines[j] = r.base + strings.Repeat(r.unit, r.n) + r.body
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

// reindented is a line as reindent makes it: base, unit n times,
// body; its size is known before it is made.
type reindented struct {
	base, unit string
	n          int
	body       string
}

func (r reindented) size() int64 {
	return int64(len(r.base)) + int64(len(r.unit))*int64(r.n) + int64(len(r.body))
}

// reindent gives a replacement line the indentation of the file line
// it replaces, shifted by its own indentation's difference from the
// oldText line that matched; in indent levels when the edit and the file
// indent with different characters (tabs and spaces).
// The line is returned in parts (reindented), to be measured before it
// is made.
func reindent(line, fileLine, oldLine, editUnit, fileUnit string) reindented {
	body := jsTrimStart(line)
	if body == "" {
		return reindented{base: line}
	}
	fileIndent := jsIndentRunes(fileLine)
	newIndent := jsIndentRunes(line)
	delta := len(newIndent) - len(jsIndentRunes(oldLine))
	switch {
	case editUnit != "" && fileUnit != "" && (editUnit == "\t") != (fileUnit == "\t"):
		levels := delta / len(editUnit) // truncated, as Math.trunc
		if levels >= 0 {
			return reindented{base: string(fileIndent), unit: fileUnit, n: levels, body: body}
		}
		return reindented{base: string(fileIndent[:max(0, len(fileIndent)+levels*len(fileUnit))]), body: body}
	case delta >= 0:
		return reindented{base: string(fileIndent) + string(newIndent[len(newIndent)-delta:]), body: body}
	}
	return reindented{base: string(fileIndent[:max(0, len(fileIndent)+delta)]), body: body}
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
