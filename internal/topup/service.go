package topup

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/x402"
	"github.com/svcplatform/svc/schema"
	svctemporal "github.com/svcplatform/svc/temporal"
	"github.com/svcplatform/svc/workflows"
)

// Engine is what the service needs of Temporal.
type Engine interface {
	ExecuteWorkflow(ctx context.Context, options sdkclient.StartWorkflowOptions, workflow any, args ...any) (sdkclient.WorkflowRun, error)
}

// DefaultWait is how long, by default, a paid purchase waits for its settlement (see Options.Wait).
const DefaultWait = 60 * time.Second

// Options tune a Service.
type Options struct {
	// X402 is what top-ups are paid in and to; nil refuses purchases (top-ups are not configured).
	X402 *x402.Config
	// Wait is how long a paid purchase waits for its settlement before Buy answers that it is still
	// settling (default DefaultWait).
	Wait time.Duration
}

// Service sells credits for x402 payments (Buy) and settles reserved top-ups through their workflows.
type Service struct {
	Store    *Store
	temporal Engine
	x402     *x402.Config
	wait     time.Duration
}

// NewService returns a Service on store that starts workflows with engine.
func NewService(store *Store, engine Engine, opts Options) *Service {
	return &Service{Store: store, temporal: engine, x402: opts.X402, wait: cmp.Or(opts.Wait, DefaultWait)}
}

// ErrPending is the error of Await when the settlement is still being confirmed as the wait ends: the
// client retries later (with the same payment) and gets the outcome; it must never be asked to pay again.
var ErrPending = errors.New("the payment's settlement is still being confirmed on chain")

// Await starts the top-up's workflow unless it is finished or running, and waits at most wait for its
// outcome: the stored top-up, credited or failed. It returns ErrPending when the wait ends first.
func (s *Service) Await(ctx context.Context, t *schema.TopUp, wait time.Duration) (*schema.TopUp, error) {
	if t.Status == Credited || t.Status == Failed {
		return t, nil
	}
	opts := sdkclient.StartWorkflowOptions{
		ID:                       workflows.TopUpWorkflowID(t.ID),
		TaskQueue:                workflows.TaskQueue,
		WorkflowIDReusePolicy:    enums.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY,
		WorkflowIDConflictPolicy: enums.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		TypedSearchAttributes:    svctemporal.ResourceAttributes(t.AccountID, t.ProjectID, "credits", "x402.topUp"),
		Memo: map[string]any{"topUpId": t.ID, "receiptId": t.ReceiptID, "payer": t.Payer, "status": t.Status,
			"credits": ledger.FormatCredits(t.Millicredits)},
		StaticSummary: fmt.Sprintf("top-up %s: %s USD from %s", t.ID, formatCents(t.AmountCents), t.Payer),
	}
	run, err := s.temporal.ExecuteWorkflow(ctx, opts, workflows.TopUpWorkflowName, workflows.TopUpParams{TopUpID: t.ID})
	if err != nil {
		return nil, fmt.Errorf("start top-up %s: %w", t.ID, err)
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var res workflows.TopUpResult
	if err := run.Get(wctx, &res); err != nil {
		if ctx.Err() == nil && waitEnded(wctx, err) {
			return nil, ErrPending
		}
		return nil, fmt.Errorf("await top-up %s: %w", t.ID, err)
	}
	return s.Store.Get(ctx, t.ID)
}

// waitEnded reports whether err is the wait running out: the context's own error, or the server's
// deadline answer to the long poll, which may arrive just before the context notices.
func waitEnded(wctx context.Context, err error) bool {
	var deadline *serviceerror.DeadlineExceeded
	return wctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &deadline)
}

// formatCents renders cents as dollars ("25.50").
func formatCents(cents int64) string { return fmt.Sprintf("%d.%02d", cents/100, cents%100) }

// Offer is what top-ups are paid in and to (nil when this server sells none), for the payment-rail
// listing of GET /api/crypto/capabilities.
func (s *Service) Offer() *x402.Config {
	if s == nil {
		return nil
	}
	return s.x402
}
