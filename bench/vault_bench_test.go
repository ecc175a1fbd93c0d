package bench

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/vault"
)

// vaultFileSize is the size of each file of the benchmark's tree.
const vaultFileSize = 1_000_000

// vaultFiles is the number of files of the benchmark's tree: 1,000 (1 GB in all), or
// SVC_VAULT_BENCH_FILES for a quick smoke run.
var vaultFiles = func() int {
	if n, err := strconv.Atoi(os.Getenv("SVC_VAULT_BENCH_FILES")); err == nil && n > 0 {
		return n
	}
	return 1000
}()

// BenchmarkVaultTransferVersusCpSha256sum sends a 1 GB tree of 1,000 files into a vault (secret scan,
// hash, atomic copy, manifest) and verifies it as a receiver would (a fresh Vault, so every payload is
// hashed again), against `cp -r` of the same tree plus `sha256sum` of every copied file. It reports both
// throughputs, their ratio (cp+sha256sum time / vault time; 0.5 or more is the goal), the peak heap growth
// during the vault side and the process's peak RSS (VmHWM, reset before the vault side) to show memory
// stays flat however large the payload.
func BenchmarkVaultTransferVersusCpSha256sum(b *testing.B) {
	work := b.TempDir()
	requireFreeSpace(b, work, uint64(4*vaultFiles*vaultFileSize)) // the tree, the vault and cp copies, slack
	src := filepath.Join(work, "src")
	files := writeVaultTree(b, src)
	ctx := context.Background()
	iter := 0
	for b.Loop() {
		iter++
		vaultDir := filepath.Join(work, fmt.Sprintf("vault-%d", iter))
		cpDir := filepath.Join(work, fmt.Sprintf("cp-%d", iter))
		require.NoError(b, os.MkdirAll(vaultDir, 0o755))

		base := cpAndSha256sum(b, src, cpDir)
		resetPeakRSS()
		ours, heapPeak := withHeapSampler(func() { sendAndVerify(ctx, b, vaultDir, files) })
		rss := peakRSS()

		total := float64(vaultFiles * vaultFileSize)
		b.ReportMetric(total/1e6/ours.Seconds(), "vault-MB/s")
		b.ReportMetric(total/1e6/base.Seconds(), "cp+sha256sum-MB/s")
		b.ReportMetric(base.Seconds()/ours.Seconds(), "ratio")
		b.ReportMetric(float64(heapPeak)/(1<<20), "vault-heap-peak-MiB")
		b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MiB")
		b.Logf("%d MB in %d files: vault send+verify %v, cp -r + sha256sum %v (ratio %.2f); heap peak +%.1f MiB, peak RSS %.1f MiB",
			vaultFiles*vaultFileSize/1e6, vaultFiles, ours.Round(time.Millisecond), base.Round(time.Millisecond), base.Seconds()/ours.Seconds(),
			float64(heapPeak)/(1<<20), float64(rss)/(1<<20))
		require.NoError(b, os.RemoveAll(vaultDir))
		require.NoError(b, os.RemoveAll(cpDir))
	}
}

// sendAndVerify sends every file in one transfer and verifies it with a fresh Vault (no cached digests).
func sendAndVerify(ctx context.Context, b *testing.B, vaultDir string, files []string) {
	v, err := vault.Open(vaultDir, vault.Options{})
	require.NoError(b, err)
	m, err := v.Send(ctx, vault.SendRequest{Files: files, To: vault.Identity{MachineID: "bench-receiver"}})
	require.NoError(b, err)
	receiver, err := vault.Open(vaultDir, vault.Options{})
	require.NoError(b, err)
	t, err := receiver.Verify(ctx, m.ID)
	require.NoError(b, err)
	require.Len(b, t.Files, vaultFiles)
}

// cpAndSha256sum times `cp -r src dst` followed by sha256sum of every file of dst.
func cpAndSha256sum(b *testing.B, src, dst string) time.Duration {
	t0 := time.Now()
	out, err := exec.Command("cp", "-r", src, dst).CombinedOutput()
	require.NoError(b, err, "%s", out)
	cmd := exec.Command("sh", "-c", `find . -type f -exec sha256sum {} + > /dev/null`)
	cmd.Dir = dst
	out, err = cmd.CombinedOutput()
	require.NoError(b, err, "%s", out)
	return time.Since(t0)
}

// writeVaultTree writes the benchmark's files: pseudo-random bytes (no secrets to find, none of the
// scanner's fast paths either), and returns their paths.
func writeVaultTree(b *testing.B, dir string) []string {
	require.NoError(b, os.MkdirAll(dir, 0o755))
	rng := rand.New(rand.NewChaCha8([32]byte{1, 2, 3}))
	buf := make([]byte, vaultFileSize)
	files := make([]string, vaultFiles)
	for i := range files {
		for j := 0; j < len(buf); j += 8 {
			v := rng.Uint64()
			for k := 0; k < 8 && j+k < len(buf); k++ {
				buf[j+k] = byte(v >> (8 * k))
			}
		}
		files[i] = filepath.Join(dir, fmt.Sprintf("file-%04d.bin", i))
		require.NoError(b, os.WriteFile(files[i], buf, 0o644))
	}
	return files
}

// requireFreeSpace skips the benchmark when dir's filesystem has less than n bytes free.
func requireFreeSpace(b *testing.B, dir string, n uint64) {
	var st syscall.Statfs_t
	require.NoError(b, syscall.Statfs(dir, &st))
	if free := st.Bavail * uint64(st.Bsize); free < n {
		b.Skipf("needs %d bytes free in %s, has %d", n, dir, free)
	}
}

// resetPeakRSS resets the process's peak RSS (Linux: writing 5 to /proc/self/clear_refs).
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0o644) }

// peakRSS is VmHWM from /proc/self/status in bytes, 0 where unavailable.
func peakRSS() uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb * 1024
		}
	}
	return 0
}
