package vault

import (
	"crypto/sha256"
	_ "embed"
	"strings"
)

// bip39English is the standard BIP-39 English word list (2,048 words, one a line), a public standard
// from github.com/bitcoin/bips (bip-0039/english.txt, SHA-256 2f5eed53…dbda).
//
//go:embed bip39_english.txt
var bip39English string

// bip39Words is the word list in order.
var bip39Words = strings.Fields(bip39English)

// minWordLetters is the length of the shortest BIP-39 word.
const minWordLetters = 3

// bip39Prefix maps the first four letters of a word (BIP-39 words are unique in them) to its index plus
// one, as a flat table indexed by prefixKey, so a lookup is one array read and one comparison.
var bip39Prefix = func() []uint16 {
	if len(bip39Words) != 2048 {
		panic("vault: the embedded BIP-39 word list does not hold 2048 words")
	}
	t := make([]uint16, 27*27*27*27)
	for i, w := range bip39Words {
		k := prefixKey([]byte(w))
		if t[k] != 0 {
			panic("vault: BIP-39 words are not unique in their first four letters")
		}
		t[k] = uint16(i + 1)
	}
	return t
}()

// prefixKey is the table index of a lower-case word's first four letters (0 pads a shorter word).
func prefixKey(w []byte) int {
	k := 0
	for i := 0; i < 4; i++ {
		c := 0
		if i < len(w) {
			c = int(w[i]-'a') + 1
		}
		k = k*27 + c
	}
	return k
}

// bip39Lookup is the index of the lower-case word w in the list, or -1.
func bip39Lookup(w []byte) int {
	for _, c := range w {
		if c < 'a' || c > 'z' {
			return -1
		}
	}
	i := int(bip39Prefix[prefixKey(w)]) - 1
	if i < 0 || bip39Words[i] != string(w) {
		return -1
	}
	return i
}

// mnemonicLengths are the word counts of BIP-39 mnemonics.
var mnemonicLengths = []int{12, 15, 18, 21, 24}

// maxMnemonicWords is the longest mnemonic.
const maxMnemonicWords = 24

// validMnemonic reports whether the word indices form a BIP-39 mnemonic whose checksum holds: the
// 11-bit indices concatenated are the entropy followed by the first len/3 bits of its SHA-256.
func validMnemonic(indices []uint16) bool {
	n := len(indices)
	if n%3 != 0 || n < 12 || n > maxMnemonicWords {
		return false
	}
	totalBits := n * 11
	checksumBits := n / 3
	entropyBytes := (totalBits - checksumBits) / 8
	bits := make([]byte, (totalBits+7)/8)
	for i, idx := range indices {
		for b := 0; b < 11; b++ {
			if idx&(1<<(10-b)) != 0 {
				pos := i*11 + b
				bits[pos/8] |= 1 << (7 - pos%8)
			}
		}
	}
	sum := sha256.Sum256(bits[:entropyBytes])
	for b := 0; b < checksumBits; b++ {
		pos := entropyBytes*8 + b
		got := bits[pos/8]>>(7-pos%8)&1 == 1
		want := sum[b/8]>>(7-b%8)&1 == 1
		if got != want {
			return false
		}
	}
	return true
}
