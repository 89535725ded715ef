package app

import (
	"errors"
	"fmt"
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Nearest returns the names among candidates that are nearest to name,
// for a "did you mean": those within the fewest edits (insertions,
// deletions, substitutions, and swaps of two neighbouring letters), at
// most 2 (1 for a name of 3 letters or fewer), in the order of
// candidates; nil if none is that near. name itself is never returned.
func Nearest(name string, candidates []string) []string {
	limit := 2
	if len([]rune(name)) <= 3 {
		limit = 1
	}
	var out []string
	best := limit + 1
	for _, c := range candidates {
		if c == name {
			continue
		}
		switch d := editDistance(name, c); {
		case d < best:
			best, out = d, []string{c}
		case d == best && !slices.Contains(out, c):
			out = append(out, c)
		}
	}
	return out
}

// editDistance is the optimal string alignment distance between a and b:
// the edits of Levenshtein's distance, and the swap of two neighbouring
// characters (the commonest typing mistake) as one edit.
func editDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	// Three rows of the table: two back, the last, this one.
	prev2 := make([]int, len(t)+1)
	prev := make([]int, len(t)+1)
	cur := make([]int, len(t)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(s); i++ {
		cur[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(t)]
}

// flagError words a flag that does not parse: an unknown flag names the
// nearest flag of cmd ("did you mean --url?").
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	var ne *pflag.NotExistError
	if errors.As(err, &ne) && ne.GetSpecifiedShortnames() == "" {
		var names []string
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden {
				names = append(names, f.Name)
			}
		})
		if near := Nearest(ne.GetSpecifiedName(), names); len(near) > 0 {
			msg += fmt.Sprintf("; did you mean --%s?", near[0])
		}
	}
	return UsageErrorf("%s (see %s --help)", msg, cmd.CommandPath())
}
