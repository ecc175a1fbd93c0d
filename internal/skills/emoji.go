package skills

import "unicode/utf8"

// Code points that join or modify emoji within one grapheme.
const (
	zwj          = 0x200D // zero-width joiner: 👩‍💻
	vs16         = 0xFE0F // emoji presentation selector
	vs15         = 0xFE0E // text presentation selector
	keycap       = 0x20E3 // combining enclosing keycap: 1️⃣
	tagFirst     = 0xE0020
	tagLast      = 0xE007E
	tagCancel    = 0xE007F
	regionalLow  = 0x1F1E6
	regionalHigh = 0x1F1FF
	skinLow      = 0x1F3FB
	skinHigh     = 0x1F3FF
)

// emojiRanges are the code point ranges of emoji bases (Unicode's Emoji property, folded into ranges).
var emojiRanges = [][2]rune{
	{0x00A9, 0x00A9}, {0x00AE, 0x00AE}, {0x203C, 0x203C}, {0x2049, 0x2049}, {0x2122, 0x2122}, {0x2139, 0x2139},
	{0x2194, 0x2199}, {0x21A9, 0x21AA}, {0x231A, 0x231B}, {0x2328, 0x2328}, {0x23CF, 0x23CF}, {0x23E9, 0x23F3},
	{0x23F8, 0x23FA}, {0x24C2, 0x24C2}, {0x25AA, 0x25AB}, {0x25B6, 0x25B6}, {0x25C0, 0x25C0}, {0x25FB, 0x25FE},
	{0x2600, 0x27BF}, {0x2934, 0x2935}, {0x2B05, 0x2B07}, {0x2B1B, 0x2B1C}, {0x2B50, 0x2B50}, {0x2B55, 0x2B55},
	{0x3030, 0x3030}, {0x303D, 0x303D}, {0x3297, 0x3297}, {0x3299, 0x3299},
	{0x1F000, 0x1F0FF}, {0x1F10D, 0x1F10F}, {0x1F12F, 0x1F12F}, {0x1F16C, 0x1F171}, {0x1F17E, 0x1F17F},
	{0x1F18E, 0x1F18E}, {0x1F191, 0x1F19A}, {0x1F1AD, 0x1F1E5}, {0x1F201, 0x1F20F}, {0x1F21A, 0x1F21A},
	{0x1F22F, 0x1F22F}, {0x1F232, 0x1F23A}, {0x1F23C, 0x1F23F}, {0x1F249, 0x1F3FA}, {0x1F400, 0x1F53D},
	{0x1F546, 0x1F64F}, {0x1F680, 0x1F6FF}, {0x1F774, 0x1F77F}, {0x1F7D5, 0x1F7FF}, {0x1F80C, 0x1F80F},
	{0x1F848, 0x1F84F}, {0x1F85A, 0x1F85F}, {0x1F888, 0x1F88F}, {0x1F8AE, 0x1F8FF}, {0x1F90C, 0x1F93A},
	{0x1F93C, 0x1F945}, {0x1F947, 0x1FAFF}, {0x1FC00, 0x1FFFD},
}

func isEmojiBase(r rune) bool {
	for _, rg := range emojiRanges {
		if r >= rg[0] && r <= rg[1] {
			return true
		}
	}
	return false
}

func isRegional(r rune) bool { return r >= regionalLow && r <= regionalHigh }

// IsSingleEmoji reports whether s is exactly one emoji grapheme: a flag (two regional indicators), a
// keycap (0-9, # or * with U+FE0F U+20E3), or emoji joined by U+200D, each optionally followed by a
// skin tone, a presentation selector or a tag sequence (subdivision flags).
func IsSingleEmoji(s string) bool {
	rs := []rune(s)
	if len(rs) == 0 || !utf8.ValidString(s) {
		return false
	}
	if len(rs) == 2 && isRegional(rs[0]) && isRegional(rs[1]) {
		return true
	}
	if isKeycap(rs) {
		return true
	}
	i := 0
	for {
		next, ok := emojiUnit(rs, i)
		if !ok {
			return false
		}
		if next == len(rs) {
			return true
		}
		if rs[next] != zwj {
			return false
		}
		i = next + 1
	}
}

// isKeycap reports a keycap sequence: 0-9, # or *, an optional U+FE0F, then U+20E3.
func isKeycap(rs []rune) bool {
	if len(rs) < 2 || len(rs) > 3 || !(rs[0] >= '0' && rs[0] <= '9' || rs[0] == '#' || rs[0] == '*') {
		return false
	}
	if len(rs) == 3 {
		return rs[1] == vs16 && rs[2] == keycap
	}
	return rs[1] == keycap
}

// emojiUnit reads one emoji base at i with its modifiers and answers the index after it.
func emojiUnit(rs []rune, i int) (int, bool) {
	if i >= len(rs) || !isEmojiBase(rs[i]) || (rs[i] >= skinLow && rs[i] <= skinHigh) {
		return 0, false
	}
	i++
	if i < len(rs) && (rs[i] == vs16 || rs[i] == vs15) {
		i++
	}
	if i < len(rs) && rs[i] >= skinLow && rs[i] <= skinHigh {
		i++
	}
	if i < len(rs) && rs[i] >= tagFirst && rs[i] <= tagLast {
		for i < len(rs) && rs[i] >= tagFirst && rs[i] <= tagLast {
			i++
		}
		if i >= len(rs) || rs[i] != tagCancel {
			return 0, false
		}
		i++
	}
	return i, true
}
