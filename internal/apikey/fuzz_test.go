package apikey

import (
	"strings"
	"testing"
)

// FuzzSecret feeds any string to WellFormed, the check every presented key passes before any lookup:
// it never panics, accepts only the secret's exact shape with a matching checksum, and no single
// changed character of a real secret is accepted (a typo fails without a database lookup).
func FuzzSecret(f *testing.F) {
	s := NewSecret()
	f.Add(s, uint(0), byte('x'))
	f.Add(s, uint(len(s)-1), byte('0'))
	f.Add(s[:len(s)-1], uint(10), byte('A'))
	f.Add("svc_sk_"+strings.Repeat("\x00", bodyLen+checksumLen), uint(3), byte(0))
	f.Add("svc_sk_"+strings.Repeat("é", 19), uint(7), byte(0xff))
	f.Add("", uint(0), byte(0))
	f.Fuzz(func(t *testing.T, in string, pos uint, c byte) {
		if WellFormed(in) {
			if len(in) != len(SecretPrefix)+bodyLen+checksumLen || !strings.HasPrefix(in, SecretPrefix) {
				t.Fatalf("accepted %q", in)
			}
			for _, r := range in[len(SecretPrefix):] {
				if !strings.ContainsRune(alphabet, r) {
					t.Fatalf("accepted %q", in)
				}
			}
			_ = DisplayPrefix(in)
		}
		// One character of a real secret changed to anything else is refused.
		real := NewSecret()
		i := int(pos % uint(len(real)))
		if real[i] == c {
			return
		}
		typo := real[:i] + string([]byte{c}) + real[i+1:]
		if WellFormed(typo) {
			t.Fatalf("typo accepted: %q (from %q)", typo, real)
		}
	})
}
