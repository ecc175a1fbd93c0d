package trading

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/evm/uniswap"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// Worker does the work of the order workflow's activities.
type Worker struct {
	DB     *bun.DB
	Venue  *Venue
	Ledger *ledger.Ledger
}

// errNotEnded is an order whose wallet transaction has not ended yet (the activity is retried).
var errNotEnded = errors.New("the order's wallet transaction has not ended yet")

// errNoVenue fails the activities of a worker without a chain (retried until one has it).
var errNoVenue = errors.New("this worker has no chain for trading orders")

// ApproveConfirmed says whether order id's approve confirmed (false: it failed or was rejected); it is
// errNotEnded until the approve has ended.
func (w *Worker) ApproveConfirmed(ctx context.Context, orderID string) (bool, error) {
	o, err := w.load(ctx, orderID)
	if err != nil || o.ApproveTxID == nil {
		return err == nil, err
	}
	t, err := w.tx(ctx, *o.ApproveTxID)
	if err != nil {
		return false, err
	}
	switch t.Status {
	case schema.WalletTxConfirmed:
		return true, nil
	case schema.WalletTxFailed, schema.WalletTxRejected:
		return false, nil
	}
	return false, errNotEnded
}

// Finish records the order's end once its swap has ended: filled with the receipt's Swap events (the fee
// charged once), or failed with its reason (the fee's hold released). An abandoned swap (its approve
// failed) is ended unsent first, releasing its reserved spend.
func (w *Worker) Finish(ctx context.Context, end workflows.OrderEnd) error {
	o, err := w.load(ctx, end.OrderID)
	if err != nil || Final(o.Status) {
		return err
	}
	if end.SwapAbandoned {
		if err := (&wallet.Sender{DB: w.DB}).Finish(ctx, workflows.WalletTxEnd{TransactionID: o.SwapTxID, Status: schema.WalletTxFailed,
			ErrorCode: client.OrderReasonApproveFailed, ErrorMessage: "the approve of the router did not confirm: the swap was not sent"}); err != nil {
			return err
		}
	}
	swap, err := w.tx(ctx, o.SwapTxID)
	if err != nil {
		return err
	}
	switch swap.Status {
	case schema.WalletTxConfirmed:
		return w.filled(ctx, o, swap)
	case schema.WalletTxFailed, schema.WalletTxRejected:
		reason, msg := ReasonOf(swap)
		return w.failed(ctx, o, swap.TxHash, reason, msg)
	}
	return errNotEnded
}

// ReasonOf is the failure reason of an order whose swap t failed: slippage when the router refused the
// bound, deadline when it came too late, policy for a paused wallet, else the send's code.
func ReasonOf(t *schema.WalletTransaction) (string, string) {
	code, msg := deref(t.ErrorCode), deref(t.ErrorMessage)
	switch {
	case strings.Contains(msg, "INSUFFICIENT_OUTPUT_AMOUNT") || strings.Contains(msg, "EXCESSIVE_INPUT_AMOUNT"):
		return client.OrderReasonSlippage, "the pool moved past the order's bound: " + msg
	case strings.Contains(msg, "UniswapV2Router: EXPIRED"):
		return client.OrderReasonDeadline, msg
	case code == wallet.RulePaused:
		return client.OrderReasonPolicy, msg
	case code == "":
		return t.Status, msg
	}
	return code, msg
}

// filled records the fills of the confirmed swap and the order filled, charging its fee once.
func (w *Worker) filled(ctx context.Context, o *schema.TradingOrder, swap *schema.WalletTransaction) error {
	if w.Venue == nil || w.Venue.RPC == nil || swap.TxHash == nil {
		return errNoVenue
	}
	receipt, err := w.Venue.RPC.TransactionReceipt(ctx, common.HexToHash(*swap.TxHash))
	if err != nil {
		return fmt.Errorf("read the receipt of %s: %w", *swap.TxHash, err)
	}
	fills, err := w.fillsOf(ctx, o, receipt)
	if err != nil {
		return err
	}
	gas, err := w.gasOf(ctx, o, receipt)
	if err != nil {
		return err
	}
	if err := w.charge(ctx, o); err != nil {
		return err
	}
	now := time.Now().UTC()
	o.Status, o.SwapTxHash, o.GasWei, o.FilledAt, o.UpdatedAt = schema.OrderFilled, swap.TxHash, strPtr(gas.String()), &now, now
	if len(fills) > 0 {
		o.FilledIn, o.FilledOut = &fills[0].AmountIn, &fills[len(fills)-1].AmountOut
	}
	return w.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if len(fills) > 0 {
			if _, err := tx.NewInsert().Model(&fills).On("CONFLICT DO NOTHING").Exec(ctx); err != nil {
				return fmt.Errorf("record the fills of %s: %w", o.ID, err)
			}
		}
		return w.end(ctx, tx, o, outbox.OrderFilled, fills)
	})
}

// end records o's final columns (unless another attempt did) and its event (none when event is "").
func (w *Worker) end(ctx context.Context, tx bun.Tx, o *schema.TradingOrder, event string, fills []schema.TradingFill) error {
	res, err := tx.NewUpdate().Model(o).Column("status", "swap_tx_hash", "gas_wei", "filled_at", "filled_in", "filled_out", "failure_reason",
		"error_message", "updated_at").WherePK().Where("status NOT IN (?)", bun.List([]string{schema.OrderFilled, schema.OrderFailed,
		schema.OrderCancelled, schema.OrderExpired})).Exec(ctx)
	if err != nil {
		return fmt.Errorf("record the end of order %s: %w", o.ID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 || event == "" {
		return nil
	}
	return outbox.Emit(ctx, tx, outbox.Event{AccountID: o.AccountID, ProjectID: o.ProjectID, Type: event, Subject: o.ID,
		Data: ToWire(o, fills, w.Venue.Config)})
}

// failed records the order failed with reason, releasing its fee's hold.
func (w *Worker) failed(ctx context.Context, o *schema.TradingOrder, hash *string, reason, msg string) error {
	if err := releaseHold(ctx, w.Ledger, o); err != nil {
		return err
	}
	o.Status, o.SwapTxHash, o.FailureReason, o.ErrorMessage, o.UpdatedAt = schema.OrderFailed, hash, &reason, &msg, time.Now().UTC()
	return w.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		return w.end(ctx, tx, o, outbox.OrderFailed, nil)
	})
}

// charge settles the order's fee hold at the fee (once: a settled hold stays settled).
func (w *Worker) charge(ctx context.Context, o *schema.TradingOrder) error {
	if w.Ledger == nil || o.FeeMillicredits <= 0 {
		return nil
	}
	h, _, err := w.Ledger.FindHold(ctx, o.AccountID, HoldReference(o.ID))
	if err != nil || h.Millicredits == 0 {
		return err
	}
	_, err = w.Ledger.Settle(ctx, h, o.FeeMillicredits)
	return err
}

// fillsOf reads the Swap events of the route's pairs from the receipt, one fill per hop.
func (w *Worker) fillsOf(ctx context.Context, o *schema.TradingOrder, r *types.Receipt) ([]schema.TradingFill, error) {
	p := uniswap.NewPair()
	var fills []schema.TradingFill
	for i := 0; i+1 < len(o.Path); i++ {
		in, out := common.HexToAddress(o.Path[i]), common.HexToAddress(o.Path[i+1])
		pair, err := w.Venue.PairFor(ctx, in, out)
		if err != nil {
			return nil, err
		}
		for _, lg := range r.Logs {
			if lg.Address != pair {
				continue
			}
			ev, err := p.UnpackSwapEvent(lg)
			if err != nil {
				continue
			}
			amountIn, amountOut := ev.Amount0In, ev.Amount1Out
			if token0, _ := sortTokens(in, out); token0 != in {
				amountIn, amountOut = ev.Amount1In, ev.Amount0Out
			}
			fills = append(fills, schema.TradingFill{OrderID: o.ID, TxHash: r.TxHash.Hex(), LogIndex: int(lg.Index), Pair: pair.Hex(),
				TokenIn: in.Hex(), TokenOut: out.Hex(), AmountIn: amountIn.String(), AmountOut: amountOut.String(), BlockNumber: r.BlockNumber.Int64()})
		}
	}
	return fills, nil
}

// gasOf is what the swap and the order's approve paid for gas, in wei.
func (w *Worker) gasOf(ctx context.Context, o *schema.TradingOrder, swap *types.Receipt) (*big.Int, error) {
	total := paid(swap)
	if o.ApproveTxID == nil {
		return total, nil
	}
	t, err := w.tx(ctx, *o.ApproveTxID)
	if err != nil || t.TxHash == nil {
		return total, err
	}
	r, err := w.Venue.RPC.TransactionReceipt(ctx, common.HexToHash(*t.TxHash))
	if err != nil {
		return nil, fmt.Errorf("read the receipt of %s: %w", *t.TxHash, err)
	}
	return total.Add(total, paid(r)), nil
}

func paid(r *types.Receipt) *big.Int {
	if r.EffectiveGasPrice == nil {
		return new(big.Int)
	}
	return new(big.Int).Mul(new(big.Int).SetUint64(r.GasUsed), r.EffectiveGasPrice)
}

func (w *Worker) load(ctx context.Context, id string) (*schema.TradingOrder, error) {
	o := new(schema.TradingOrder)
	if err := w.DB.NewSelect().Model(o).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, fmt.Errorf("read order %s: %w", id, err)
	}
	return o, nil
}

func (w *Worker) tx(ctx context.Context, id string) (*schema.WalletTransaction, error) {
	t := new(schema.WalletTransaction)
	if err := w.DB.NewSelect().Model(t).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, fmt.Errorf("read wallet transaction %s: %w", id, err)
	}
	return t, nil
}

func strPtr(s string) *string { return &s }
