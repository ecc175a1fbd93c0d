package feeindex

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// isNoRows reports a query that found no row.
func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// record stores b and moves the cursor from last to to in one transaction. The cursor moves only from
// where the step found it: when another indexer moved it first, nothing is stored and ErrRaced returned.
func (ix *Indexer) record(ctx context.Context, last, to int64, b batch) error {
	return ix.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := ix.moveCursor(ctx, tx, last, to); err != nil {
			return err
		}
		for _, p := range b.pools {
			if err := insertPool(ctx, tx, ix.key, p); err != nil {
				return err
			}
		}
		for _, e := range b.events {
			if err := insertEvent(ctx, tx, e); err != nil {
				return err
			}
		}
		return nil
	})
}

// moveCursor moves the cursor row from last to to (creating it when the index is empty), or answers
// ErrRaced when it is no longer at last. The row lock it takes makes a racing step wait, then fail.
func (ix *Indexer) moveCursor(ctx context.Context, tx bun.Tx, last, to int64) error {
	res, err := tx.ExecContext(ctx, `INSERT INTO fee_index_cursors (manager, chain_id, last_block) VALUES (?, ?, ?)
		ON CONFLICT (manager) DO UPDATE SET last_block = EXCLUDED.last_block, updated_at = now()
		WHERE fee_index_cursors.last_block = ?`, ix.key, ix.opts.ChainID, to, last)
	if err != nil {
		return fmt.Errorf("move the fee index cursor to %d: %w", to, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("move the fee index cursor to %d: %w", to, err)
	}
	if n == 0 {
		return ErrRaced
	}
	return nil
}

// insertPool stores a launched pool and its first beneficiaries.
func insertPool(ctx context.Context, tx bun.Tx, manager string, p poolRow) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO fee_pools (pool_id, manager, token, pool, token0, token1, creator, creator_beneficiary,
		name, symbol, launch_block, launch_tx, launched_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		p.PoolID, manager, p.Token, p.Pool, p.Token0, p.Token1, p.Creator, p.Creator, p.Name, p.Symbol, p.Block, p.Tx, p.At)
	if err != nil {
		return fmt.Errorf("record pool %s: %w", p.PoolID, err)
	}
	for _, b := range p.Beneficiaries {
		if err := addBeneficiary(ctx, tx, p.PoolID, b); err != nil {
			return err
		}
	}
	return nil
}

// addBeneficiary records that b has held shares of poolID.
func addBeneficiary(ctx context.Context, tx bun.Tx, poolID, b string) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO fee_beneficiaries (pool_id, beneficiary) VALUES (?, ?) ON CONFLICT DO NOTHING`, poolID, b); err != nil {
		return fmt.Errorf("record beneficiary %s of pool %s: %w", b, poolID, err)
	}
	return nil
}

// insertEvent stores e once; an UpdateBeneficiary also records its recipient and moves the pool's creator
// beneficiary when the creator beneficiary gave its shares away.
func insertEvent(ctx context.Context, tx bun.Tx, e eventRow) error {
	res, err := tx.ExecContext(ctx, `INSERT INTO fee_events (block_number, block_hash, tx_hash, log_index, kind, pool_id, beneficiary,
		old_beneficiary, amount0, amount1, shares, swap_amount0, swap_amount1, block_time)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?::numeric, ?::numeric, ?::numeric, ?::numeric, ?::numeric, ?)
		ON CONFLICT DO NOTHING`,
		e.Block, e.BlockHash, e.TxHash, e.LogIndex, e.Kind, e.PoolID, e.Beneficiary, e.OldBeneficiary, e.Amount0, e.Amount1, e.Shares,
		e.SwapAmount0, e.SwapAmount1, e.At)
	if err != nil {
		return fmt.Errorf("record %s event %s#%d: %w", e.Kind, e.TxHash, e.LogIndex, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 || e.Kind != "update_beneficiary" {
		return err
	}
	if err := addBeneficiary(ctx, tx, e.PoolID, *e.Beneficiary); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE fee_pools SET creator_beneficiary = ? WHERE pool_id = ? AND creator_beneficiary = ?`,
		*e.Beneficiary, e.PoolID, *e.OldBeneficiary); err != nil {
		return fmt.Errorf("move the creator beneficiary of pool %s: %w", e.PoolID, err)
	}
	return nil
}

// lockKey names the advisory lock that elects the one indexer of a schema's index.
const lockKey = "svc/feeindex/"

// Run indexes until ctx ends, as the one indexer of the database's schema: it waits for a session
// advisory lock on its own connection, then steps until caught up, waits Interval, and so on. Errors are
// logged and retried after Interval.
func (ix *Indexer) Run(ctx context.Context) {
	for ctx.Err() == nil {
		if err := ix.runLocked(ctx); err != nil && ctx.Err() == nil {
			ix.opts.Logger.Warn("fee indexer", "err", err)
		}
		sleep(ctx, ix.opts.Interval)
	}
}

// runLocked takes the advisory lock (returning at once when another process holds it) and indexes while
// holding it, until ctx ends or a step fails.
func (ix *Indexer) runLocked(ctx context.Context) error {
	conn, err := ix.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("fee indexer connection: %w", err)
	}
	defer conn.Close()
	var got bool
	if err := conn.QueryRowContext(ctx, "SELECT pg_try_advisory_lock(hashtextextended(? || current_schema() || ?, 0))",
		lockKey, "/"+ix.key).Scan(&got); err != nil {
		return fmt.Errorf("fee indexer lock: %w", err)
	}
	if !got {
		return nil
	}
	defer func() {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_, _ = conn.ExecContext(uctx, "SELECT pg_advisory_unlock(hashtextextended(? || current_schema() || ?, 0))", lockKey, "/"+ix.key)
	}()
	for ctx.Err() == nil {
		done, err := ix.Step(ctx)
		if err != nil && !errors.Is(err, ErrRaced) {
			return err
		}
		if done {
			sleep(ctx, ix.opts.Interval)
		}
		if err := conn.PingContext(ctx); err != nil && ctx.Err() == nil {
			return fmt.Errorf("fee indexer lock connection: %w", err)
		}
	}
	return nil
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
