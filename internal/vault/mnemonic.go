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

// bip39Index maps each word of the list to its 11-bit index.
var bip39Index = func() map[string]uint16 {
	words := strings.Fields(bip39English)
	if len(words) != 2048 {
		panic("vault: the embedded BIP-39 word list does not hold 2048 words")
	}
	m := make(map[string]uint16, len(words))
	for i, w := range words {
		m[w] = uint16(i)
	}
	return m
}()

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
