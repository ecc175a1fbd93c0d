package app

import (
	"context"
	"encoding/json"
	"math/big"
	"time"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/agent"
	"github.com/svcplatform/svc/internal/apikey"
	"github.com/svcplatform/svc/internal/appfront"
	"github.com/svcplatform/svc/internal/apps"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/schema"
)

// App frontends' chat hand-off and transaction confirmation: the owner's agent jobs and the owner's
// managed wallet, acting as the app's key (the key that last wrote its manifest, as its runs do).

// actingKey is the app's acting key; an app no key wrote cannot act (refused naming the method).
func actingKey(ctx context.Context, store *apps.Store, a *appfront.App, method string) (string, error) {
	key, err := store.ActingKey(ctx, a.Scope, a.Slug)
	if err != nil {
		return "", err
	}
	if key == "" {
		return "", svcerr.New(svcerr.Forbidden, "%s acts as the API key that wrote app %s's manifest.json, and no key wrote it: "+
			"write the manifest with an API key (svc apps create)", method, a.Slug).WithDetails("method", method)
	}
	return key, nil
}

// frontAgent adapts agent.Service to appfront.Agent: the owner's jobs, as the app's key.
type frontAgent struct {
	agent *agent.Service
	apps  *apps.Store
}

// Prompt starts the owner's agent job with the prompt.
func (f frontAgent) Prompt(ctx context.Context, a *appfront.App, jobID, prompt string) (json.RawMessage, error) {
	key, err := actingKey(ctx, f.apps, a, "chat.prompt")
	if err != nil {
		return nil, err
	}
	ref, err := f.agent.Prompt(ctx, agent.PromptRequest{Scope: a.Scope, KeyID: key, JobID: jobID,
		Body: client.AgentPromptRequest{Prompt: prompt}}, time.Now())
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]string{"jobId": ref.ID, "threadId": ref.ThreadID, "status": ref.Status})
}

// Job reads the owner's job: its status, answer and error (not its steps).
func (f frontAgent) Job(ctx context.Context, a *appfront.App, id string) (json.RawMessage, error) {
	job, err := f.agent.Get(ctx, a.Scope, id)
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]any{"jobId": job.ID, "status": job.Status, "answer": job.Answer, "error": job.Error})
}

// confirmWait is how long a confirmed send is followed before answering its status as it then is.
const confirmWait = 30 * time.Second

// frontTransactions adapts the wallets' transaction path to appfront.Transactions: the owner's first
// managed wallet sends, judged by its policy (a send the policy holds waits for its approval).
type frontTransactions struct {
	wallets *wallet.Store
	chain   *wallet.Chain
	starts  *wallet.Starts
	prices  wallet.Prices
	apps    *apps.Store
	keys    *apikey.Store
	chainID *big.Int
}

// Prepare checks the send of tx and answers the wallet that would send it: {id, address, chain}.
func (f frontTransactions) Prepare(ctx context.Context, a *appfront.App, tx appfront.Tx) (json.RawMessage, error) {
	if _, err := f.request(tx); err != nil {
		return nil, err
	}
	w, err := firstWallet(ctx, f.wallets, a.Scope)
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]string{"id": w.ID, "address": w.Address, "chain": w.Chain})
}

// Send records the send (its id txID: a second Confirm of the same confirmation answers the same
// transaction), starts its workflow and follows it for up to confirmWait.
func (f frontTransactions) Send(ctx context.Context, a *appfront.App, txID string, tx appfront.Tx) (json.RawMessage, error) {
	req, err := f.request(tx)
	if err != nil {
		return nil, err
	}
	key, err := actingKey(ctx, f.apps, a, "confirmTransaction")
	if err != nil {
		return nil, err
	}
	holder, err := f.keys.Holder(ctx, key) // a revoked key sends nothing; its recipient allowlist applies
	if err != nil {
		return nil, err
	}
	if err := apikey.CheckRecipient(holder.Key, tx.To); err != nil {
		return nil, err
	}
	w, err := firstWallet(ctx, f.wallets, a.Scope)
	if err != nil {
		return nil, err
	}
	t, err := f.wallets.CreateTransaction(ctx, f.chain, f.prices, wallet.NewTransaction{Scope: a.Scope, KeyID: key, WalletID: w.ID,
		ID: txID, Req: req}, time.Now())
	if err != nil {
		return nil, err
	}
	if err := f.starts.Start(ctx, t); err != nil {
		return nil, err
	}
	if t, err = f.follow(ctx, a, t); err != nil {
		return nil, err
	}
	out := map[string]any{"status": t.Status, "transactionId": t.ID, "walletId": t.WalletID}
	if t.TxHash != nil {
		out["hash"] = *t.TxHash
	}
	return json.Marshal(out)
}

// request is the wallet send of a prepared transaction: its value in the native asset, its data.
func (f frontTransactions) request(tx appfront.Tx) (client.CreateTransactionRequest, error) {
	if tx.ChainID != "" && f.chainID != nil && tx.ChainID != f.chainID.String() {
		return client.CreateTransactionRequest{}, svcerr.Invalid("params.tx.chainId", "params.tx.chainId is %s; the platform's wallets are on chain %s", tx.ChainID, f.chainID)
	}
	value := new(big.Int)
	if tx.Value != "" {
		value.SetString(tx.Value, 10)
	}
	if value.Sign() == 0 && tx.Data == "" {
		return client.CreateTransactionRequest{}, svcerr.Invalid("params.tx.value", "a transaction without data moves a value: params.tx.value is required")
	}
	return client.CreateTransactionRequest{To: tx.To, Amount: wallet.FormatUnits(value, 18), Asset: client.AssetNative, Data: tx.Data}, nil
}

// follow re-reads the send until it is confirmed, failed, rejected or waits for an approval, or
// confirmWait passes.
func (f frontTransactions) follow(ctx context.Context, a *appfront.App, t *schema.WalletTransaction) (*schema.WalletTransaction, error) {
	deadline := time.Now().Add(confirmWait)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		switch t.Status {
		case schema.WalletTxConfirmed, schema.WalletTxFailed, schema.WalletTxRejected, schema.WalletTxPendingApproval:
			return t, nil
		}
		if time.Now().After(deadline) {
			return t, nil
		}
		select {
		case <-ctx.Done():
			return t, nil
		case <-tick.C:
		}
		next, err := f.wallets.Transaction(ctx, a.Scope, t.WalletID, t.ID)
		if err != nil {
			return nil, err
		}
		t = next
	}
}
