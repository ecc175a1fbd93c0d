package bench

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/evm"
	"github.com/svcplatform/svc/internal/x402"
)

// Top-up benchmark shape: this many payments of 5 USD, from this many concurrent clients, per side.
const (
	topUpPayments = 120
	topUpClients  = 8
)

// BenchmarkTopUpsVersusRawTransfers compares end-to-end x402 top-ups per second (the 402, the signed
// retry, verification, reservation, the workflow's settlement on the dev chain and the credit) with raw
// transferWithAuthorization submissions to the same chain from one Go program (sign, send, wait for the
// receipt), at the same concurrency, and reports the ratio.
func BenchmarkTopUpsVersusRawTransfers(b *testing.B) {
	env := apptest.NewWith(b, apptest.Options{Chain: true})
	key := env.FirstKey(b)
	payer := fundedPayer(b, env, 1_000_000)
	want := env.X402.Requirements(big.NewInt(5_000_000))
	raw, err := evm.Dial(context.Background(), env.Chain.RPCURL(), big.NewInt(devchain.ChainID), devchain.USDCAddress, devchain.DeployerKey())
	require.NoError(b, err)
	b.Cleanup(raw.Close)
	var round atomic.Int64
	for b.Loop() {
		r := round.Add(1)
		topUps := concurrently(b, func(i int) {
			idem := fmt.Sprintf("bench-%d-%d", r, i)
			ask := env.Do(b, apptest.Req{Method: http.MethodPost, Path: "/v1/credits/x402/top-up", Key: key,
				Body: map[string]any{"amountUsd": 5}, Headers: map[string]string{"Idempotency-Key": idem}})
			require.Equal(b, http.StatusPaymentRequired, ask.Status, "%s", ask.Raw)
			paid := env.Do(b, apptest.Req{Method: http.MethodPost, Path: "/v1/credits/x402/top-up", Key: key,
				Body: map[string]any{"amountUsd": 5}, Headers: map[string]string{"Idempotency-Key": idem, "Payment-Signature": signed(b, payer, want)}})
			require.Equal(b, http.StatusOK, paid.Status, "%s", paid.Raw)
		})
		transfers := concurrently(b, func(int) {
			p, err := x402.Pay(payer, want, nil, time.Now())
			require.NoError(b, err)
			a, err := x402.Verify(*env.X402, want, p, time.Now())
			require.NoError(b, err)
			tx, err := raw.SubmitTransfer(context.Background(), a)
			require.NoError(b, err)
			rc, err := raw.WaitMined(context.Background(), tx, time.Minute, nil)
			require.NoError(b, err)
			require.NotNil(b, rc)
			require.EqualValues(b, 1, rc.Status)
		})
		logPhases(b, env)
		tps, rps := topUpPayments/topUps.Seconds(), topUpPayments/transfers.Seconds()
		b.ReportMetric(tps, "topups/s")
		b.ReportMetric(rps, "raw-transfers/s")
		b.ReportMetric(tps/rps, "ratio")
		b.Logf("%d payments from %d clients: top-ups %.1f/s, raw transferWithAuthorization %.1f/s, ratio %.2f",
			topUpPayments, topUpClients, tps, rps, tps/rps)
	}
}

// BenchmarkTopUpLatency breaks one top-up (30, one at a time, each on an idle chain: its head's time not
// ahead of the clock, so the next transaction is sealed at once) into verify (decoding and checking the
// signature, timed in process on the same payment), settle (reserved → transfer mined and recorded, from
// the top-up row's timestamps) and credit (recorded → credits posted), and the paid request end to end;
// it reports the medians.
func BenchmarkTopUpLatency(b *testing.B) {
	env := apptest.NewWith(b, apptest.Options{Chain: true})
	key := env.FirstKey(b)
	payer := fundedPayer(b, env, 10_000)
	want := env.X402.Requirements(big.NewInt(5_000_000))
	var round atomic.Int64
	for b.Loop() {
		r := round.Add(1)
		var verify, settle, credit, total []time.Duration
		for i := range 30 {
			awaitIdleChain(b, env)
			header := signed(b, payer, want)
			t0 := time.Now()
			p, err := x402.DecodePaymentHeader(header, false)
			require.NoError(b, err)
			_, err = x402.Verify(*env.X402, want, p, time.Now())
			require.NoError(b, err)
			verify = append(verify, time.Since(t0))
			t1 := time.Now()
			paid := env.Do(b, apptest.Req{Method: http.MethodPost, Path: "/v1/credits/x402/top-up", Key: key,
				Body: map[string]any{"amountUsd": 5}, Headers: map[string]string{"Idempotency-Key": fmt.Sprintf("lat-%d-%d", r, i), "Payment-Signature": header}})
			total = append(total, time.Since(t1))
			require.Equal(b, http.StatusOK, paid.Status, "%s", paid.Raw)
			var row struct {
				Created  time.Time `bun:"created_at"`
				Settled  time.Time `bun:"settled_at"`
				Credited time.Time `bun:"credited_at"`
			}
			require.NoError(b, env.DB.NewRaw("SELECT created_at, settled_at, credited_at FROM topups WHERE id = ?", paid.Body["topUpId"]).
				Scan(context.Background(), &row))
			settle, credit = append(settle, row.Settled.Sub(row.Created)), append(credit, row.Credited.Sub(row.Settled))
		}
		for _, m := range []struct {
			name string
			d    []time.Duration
		}{{"verify", verify}, {"settle", settle}, {"credit", credit}, {"total", total}} {
			med := median(m.d)
			b.ReportMetric(float64(med.Microseconds())/1000, m.name+"-ms")
			b.Logf("%s: median %v", m.name, med)
		}
	}
}

// logPhases logs the medians of the top-ups' settle and credit phases under load (from their rows).
func logPhases(b *testing.B, env *apptest.Env) {
	var settle, credit []time.Duration
	rows, err := env.DB.QueryContext(context.Background(), "SELECT settled_at - created_at, credited_at - settled_at FROM topups WHERE status = 'credited'")
	require.NoError(b, err)
	defer rows.Close()
	for rows.Next() {
		var s, c time.Duration
		var si, ci string
		require.NoError(b, rows.Scan(&si, &ci))
		s, _ = time.ParseDuration(pgInterval(si))
		c, _ = time.ParseDuration(pgInterval(ci))
		settle, credit = append(settle, s), append(credit, c)
	}
	require.NoError(b, rows.Err())
	b.Logf("under load: settle median %v max %v; credit median %v max %v", median(settle), slices.Max(settle), median(credit), slices.Max(credit))
}

// pgInterval turns a PostgreSQL interval below a day ("00:00:01.234") into a Go duration string.
func pgInterval(s string) string {
	var h, m int
	var sec float64
	_, _ = fmt.Sscanf(s, "%d:%d:%f", &h, &m, &sec)
	return fmt.Sprintf("%dh%dm%fs", h, m, sec)
}

// awaitIdleChain waits until the dev chain's head is not ahead of the wall clock: under a burst the
// chain seals one block a second (see internal/devchain), which one top-up's latency should not include.
func awaitIdleChain(b *testing.B, env *apptest.Env) {
	c := env.Chain.Client()
	defer c.Close()
	require.Eventually(b, func() bool {
		h, err := c.HeaderByNumber(context.Background(), nil)
		return err == nil && int64(h.Time) < time.Now().Unix()
	}, 10*time.Second, 10*time.Millisecond)
}

// concurrently runs topUpPayments calls of f from topUpClients goroutines and returns how long they took.
func concurrently(b *testing.B, f func(i int)) time.Duration {
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range topUpClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < topUpPayments; i = int(next.Add(1)) - 1 {
				f(i)
			}
		}()
	}
	wg.Wait()
	return time.Since(start)
}

// fundedPayer is a new key holding usdc dev USDC.
func fundedPayer(b *testing.B, env *apptest.Env, usdc int) *ecdsa.PrivateKey {
	key, err := crypto.GenerateKey()
	require.NoError(b, err)
	r := env.Do(b, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet",
		Body: map[string]any{"address": crypto.PubkeyToAddress(key.PublicKey).Hex(), "usdc": usdc}})
	require.Equal(b, http.StatusOK, r.Status, "%s", r.Raw)
	return key
}

// signed is a fresh Payment-Signature header paying want.
func signed(b *testing.B, payer *ecdsa.PrivateKey, want x402.PaymentRequirements) string {
	p, err := x402.Pay(payer, want, nil, time.Now())
	require.NoError(b, err)
	h, err := x402.EncodeHeader(p)
	require.NoError(b, err)
	return h
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
