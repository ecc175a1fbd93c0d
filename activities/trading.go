package activities

import (
	"context"
	"errors"
	"time"

	"github.com/svcplatform/svc/internal/trading"
	"github.com/svcplatform/svc/workflows"
)

// Trading are the activities of trading orders.
type Trading struct {
	// Worker records orders' ends; nil fails the activities saying so (retried until a worker has a
	// chain).
	Worker *trading.Worker
	// Orders fires limit and stop orders (records their wallet transactions); nil fails FireOrder
	// saying so (retried until a worker has managed wallets and a chain).
	Orders *trading.Service
}

var errNoTrading = errors.New("this worker has no chain for trading orders")

// OrderApproveConfirmed says whether the order's approve confirmed (retried until it has ended).
func (t *Trading) OrderApproveConfirmed(ctx context.Context, orderID string) (bool, error) {
	if t.Worker == nil {
		return false, errNoTrading
	}
	return t.Worker.ApproveConfirmed(ctx, orderID)
}

// FinishOrder records the order's end once its swap has ended (retried until then).
func (t *Trading) FinishOrder(ctx context.Context, end workflows.OrderEnd) error {
	if t.Worker == nil {
		return errNoTrading
	}
	return t.Worker.Finish(ctx, end)
}

// WatchOrder reads whether a limit or stop order's trigger is reached at the pool's price now.
func (t *Trading) WatchOrder(ctx context.Context, orderID string) (workflows.OrderWatch, error) {
	if t.Worker == nil {
		return workflows.OrderWatch{}, errNoTrading
	}
	return t.Worker.Watch(ctx, orderID)
}

// FireOrder records a reached limit or stop order's wallet transactions and answers its market path.
func (t *Trading) FireOrder(ctx context.Context, orderID string) (workflows.OrderFire, error) {
	if t.Orders == nil {
		return workflows.OrderFire{}, errNoTrading
	}
	return t.Orders.Fire(ctx, orderID, time.Now())
}

// StopOrder records a limit or stop order that never fired cancelled or expired.
func (t *Trading) StopOrder(ctx context.Context, s workflows.OrderStop) error {
	if t.Worker == nil {
		return errNoTrading
	}
	return t.Worker.Stop(ctx, s)
}

// PlaceSlice records one slice of a twap or dca order (a child market order priced afresh, with its
// wallet transactions) and answers its market path.
func (t *Trading) PlaceSlice(ctx context.Context, s workflows.OrderSlice) (workflows.OrderFire, error) {
	if t.Orders == nil {
		return workflows.OrderFire{}, errNoTrading
	}
	return t.Orders.PlaceSlice(ctx, s, time.Now())
}

// EndParent records a twap or dca order's end once its child orders have ended (retried until then).
func (t *Trading) EndParent(ctx context.Context, e workflows.ParentEnd) error {
	if t.Orders == nil {
		return errNoTrading
	}
	return t.Orders.EndParent(ctx, e)
}
