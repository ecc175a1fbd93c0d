package vault_test

import (
	"crypto/sha256"
	"math/rand/v2"
	"testing"

	"github.com/svcplatform/svc/internal/vault"
)

// BenchmarkScanner measures the secret scanner alone on random bytes, next to SHA-256 of the same
// bytes, to see which bounds a send.
func BenchmarkScanner(b *testing.B) {
	data := make([]byte, 4<<20)
	_, _ = rand.NewChaCha8([32]byte{7}).Read(data)
	b.Run("scan", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			var sc vault.Scanner
			for off := 0; off < len(data); off += 32 << 10 {
				_, _ = sc.Write(data[off : off+32<<10])
			}
			_ = sc.Close()
		}
	})
	b.Run("sha256", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			_ = sha256.Sum256(data)
		}
	})
}
