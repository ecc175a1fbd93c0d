package bench

import (
	"context"
	"crypto/ecdsa"
	"encoding/base64"
	"fmt"
	"math/big"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/evm"
	"github.com/svcplatform/svc/internal/secretbox"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/internal/wallet"
)

// walletClients is how many wallets (and raw keys) send at once; walletSends how many transfers each.
const (
	walletClients = 8
	walletSends   = 15
)

// usdcTransfer is the call data of USDC transfer(to, atomic).
func usdcTransfer(to common.Address, atomic int64) []byte {
	data := append([]byte{0xa9, 0x05, 0x9c, 0xbb}, common.LeftPadBytes(to.Bytes(), 32)...)
	return append(data, common.LeftPadBytes(big.NewInt(atomic).Bytes(), 32)...)
}

// BenchmarkWalletSendsVersusRawTransfers compares USDC transfers per second through the API (POST
// /v1/wallets/{id}/transactions from 8 funded wallets, each client waiting for its transfer to be
// confirmed before the next: policy, reservation, the workflow's nonce, signing, broadcast and receipt)
// with the same transfers signed and submitted from one Go program on the same dev chain (8 funded keys:
// sign, SendTransaction, wait for the receipt), at the same concurrency, in the same run; it reports the
// ratio.
func BenchmarkWalletSendsVersusRawTransfers(b *testing.B) {
	env := apptest.NewWith(b, apptest.Options{Chain: true})
	c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(env.FirstKey(b)))
	ctx := context.Background()
	rpc, err := ethclient.Dial(env.Chain.RPCURL())
	require.NoError(b, err)
	b.Cleanup(rpc.Close)
	sink := common.HexToAddress("0x52908400098527886E0F7030069857D2E4169EE7")
	fund := func(addr string) {
		r := env.Do(b, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": addr, "usdc": 100_000, "eth": 10}})
		require.Equal(b, http.StatusOK, r.Status, "%s", r.Raw)
	}
	wallets := make([]string, walletClients)
	keys := make([]*ecdsa.PrivateKey, walletClients)
	for i := range walletClients {
		w := c.CreateWallet(ctx, client.CreateWalletRequest{Name: fmt.Sprintf("bench-%d", i)})
		require.True(b, w.OK, "%v", w.Error)
		require.True(b, c.UpdateWalletPolicy(ctx, w.Body.Wallet.ID, client.UpdateWalletPolicyRequest{DailyLimitUSD: client.DisableUSD()}).OK)
		wallets[i] = w.Body.Wallet.ID
		fund(w.Body.Wallet.Address)
		keys[i], err = crypto.GenerateKey()
		require.NoError(b, err)
		fund(crypto.PubkeyToAddress(keys[i].PublicKey).Hex())
	}
	require.Eventually(b, func() bool {
		for _, id := range wallets {
			if bal := c.GetWalletBalances(ctx, id); !bal.OK || bal.Body.Balances[1].Amount != "100000" {
				return false
			}
		}
		return true
	}, time.Minute, 50*time.Millisecond)
	chainID := big.NewInt(devchain.ChainID)
	signer := types.LatestSignerForChainID(chainID)
	usdc := devchain.USDCAddress
	for b.Loop() {
		api := perClient(func(i int) {
			for range walletSends {
				r := c.SendTransaction(ctx, wallets[i], client.CreateTransactionRequest{To: sink.Hex(), Amount: "1", Asset: client.AssetUSDC})
				require.True(b, r.OK, "%v", r.Error)
				var last client.WalletTransaction
				require.Eventually(b, func() bool {
					g := c.GetWalletTransaction(ctx, wallets[i], r.Body.Transaction.ID)
					last = g.Body.Transaction
					return g.OK && last.Done()
				}, time.Minute, 5*time.Millisecond)
				require.Equal(b, client.WalletTxConfirmed, last.Status, "%+v", last.Error)
			}
		})
		raw := perClient(func(i int) {
			from := crypto.PubkeyToAddress(keys[i].PublicKey)
			nonce, err := rpc.PendingNonceAt(ctx, from)
			require.NoError(b, err)
			for range walletSends {
				tip, feeCap, err := evm.Fees(ctx, rpc)
				require.NoError(b, err)
				tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, To: &usdc, Gas: 100_000,
					GasTipCap: tip, GasFeeCap: feeCap, Data: usdcTransfer(sink, 1_000_000)}), signer, keys[i])
				require.NoError(b, err)
				require.NoError(b, rpc.SendTransaction(ctx, tx))
				var rc *types.Receipt
				require.Eventually(b, func() bool {
					rc, err = rpc.TransactionReceipt(ctx, tx.Hash())
					return err == nil
				}, time.Minute, 5*time.Millisecond)
				require.EqualValues(b, 1, rc.Status)
				nonce++
			}
		})
		n := float64(walletClients * walletSends)
		aps, rps := n/api.Seconds(), n/raw.Seconds()
		b.ReportMetric(aps, "api-sends/s")
		b.ReportMetric(rps, "raw-sends/s")
		b.ReportMetric(aps/rps, "ratio")
		b.Logf("%d USDC transfers from %d clients: API %.1f/s, raw %.1f/s, ratio %.2f", int(n), walletClients, aps, rps, aps/rps)
	}
}

// perClient runs f(i) for each of walletClients clients at once and answers how long they took.
func perClient(f func(i int)) time.Duration {
	var wg sync.WaitGroup
	start := time.Now()
	for i := range walletClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(i)
		}()
	}
	wg.Wait()
	return time.Since(start)
}

// BenchmarkWalletPolicyCheck measures the policy check of one send: Policy.Evaluate alone (every rule
// on, 100 permitted recipients), and the PostgreSQL part of CreateTransaction (the wallet read, the
// row lock, the rolling 24-hour sum, the verdict, the transaction and spend rows) with the workflow
// left out.
func BenchmarkWalletPolicyCheck(b *testing.B) {
	now := time.Now()
	p := wallet.DefaultPolicy()
	above := int64(100_00)
	p.ApprovalAboveCents, p.DisableContractCalls, p.Recipients.Enabled = &above, true, true
	for i := range 100 {
		p.Recipients.Entries = append(p.Recipients.Entries, wallet.Recipient{Address: common.BigToAddress(big.NewInt(int64(i + 1))),
			AddedAt: now.Add(-48 * time.Hour)})
	}
	cents := int64(5_00)
	o := wallet.Outbound{From: common.BigToAddress(big.NewInt(1000)), To: common.BigToAddress(big.NewInt(100)), USDCents: &cents, SpentCents: 20_00}
	b.Run("Evaluate", func(b *testing.B) {
		for b.Loop() {
			if v := p.Evaluate(o, now); v.Decision != wallet.Allowed {
				b.Fatalf("verdict %+v", v)
			}
		}
	})
	b.Run("CreateTransaction", func(b *testing.B) {
		env := apptest.NewWith(b, apptest.Options{Chain: true, NoWorker: true})
		c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(env.FirstKey(b)))
		ctx := context.Background()
		w := c.CreateWallet(ctx, client.CreateWalletRequest{})
		require.True(b, w.OK, "%v", w.Error)
		require.True(b, c.UpdateWalletPolicy(ctx, w.Body.Wallet.ID, client.UpdateWalletPolicyRequest{DailyLimitUSD: client.DisableUSD()}).OK)
		master, err := base64.StdEncoding.DecodeString(env.EncryptionKey)
		require.NoError(b, err)
		box, err := secretbox.New(master)
		require.NoError(b, err)
		// Every send goes to the same recipient, a hundred a second: the burst screen would ask for an
		// approval after the first hundred, so the bench turns it off (the other screens stay on).
		screening := wallet.DefaultScreening()
		screening.BurstSends = 0
		store := wallet.NewStore(env.DB, box, client.ChainDev).WithScreening(screening)
		rpc, err := ethclient.Dial(env.Chain.RPCURL())
		require.NoError(b, err)
		b.Cleanup(rpc.Close)
		chain := &wallet.Chain{RPC: rpc, USDC: devchain.USDCAddress}
		var account string
		require.NoError(b, env.DB.NewRaw("SELECT account_id FROM wallets WHERE id = ?", w.Body.Wallet.ID).Scan(ctx, &account))
		var n atomic.Int64
		for b.Loop() {
			_, err := store.CreateTransaction(ctx, chain, wallet.Prices{}, wallet.NewTransaction{Scope: tenant.Scope{AccountID: account}, KeyID: "key_bench",
				WalletID: w.Body.Wallet.ID, ID: fmt.Sprintf("tx_bench%d", n.Add(1)),
				Req: client.CreateTransactionRequest{To: "0x52908400098527886E0F7030069857D2E4169EE7", Amount: "1", Asset: client.AssetUSDC}}, time.Now())
			require.NoError(b, err)
		}
	})
}
