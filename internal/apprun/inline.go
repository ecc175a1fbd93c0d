package apprun

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"time"
)

// DefaultInlineBudget bounds the wall time of an inline attempt: a script still running then is handed
// to its workflow.
const DefaultInlineBudget = 100 * time.Millisecond

// Inline executes runs in the API process while they make no platform call. A script that returns
// before its first platform call has no effect outside its own result, so there is nothing to make
// exactly-once: its run is recorded finished, without a workflow, in the request that started it (a
// request that dies meanwhile recorded nothing, and its retry runs it again). At its first platform call,
// or when the budget runs out, the attempt is abandoned (uncatchably interrupted, its result discarded)
// and the run is recorded and executed durably by workflow appscript/<id>, from the start.
type Inline struct {
	// Engine is the sandboxed engine (the worker's kind, with the same caps).
	Engine Engine
	// Budget bounds an attempt's wall time (DefaultInlineBudget when zero).
	Budget time.Duration
}

// errHandedOver is what a platform call of an inline attempt throws while the attempt is interrupted.
var errHandedOver = errors.New("this run makes platform calls: it continues durably in its workflow")

// handOver is the Host of an inline attempt: its first call marks the attempt handed over and ends it.
type handOver struct {
	called atomic.Bool
	stop   context.CancelFunc
}

// Call implements Caller.
func (h *handOver) Call(context.Context, string, []json.RawMessage) (json.RawMessage, error) {
	h.called.Store(true)
	h.stop()
	return nil, errHandedOver
}

// try executes the script inline; ok is false when the run must go to its workflow instead (a platform
// call, the budget ran out, the request ended, or an engine fault).
func (in *Inline) try(ctx context.Context, s Script, env Env) (Result, bool) {
	actx, cancel := context.WithTimeout(ctx, cmpDuration(in.Budget, DefaultInlineBudget))
	defer cancel()
	host := &handOver{stop: cancel}
	env.Host = host
	res, err := in.Engine.Run(actx, s, env)
	if err != nil || host.called.Load() || actx.Err() != nil {
		return Result{}, false
	}
	return res, true
}
