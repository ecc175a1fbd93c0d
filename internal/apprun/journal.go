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

// journalled are the methods whose effect must happen once per run: their answers are stored, and a
// retried run (its worker died) is answered from the journal instead of performing them again. Reads
// are performed again (secrets.get in particular is never stored).
var journalled = []string{"appKV.set", "appKV.delete", "files.write", "agent.ask", "http.fetch"}

// journal wraps a Host: it numbers every call of the run and stores the answers of journalled methods.
type journal struct {
	db    bun.IDB
	runID string
	host  *Host
	n     int
	// after, when set, is called once a journalled call's answer is stored (the crash test's fault).
	after func(ctx context.Context)
}

// Call implements appscript.Host.
func (j *journal) Call(ctx context.Context, method string, args []json.RawMessage) (json.RawMessage, error) {
	j.n++
	if !slices.Contains(journalled, method) {
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
