package activities

import (
	"context"
	"errors"

	"github.com/svcplatform/svc/internal/trading"
	"github.com/svcplatform/svc/workflows"
)

// Trading are the activities of trading orders.
type Trading struct {
	// Worker records orders' ends; nil fails the activities saying so (retried until a worker has a
	// chain).
	Worker *trading.Worker
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
