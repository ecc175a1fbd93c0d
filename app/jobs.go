package app

import (
	"context"
	"time"

	"github.com/svcplatform/svc/internal/beneficiary"
	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/feeclaim"
	"github.com/svcplatform/svc/internal/gateway"
	"github.com/svcplatform/svc/internal/launch"
)

// Ages after which an open hold's call must have ended: an invocation lasts at most the longest service
// timeout (a credit lease admits calls for seconds, then waits for them); a run's attempts (six, each up
// to that timeout, with backoff) well under three hours.
const (
	staleInvokeHold = gateway.MaxTimeout + 5*time.Minute
	staleRunHold    = 3 * time.Hour
)

// every calls fn every interval until ctx ends.
func every(ctx context.Context, interval time.Duration, fn func(ctx context.Context)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fn(ctx)
		}
	}
}

// releaseStaleHolds releases credit holds whose call must have ended. Several API processes may sweep
// at once: releasing a hold is a conditional update, so each is released once.
func (a *APIProcess) releaseStaleHolds(ctx context.Context) {
	if n, err := a.deps.Ledger.ReleaseStale(ctx, staleInvokeHold, staleRunHold); err != nil {
		a.log.Warn("release stale credit holds", "err", err)
	} else if n > 0 {
		a.log.Info("released stale credit holds", "count", n)
	}
}

// sweepRuns reconciles runs left unstarted by a request that died (run.Service.SweepStarts).
func (a *APIProcess) sweepRuns(ctx context.Context) {
	n, err := a.deps.Runs.SweepStarts(ctx)
	if err != nil && ctx.Err() == nil {
		a.log.Warn("reconcile unstarted runs", "err", err)
	}
	if n > 0 {
		a.log.Info("reconciled unstarted runs", "count", n)
	}
}

// walletSendSettle is how long a recorded send (or signature) may wait for its request to start its workflow before
// the sweep starts it.
const walletSendSettle = time.Minute

// sweepWalletSends starts the workflows of sends and signatures a dying request recorded without
// starting (wallet.Starts.Sweep, launch.Sweep, trading.Service.Sweep, wallet.Starts.SweepSignatures).
func (a *APIProcess) sweepWalletSends(ctx context.Context) {
	if a.deps.WalletStarts == nil {
		return
	}
	n, err := a.deps.WalletStarts.Sweep(ctx, walletSendSettle, 100)
	if err != nil && ctx.Err() == nil {
		a.log.Warn("start unstarted wallet sends", "err", err)
	}
	if n > 0 {
		a.log.Info("handed wallet sends to their workflows", "count", n)
	}
	if a.deps.Launches != nil {
		n, err = launch.Sweep(ctx, a.deps.DB, a.deps.Launches.Engine, walletSendSettle, 100)
		if err != nil && ctx.Err() == nil {
			a.log.Warn("start unstarted token launches", "err", err)
		}
		if n > 0 {
			a.log.Info("handed token launches to their workflows", "count", n)
		}
	}
	if a.deps.FeeClaims != nil {
		n, err = feeclaim.Sweep(ctx, a.deps.DB, a.deps.FeeClaims.Engine, walletSendSettle, 100)
		if err != nil && ctx.Err() == nil {
			a.log.Warn("start unstarted fee claims", "err", err)
		}
		if n > 0 {
			a.log.Info("handed fee claims to their workflows", "count", n)
		}
	}
	if a.deps.Beneficiaries != nil {
		n, err = beneficiary.Sweep(ctx, a.deps.DB, a.deps.Beneficiaries.Engine, walletSendSettle, 100)
		if err != nil && ctx.Err() == nil {
			a.log.Warn("start unstarted beneficiary transfers", "err", err)
		}
		if n > 0 {
			a.log.Info("handed beneficiary transfers to their workflows", "count", n)
		}
	}
	if a.deps.Trading != nil {
		n, err = a.deps.Trading.Sweep(ctx, walletSendSettle, 100)
		if err != nil && ctx.Err() == nil {
			a.log.Warn("start unstarted trading orders", "err", err)
		}
		if n > 0 {
			a.log.Info("handed trading orders to their workflows", "count", n)
		}
	}
	n, err = a.deps.WalletStarts.SweepSignatures(ctx, walletSendSettle, 100)
	if err != nil && ctx.Err() == nil {
		a.log.Warn("start unstarted wallet signatures", "err", err)
	}
	if n > 0 {
		a.log.Info("handed wallet signatures to their workflows", "count", n)
	}
}

// purgeIdempotency deletes expired idempotency records.
func (a *APIProcess) purgeIdempotency(ctx context.Context) {
	if n, err := a.deps.Idempotency.Purge(ctx); err != nil {
		a.log.Warn("purge idempotency keys", "err", err)
	} else if n > 0 {
		a.log.Info("purged idempotency keys", "count", n)
	}
}

// releaseStorageReservations gives back the storage reserved by uploads whose process died before they
// ended (file.Store.ReleaseExpired).
func (a *APIProcess) releaseStorageReservations(ctx context.Context) {
	if n, err := a.deps.Files.ReleaseExpired(ctx); err != nil {
		a.log.Warn("release expired storage reservations", "err", err)
	} else if n > 0 {
		a.log.Info("released expired storage reservations", "count", n)
	}
}

// Windows of the file purge sweep: a delete is swept from a minute after it (its request has started
// the purge by then, or failed to) until ten minutes after; the job runs every minute.
const (
	filePurgeSettle = time.Minute
	filePurgeWindow = 10 * time.Minute
)

// sweepFilePurges starts the purge timers that deletes failed to start (file.Purges.Sweep).
func (a *APIProcess) sweepFilePurges(ctx context.Context) {
	if a.deps.FilePurges == nil {
		return
	}
	n, err := a.deps.FilePurges.Sweep(ctx, filePurgeSettle, filePurgeWindow)
	if err != nil && ctx.Err() == nil {
		a.log.Warn("sweep file purges", "err", err)
	}
	if n > 0 {
		a.log.Debug("swept file purges", "count", n)
	}
}

// OrphanGrace is how old a blob no row refers to must be before the orphan sweep deletes it, and a
// temporary file of the local store before it is removed: far longer than any write in flight (an upload
// holds its reservation for an hour, and its reservation protects its blob besides).
const OrphanGrace = 24 * time.Hour

// sweepOrphanedBlobs deletes the blobs that writes which crashed before recording their row left
// behind: files' (file.Store.SweepOrphans), artifacts' (artifact.Store.SweepOrphans) and, in a local
// store, temporary files (blob.Local.RemoveStaleTemp). Several API processes may sweep at once: deleting
// what another sweep deleted is not an error.
func (a *APIProcess) sweepOrphanedBlobs(ctx context.Context) {
	d := a.deps
	a.logSweep(ctx, "file blobs", func() (int, error) { return d.Files.SweepOrphans(ctx, d.Blobs, OrphanGrace) })
	a.logSweep(ctx, "artifact blobs", func() (int, error) { return d.Artifacts.SweepOrphans(ctx, OrphanGrace) })
	if local, ok := a.blobs.(*blob.Local); ok {
		a.logSweep(ctx, "temporary blob files", func() (int, error) {
			return local.RemoveStaleTemp(ctx, time.Now().Add(-OrphanGrace))
		})
	}
}

// logSweep runs one sweep of orphans of what and logs its count, or its failure.
func (a *APIProcess) logSweep(ctx context.Context, what string, sweep func() (int, error)) {
	n, err := sweep()
	if err != nil && ctx.Err() == nil {
		a.log.Warn("sweep orphaned "+what, "err", err)
	}
	if n > 0 {
		a.log.Info("deleted orphaned "+what, "count", n)
	}
}
