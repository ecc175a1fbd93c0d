package trading

import (
	"context"
	"fmt"
	"math/big"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/schema"
)

// Allowances of concurrent orders.
//
// An ERC-20 approve sets the router's allowance; it does not add to it. Two orders of one wallet paying
// the same token, each approving only its own amount, would leave the second swap short when the first
// approve is mined after the second's check, or when the second saw the first's allowance and sent
// none. So the decision is taken under a lock per wallet and token, against what the wallet's orders
// whose swaps have not ended may still take (their outstanding amounts, this order's included): the
// approve, when the allowance falls short of that, is for all of it. The residue: two approves in
// flight at once are mined in the order their nonces were taken, which is usually the order they were
// recorded in; when it is not, the later order's swap may revert and fail, taking nothing.

// allowanceLockKey is the advisory lock key (a string hashed by PostgreSQL) of a wallet's allowance of
// a token.
func allowanceLockKey(walletID, token string) string {
	return "trading-allowance:" + walletID + ":" + token
}

// withAllowanceLock runs f holding the wallet's lock for token's allowance (a session advisory lock on a
// connection held for the call), so that concurrent orders decide their approves one at a time.
func (s *Service) withAllowanceLock(ctx context.Context, walletID, token string, f func() error) error {
	conn, err := s.DB.Conn(ctx)
	if err != nil {
		return fmt.Errorf("hold a connection for the allowance lock: %w", err)
	}
	defer func() { _ = conn.Close() }()
	key := allowanceLockKey(walletID, token)
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(hashtext(?))", key); err != nil {
		return fmt.Errorf("lock the allowance of wallet %s: %w", walletID, err)
	}
	defer func() {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock(hashtext(?))", key)
	}()
	return f()
}

// outstanding is the most the swaps of wallet walletID's orders paying token (path[1]) that have not
// ended may still take, order o's own included.
func outstanding(ctx context.Context, db bun.IDB, o *schema.TradingOrder, token string) (*big.Int, error) {
	var others []schema.TradingOrder
	err := db.NewSelect().Model(&others).ModelTableExpr("trading_orders AS o").Column("o.id", "o.amount_kind", "o.amount_in", "o.bound").
		Join("JOIN wallet_transactions AS t ON t.id = o.swap_tx_id").
		Where("o.wallet_id = ? AND o.id <> ? AND lower(o.path[1]) = lower(?)", o.WalletID, o.ID, token).
		Where("t.status IN (?)", bun.List([]string{schema.WalletTxPendingApproval, schema.WalletTxQueued, schema.WalletTxBroadcast})).
		Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the outstanding orders of wallet %s: %w", o.WalletID, err)
	}
	sum := new(big.Int).Set(maxIn(o))
	for i := range others {
		sum.Add(sum, maxIn(&others[i]))
	}
	return sum, nil
}
