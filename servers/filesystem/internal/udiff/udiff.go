// Package udiff writes unified diffs of two texts, line by line, with the
// same output as createTwoFilesPatch of the npm package diff (jsdiff 8),
// which the official filesystem server's edit_file returns: the same edit
// script (jsdiff's variant of Myers's O(ND) algorithm, with its choice
// among equally short scripts), four lines of context, the same headers,
// hunk ranges and "\ No newline at end of file" markers.
//
// One deliberate difference: the search for the shortest edit script is
// bounded (DefaultMaxCost). Past the bound, which only texts with many
// thousands of changed lines reach, the diff removes every old line and
// adds every new one instead of running for minutes.
package udiff

import (
	"strconv"
	"strings"
)

// DefaultContext is the number of unchanged lines shown around a change.
const DefaultContext = 4

// DefaultMaxCost bounds the work spent looking for the shortest edit
// script, in steps of the search (one step per diagonal per edit length,
// plus one per line of a common run).
const DefaultMaxCost = 50_000_000

// TwoFiles returns the unified diff that turns oldText into newText.
func TwoFiles(oldName, newName, oldText, newText, oldHeader, newHeader string) string {
	return format(oldName, newName, oldHeader, newHeader, hunks(diffLines(tokenize(oldText), tokenize(newText), DefaultMaxCost), DefaultContext))
}

// tokenize splits text after each newline; the last line may lack one.
func tokenize(s string) []string {
	var out []string
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return append(out, s)
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// A component is a run of lines that are common, added or removed. The
// search shares components between paths, so they are never changed once
// made.
type component struct {
	count          int
	added, removed bool
	prev           *component
}

// A path is the furthest point reached on one diagonal of the edit graph.
type path struct {
	oldPos int
	last   *component
}

// A change is a run of lines of the edit script.
type change struct {
	lines          []string
	added, removed bool
}

func addToPath(p *path, added, removed bool, oldInc int) *path {
	if l := p.last; l != nil && l.added == added && l.removed == removed {
		return &path{oldPos: p.oldPos + oldInc, last: &component{count: l.count + 1, added: added, removed: removed, prev: l.prev}}
	}
	return &path{oldPos: p.oldPos + oldInc, last: &component{count: 1, added: added, removed: removed, prev: p.last}}
}

// extractCommon follows the diagonal while the lines agree and returns the
// new position.
func extractCommon(p *path, newT, oldT []string, diagonal int, cost *int) int {
	oldPos := p.oldPos
	newPos := oldPos - diagonal
	n := 0
	for newPos+1 < len(newT) && oldPos+1 < len(oldT) && oldT[oldPos+1] == newT[newPos+1] {
		newPos++
		oldPos++
		n++
	}
	*cost += n
	if n > 0 {
		p.last = &component{count: n, prev: p.last}
	}
	p.oldPos = oldPos
	return newPos
}

// diffLines returns the edit script from oldT to newT.
func diffLines(oldT, newT []string, maxCost int) []change {
	oldLen, newLen := len(oldT), len(newT)
	maxEdit := oldLen + newLen
	off := maxEdit + 1
	best := make([]*path, 2*maxEdit+3)
	best[off] = &path{oldPos: -1}
	cost := 0
	newPos := extractCommon(best[off], newT, oldT, 0, &cost)
	if best[off].oldPos+1 >= oldLen && newPos+1 >= newLen {
		return build(best[off].last, oldT, newT)
	}
	minDiag, maxDiag := -maxEdit-1, maxEdit+1
	for edit := 1; edit <= maxEdit; edit++ {
		for d := max(minDiag, -edit); d <= min(maxDiag, edit); d += 2 {
			cost++
			if cost > maxCost {
				return wholesale(oldT, newT)
			}
			removePath, addPath := best[off+d-1], best[off+d+1]
			if removePath != nil {
				best[off+d-1] = nil
			}
			canAdd := false
			if addPath != nil {
				addNewPos := addPath.oldPos - d
				canAdd = 0 <= addNewPos && addNewPos < newLen
			}
			canRemove := removePath != nil && removePath.oldPos+1 < oldLen
			if !canAdd && !canRemove {
				best[off+d] = nil
				continue
			}
			var base *path
			if !canRemove || (canAdd && removePath.oldPos < addPath.oldPos) {
				base = addToPath(addPath, true, false, 0)
			} else {
				base = addToPath(removePath, false, true, 1)
			}
			newPos = extractCommon(base, newT, oldT, d, &cost)
			if base.oldPos+1 >= oldLen && newPos+1 >= newLen {
				return build(base.last, oldT, newT)
			}
			best[off+d] = base
			if base.oldPos+1 >= oldLen {
				maxDiag = min(maxDiag, d-1)
			}
			if newPos+1 >= newLen {
				minDiag = max(minDiag, d+1)
			}
		}
	}
	return wholesale(oldT, newT) // not reached: maxEdit edits always suffice
}

// wholesale is the script that removes every old line and adds every new
// one.
func wholesale(oldT, newT []string) []change {
	var out []change
	if len(oldT) > 0 {
		out = append(out, change{lines: oldT, removed: true})
	}
	if len(newT) > 0 {
		out = append(out, change{lines: newT, added: true})
	}
	return out
}

// build turns the components of a path into the changes, in order.
func build(last *component, oldT, newT []string) []change {
	var comps []*component
	for c := last; c != nil; c = c.prev {
		comps = append(comps, c)
	}
	out := make([]change, 0, len(comps))
	oldPos, newPos := 0, 0
	for i := len(comps) - 1; i >= 0; i-- {
		c := comps[i]
		switch {
		case c.removed:
			out = append(out, change{lines: oldT[oldPos : oldPos+c.count], removed: true})
			oldPos += c.count
		case c.added:
			out = append(out, change{lines: newT[newPos : newPos+c.count], added: true})
			newPos += c.count
		default:
			out = append(out, change{lines: newT[newPos : newPos+c.count]})
			newPos += c.count
			oldPos += c.count
		}
	}
	return out
}

type hunk struct {
	oldStart, oldLines, newStart, newLines int
	lines                                  []string
}

// hunks groups the changes into hunks with context lines around them.
func hunks(diff []change, context int) []hunk {
	diff = append(diff, change{}) // a sentinel that closes the last hunk
	var out []hunk
	oldRangeStart, newRangeStart := 0, 0
	var cur []string
	oldLine, newLine := 1, 1
	for i, c := range diff {
		if c.added || c.removed {
			if oldRangeStart == 0 {
				oldRangeStart, newRangeStart = oldLine, newLine
				if i > 0 && context > 0 {
					prev := diff[i-1].lines
					for _, l := range prev[max(0, len(prev)-context):] {
						cur = append(cur, " "+l)
					}
					oldRangeStart -= len(cur)
					newRangeStart -= len(cur)
				}
			}
			mark := "-"
			if c.added {
				mark = "+"
			}
			for _, l := range c.lines {
				cur = append(cur, mark+l)
			}
			if c.added {
				newLine += len(c.lines)
			} else {
				oldLine += len(c.lines)
			}
			continue
		}
		if oldRangeStart != 0 {
			if len(c.lines) <= context*2 && i < len(diff)-2 {
				for _, l := range c.lines {
					cur = append(cur, " "+l)
				}
			} else {
				n := min(len(c.lines), context)
				for _, l := range c.lines[:n] {
					cur = append(cur, " "+l)
				}
				out = append(out, hunk{
					oldStart: oldRangeStart, oldLines: oldLine - oldRangeStart + n,
					newStart: newRangeStart, newLines: newLine - newRangeStart + n,
					lines: cur,
				})
				oldRangeStart, newRangeStart, cur = 0, 0, nil
			}
		}
		oldLine += len(c.lines)
		newLine += len(c.lines)
	}
	// Lines lose their newline; a line without one gets the marker.
	for i := range out {
		var lines []string
		for _, l := range out[i].lines {
			if s, ok := strings.CutSuffix(l, "\n"); ok {
				lines = append(lines, s)
			} else {
				lines = append(lines, l, `\ No newline at end of file`)
			}
		}
		out[i].lines = lines
	}
	return out
}

func format(oldName, newName, oldHeader, newHeader string, hs []hunk) string {
	var b strings.Builder
	if oldName == newName {
		b.WriteString("Index: " + oldName + "\n")
	}
	b.WriteString("===================================================================\n")
	b.WriteString("--- " + oldName + "\t" + oldHeader + "\n")
	b.WriteString("+++ " + newName + "\t" + newHeader + "\n")
	for _, h := range hs {
		// A range of no lines starts one line earlier (unified diff's rule).
		os, ns := h.oldStart, h.newStart
		if h.oldLines == 0 {
			os--
		}
		if h.newLines == 0 {
			ns--
		}
		b.WriteString("@@ -" + strconv.Itoa(os) + "," + strconv.Itoa(h.oldLines) + " +" + strconv.Itoa(ns) + "," + strconv.Itoa(h.newLines) + " @@\n")
		for _, l := range h.lines {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}
