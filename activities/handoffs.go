package activities

import (
	"context"
	"errors"

	"github.com/svcplatform/svc/internal/handoff"
	"github.com/svcplatform/svc/workflows"
)

// Handoffs are the activities of handoffs.
type Handoffs struct {
	// Worker writes transfers to the worker's vault and reads their acks; nil fails the activities
	// saying so (retried until a worker has the vault).
	Worker *handoff.Worker
}

var errNoHandoffs = errors.New("this worker has no vault (SVC_VAULT) for handoffs")

// WriteHandoffTransfer writes the handoff's vault transfer and answers its id.
func (h *Handoffs) WriteHandoffTransfer(ctx context.Context, handoffID string) (string, error) {
	if h.Worker == nil {
		return "", errNoHandoffs
	}
	return h.Worker.WriteTransfer(ctx, handoffID)
}

// CheckHandoffAcks counts the acks of the handoff's transfer.
func (h *Handoffs) CheckHandoffAcks(ctx context.Context, c workflows.HandoffAckCheck) (int, error) {
	if h.Worker == nil {
		return 0, errNoHandoffs
	}
	return h.Worker.CheckAcks(ctx, c)
}

// FinishHandoff records the handoff's end and its event.
func (h *Handoffs) FinishHandoff(ctx context.Context, end workflows.HandoffEnd) error {
	if h.Worker == nil {
		return errNoHandoffs
	}
	return h.Worker.Finish(ctx, end)
}
