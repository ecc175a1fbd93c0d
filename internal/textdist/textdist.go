// Package textdist measures how far apart two strings are, for suggestions ("did you mean …") and
// fuzzy matching of names.
package textdist

// Levenshtein is the edit distance between a and b, in runes: the fewest insertions, deletions and
// substitutions that turn one into the other.
func Levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev, cur := make([]int, len(rb)+1), make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
