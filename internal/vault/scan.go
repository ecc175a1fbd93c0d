package vault

import (
	"bytes"
	"io"
	"strings"
)

// Kinds of secret the scanner finds. A finding names its kind, never the secret.
const (
	FindingAPIKey     = "svc API key (svc_sk_…)"
	FindingPEMKey     = "PEM private key"
	FindingHexKey     = "32-byte hex private key"
	FindingMnemonic   = "BIP-39 mnemonic"
	apiKeyPrefix      = "svc_sk_"
	apiKeyMinBody     = 16 // characters after the prefix: a display prefix (6) is not a key
	hexKeyDigits      = 64
	maxTokenLetters   = 8 // the longest BIP-39 word
	seamBytes         = 64
	tokenMask         = 15 // the token buffer's size minus one: indices wrap, long tokens are no words
	pemBegin          = "-----BEGIN "
	pemPrivateKeyTail = "PRIVATE KEY-----"
)

// Scanner finds secrets in a stream written to it in chunks of any size, in one pass and constant
// memory. It looks for svc API keys, PEM private key blocks, 64 hex digits standing alone (optionally
// after 0x) and BIP-39 mnemonics of 12-24 words whose checksum holds. Its zero value is ready.
type Scanner struct {
	finding string
	seam    []byte // the last bytes of the previous chunk, for matches across a chunk boundary
	hexRun  int    // hex digits in a row so far
	token   [tokenMask + 1]byte
	tokLen  int // letters in the current token (more than maxTokenLetters: too long to be a word)
	words   []uint16
}

// Finding is the kind of the first secret found, or "".
func (s *Scanner) Finding() string { return s.finding }

// Write scans p; it never fails, so a Scanner can sit in an io.MultiWriter.
func (s *Scanner) Write(p []byte) (int, error) {
	if s.finding != "" {
		return len(p), nil
	}
	s.scanFixed(p)
	if s.finding == "" {
		s.scanRuns(p)
	}
	return len(p), nil
}

// byteClass marks hex digits and ASCII letters, for the per-byte loop.
var byteClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		if isHexDigit(byte(c)) {
			t[c] |= classHex
		}
		if isLetter(byte(c)) {
			t[c] |= classLetter
		}
	}
	return t
}()

const (
	classHex    = 1
	classLetter = 2
)

// scanRuns runs the hex-run and word state machines over p. The loop is written without data-dependent
// branches on the common path (random bytes would defeat branch prediction): it leaves it only at the
// end of a letter token that could be a word, when a run of words is under way, or at the end of a hex
// run of exactly 64 digits.
func (s *Scanner) scanRuns(p []byte) {
	hexRun, tokLen, nwords := s.hexRun, s.tokLen, len(s.words)
	for _, c := range p {
		cls := int(byteClass[c])
		isHex, isLetter := cls&classHex, cls>>1
		if hexRun == hexKeyDigits && isHex == 0 {
			s.finding = FindingHexKey
			return
		}
		hexRun = (hexRun + 1) * isHex
		if ended := tokLen * (1 - isLetter); ended >= minWordLetters || nwords > 0 && ended > 0 {
			s.tokLen = ended
			if s.endToken(); s.finding != "" {
				return
			}
			nwords = len(s.words)
		}
		s.token[tokLen&tokenMask] = c | 0x20
		tokLen = (tokLen + 1) * isLetter
	}
	s.hexRun, s.tokLen = hexRun, tokLen
}

// Close ends the stream, deciding a hex run or a word that reaches its end.
func (s *Scanner) Close() error {
	s.step(' ')
	return nil
}

// scanFixed looks for the fixed-text secrets in p and across the seam with the previous chunk.
func (s *Scanner) scanFixed(p []byte) {
	head := p[:min(len(p), seamBytes)]
	joined := append(append(make([]byte, 0, len(s.seam)+len(head)), s.seam...), head...)
	for _, b := range [][]byte{joined, p} {
		if s.finding = fixedFinding(b); s.finding != "" {
			return
		}
	}
	if len(p) >= seamBytes {
		s.seam = append(s.seam[:0], p[len(p)-seamBytes:]...)
	} else {
		s.seam = append(s.seam, p...)
		if len(s.seam) > seamBytes {
			s.seam = s.seam[len(s.seam)-seamBytes:]
		}
	}
}

// fixedFinding finds an API key or a PEM private key header in b.
func fixedFinding(b []byte) string {
	for rest := b; ; {
		i := bytes.Index(rest, []byte(apiKeyPrefix))
		if i < 0 {
			break
		}
		rest = rest[i+len(apiKeyPrefix):]
		if keyBodyLen(rest) >= apiKeyMinBody {
			return FindingAPIKey
		}
	}
	for rest := b; ; {
		i := bytes.Index(rest, []byte(pemBegin))
		if i < 0 {
			return ""
		}
		rest = rest[i+len(pemBegin):]
		label := rest[:min(len(rest), 40)]
		if j := bytes.Index(label, []byte(pemPrivateKeyTail)); j >= 0 && isPEMLabel(label[:j]) {
			return FindingPEMKey
		}
	}
}

func keyBodyLen(b []byte) int {
	n := 0
	for n < len(b) && (isLetter(b[n]) || b[n] >= '0' && b[n] <= '9') {
		n++
	}
	return n
}

// isPEMLabel accepts the words before "PRIVATE KEY" in a PEM header: "", "RSA ", "EC ", "OPENSSH ",
// "ENCRYPTED ", ...
func isPEMLabel(b []byte) bool {
	for _, c := range b {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == ' ') {
			return false
		}
	}
	return true
}

// step advances the state machines by one byte.
func (s *Scanner) step(c byte) { s.scanRuns([]byte{c}) }

// endToken adds the finished token (s.tokLen letters) to the run of word-list words, or ends the run.
func (s *Scanner) endToken() {
	n := s.tokLen
	s.tokLen = 0
	idx, ok := -1, false
	if n >= minWordLetters && n <= maxTokenLetters {
		idx = bip39Lookup(s.token[:n])
		ok = idx >= 0
	}
	if !ok {
		s.words = s.words[:0]
		return
	}
	if len(s.words) == maxMnemonicWords {
		copy(s.words, s.words[1:])
		s.words = s.words[:maxMnemonicWords-1]
	}
	s.words = append(s.words, uint16(idx))
	if len(s.words) < mnemonicLengths[0] {
		return
	}
	for _, l := range mnemonicLengths {
		if len(s.words) >= l && validMnemonic(s.words[len(s.words)-l:]) {
			s.finding = FindingMnemonic
			return
		}
	}
}

func isHexDigit(c byte) bool { return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f' }

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// ScanText returns the kind of the first secret in s, or "".
func ScanText(s string) string {
	var sc Scanner
	_, _ = io.Copy(&sc, strings.NewReader(s))
	_ = sc.Close()
	return sc.Finding()
}
