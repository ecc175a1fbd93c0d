package sponsor_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/sponsor"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/testdb"
	"github.com/svcplatform/svc/schema"
)

func reserve(ctx context.Context, db *bun.DB, txID, walletID string, now time.Time) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		return sponsor.Reserve(ctx, tx, sponsor.Request{TransactionID: txID, WalletID: walletID, AccountID: "acct_a",
			To: common.HexToAddress("0x01"), Purpose: "test"}, now)
	})
}

// TestReserveOncePerTransactionAndTenPerWalletPerDay: a transaction is reserved once however often it
// is asked; a wallet's eleventh transaction of a UTC day is 429 naming the limit, another wallet's and
// the next day's are not.
func TestReserveOncePerTransactionAndTenPerWalletPerDay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	_, err := db.ExecContext(ctx, `INSERT INTO accounts (id, name) VALUES ('acct_a', 'a')`)
	require.NoError(t, err)
	day := time.Date(2026, 11, 26, 23, 0, 0, 0, time.UTC)
	for i := range sponsor.DailyLimit {
		require.NoError(t, reserve(ctx, db, fmt.Sprintf("tx_%d", i), "wal_a", day))
		require.NoError(t, reserve(ctx, db, fmt.Sprintf("tx_%d", i), "wal_a", day), "a replay is fine")
	}
	n, err := db.NewSelect().Model((*schema.GasSponsorship)(nil)).Where("wallet_id = 'wal_a'").Count(ctx)
	require.NoError(t, err)
	require.EqualValues(t, sponsor.DailyLimit, n)
	err = reserve(ctx, db, "tx_over", "wal_a", day)
	e, ok := svcerr.As(err)
	require.True(t, ok, "%v", err)
	require.Equal(t, http.StatusTooManyRequests, svcerr.Status(e.Code))
	require.Equal(t, "gas_sponsorships_per_day", e.Details["limit"])
	require.NoError(t, reserve(ctx, db, "tx_other", "wal_b", day), "another wallet")
	require.NoError(t, reserve(ctx, db, "tx_over", "wal_a", day.Add(2*time.Hour)), "the next UTC day")
}
