package apprun

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/schema"
)

// unjournalled are the methods whose answers are never stored: secret values stay out of the database.
// Every other call's answer is stored, reads included: a retried run (its worker died) is answered the
// calls its first attempt made from the journal, so it sees what that attempt saw and repeats no write.
var unjournalled = []string{"secrets.get", "secrets.status"}

// journal wraps a Host: it numbers every call of the run and stores the answers (see unjournalled).
type journal struct {
	db    bun.IDB
	runID string
	host  *Host
	n     int
	// after, when set, is called once a call's answer is stored (the crash test's fault).
	after func(ctx context.Context)
}

// Call implements appscript.Host.
func (j *journal) Call(ctx context.Context, method string, args []json.RawMessage) (json.RawMessage, error) {
	j.n++
	if slices.Contains(unjournalled, method) {
		return j.host.Call(ctx, method, args)
	}
	hash := argsHash(args)
	prev, err := j.recorded(ctx, j.n)
	if err != nil {
		return nil, err
	}
	if prev != nil {
		if prev.Method != method || prev.ArgsHash != hash {
			return nil, fmt.Errorf("call %d of the retried run is %s, not the journalled %s: the script is not deterministic", j.n, method, prev.Method)
		}
		if prev.Error != nil {
			return nil, errors.New(*prev.Error)
		}
		return prev.Result, nil
	}
	out, callErr := j.host.Call(ctx, method, args)
	if err := j.store(ctx, method, hash, out, callErr); err != nil {
		return nil, err
	}
	if j.after != nil {
		j.after(ctx)
	}
	return out, callErr
}

// recorded is the journal's call n of the run, or nil.
func (j *journal) recorded(ctx context.Context, n int) (*schema.AppScriptRunCall, error) {
	c := new(schema.AppScriptRunCall)
	err := j.db.NewSelect().Model(c).Where("run_id = ? AND n = ?", j.runID, n).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read call %d of run %s: %w", n, j.runID, err)
	}
	return c, nil
}

// store records call n's answer.
func (j *journal) store(ctx context.Context, method, hash string, out json.RawMessage, callErr error) error {
	c := &schema.AppScriptRunCall{RunID: j.runID, N: j.n, Method: method, ArgsHash: hash, Result: out}
	if callErr != nil {
		msg := callErr.Error()
		c.Error, c.Result = &msg, nil
	}
	if _, err := j.db.NewInsert().Model(c).On("CONFLICT (run_id, n) DO NOTHING").Exec(ctx); err != nil {
		return fmt.Errorf("journal call %d (%s) of run %s: %w", j.n, method, j.runID, err)
	}
	return nil
}

// argsHash identifies a call's arguments.
func argsHash(args []json.RawMessage) string {
	h := sha256.New()
	for _, a := range args {
		h.Write(a)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}
