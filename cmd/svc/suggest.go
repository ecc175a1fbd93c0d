package main

import (
	"flag"
	"github.com/svcplatform/svc/internal/textdist"
	"sort"
	"strconv"
	"strings"
)

// maxSuggestDistance is the largest edit distance at which a mistyped word is taken for a known one.
const maxSuggestDistance = 2

// suggest returns the candidate nearest to word, for "did you mean" hints: the one at the smallest edit
// distance (at most maxSuggestDistance, and less than the word's length, so that a short word is not
// taken for anything), else the only candidate word is a prefix of; "" when none fits. Ties go to the
// first candidate in sorted order.
func suggest(word string, candidates []string) string {
	sorted := append([]string(nil), candidates...)
	sort.Strings(sorted)
	best, bestDist := "", maxSuggestDistance+1
	var prefixed []string
	for _, c := range sorted {
		if c == word {
			return ""
		}
		if d := textdist.Levenshtein(word, c); d < bestDist && d < len([]rune(word)) {
			best, bestDist = c, d
		}
		if word != "" && strings.HasPrefix(c, word) {
			prefixed = append(prefixed, c)
		}
	}
	if best == "" && len(prefixed) == 1 {
		best = prefixed[0]
	}
	return best
}

// didYouMean is "; did you mean <quoted suggestion>?" for the candidate nearest to word, or "".
func didYouMean(word string, candidates []string, quote func(string) string) string {
	if s := suggest(word, candidates); s != "" {
		return "; did you mean " + quote(s) + "?"
	}
	return ""
}

// commandNames returns the commands under group ("" for the top level), taken from the command table:
// "runs" for the top level, "list" for "runs".
func commandNames(group string) []string {
	prefix := ""
	if group != "" {
		prefix = group + " "
	}
	var names []string
	for _, c := range commands() {
		rest, ok := strings.CutPrefix(c.name, prefix)
		if ok && rest != "" && !strings.Contains(rest, " ") {
			names = append(names, rest)
		}
	}
	return names
}

// unknownCommand reports a command that does not exist, with the nearest one when there is one.
func (a *app) unknownCommand(group, name string) int {
	full := strings.TrimSpace(group + " " + name)
	hint := didYouMean(name, commandNames(group), func(s string) string {
		return strconv.Quote(strings.TrimSpace(group + " " + s))
	})
	return a.usageError(group, "unknown command %q%s", full, hint)
}

// notDefinedPrefix starts the error of package flag for a flag the FlagSet does not define.
const notDefinedPrefix = "flag provided but not defined: -"

// flagError words an error of fs.Parse(args): an unknown flag as it was typed, with the nearest flag of
// fs when there is one; other errors as package flag words them.
func flagError(fs *flag.FlagSet, args []string, err error) string {
	name, ok := strings.CutPrefix(err.Error(), notDefinedPrefix)
	if !ok {
		return err.Error()
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return "unknown flag " + typedFlag(args, name) + didYouMean(name, names, func(s string) string { return "--" + s })
}

// typedFlag returns the flag name as it was typed in args (-x or --x), or --name when it is not found.
func typedFlag(args []string, name string) string {
	for _, arg := range args {
		if arg == "--" {
			break
		}
		flagPart, _, _ := strings.Cut(arg, "=")
		if flagPart == "-"+name || flagPart == "--"+name {
			return flagPart
		}
	}
	return "--" + name
}
