package appfront

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/svcerr"
)

// The chat hand-off and transaction confirmation (seed 002: "Transaction-building permissions never
// broadcast; confirmation always goes through chat"). Both act for the app's owner, so only the owner,
// signed in, may use them: an anonymous viewer is asked to sign in (401 unauthenticated), another
// account is refused (403). The host page shows the chat panel and the Confirm / Reject buttons outside
// the app's frame, and its own actions (reading a chat job, confirming a transaction) go to HostCall,
// which the frame's messages never reach.

// Agent starts and reads agent jobs of the app owner's account (internal/agent.Service, adapted in app/).
type Agent interface {
	// Prompt starts a job with the prompt, its id jobID, and answers {jobId, threadId, status}.
	Prompt(ctx context.Context, app *App, jobID, prompt string) (json.RawMessage, error)
	// Job reads one of the owner's jobs (not_found for another account's).
	Job(ctx context.Context, app *App, id string) (json.RawMessage, error)
}

// Transactions sends a confirmed transaction from the owner's managed wallet through the wallets'
// transaction path (policy, approvals, the workflow that signs and broadcasts), exactly once per id.
type Transactions interface {
	// Prepare checks that tx can be sent (its chain, a value or data) and answers {id, address, chain}
	// of the wallet that would send it; nothing is recorded.
	Prepare(ctx context.Context, app *App, tx Tx) (json.RawMessage, error)
	// Send records and starts the send with the transaction id txID and answers
	// {status: confirmed|pending_approval|rejected|queued|broadcast|failed, transactionId, hash?}.
	Send(ctx context.Context, app *App, txID string, tx Tx) (json.RawMessage, error)
}

// Tx is a prepared transaction an app asks its owner to confirm.
type Tx struct {
	To      string `json:"to"`
	Data    string `json:"data,omitempty"`
	Value   string `json:"value,omitempty"`
	ChainID string `json:"chainId,omitempty"`
}

// ownerOnly refuses viewers other than the signed-in owner, naming the method.
func ownerOnly(method string, v Viewer) error {
	if v.Anonymous {
		return svcerr.New(svcerr.Unauthenticated, "%s acts for the app's owner: sign in as the owner (svc.auth.requireSignIn())", method).
			WithDetails("method", method)
	}
	if !v.Owner {
		return svcerr.New(svcerr.Forbidden, "%s acts for the app's owner; this viewer is another account", method).WithDetails("method", method)
	}
	return nil
}

// chatPrompt starts an agent job of the owner with the prompt and answers its job id.
func chatPrompt(ctx context.Context, s *Service, c call) (json.RawMessage, error) {
	var p struct {
		Prompt string `json:"prompt"`
	}
	if err := decode(c.params, &p); err != nil {
		return nil, err
	}
	if err := required("prompt", p.Prompt); err != nil {
		return nil, err
	}
	if err := ownerOnly(c.method, c.viewer); err != nil {
		return nil, err
	}
	if s.Agent == nil {
		return nil, notAvailable(c.method, "the agent is not configured on this server")
	}
	return s.Agent.Prompt(ctx, c.app, ids.New(ids.AgentJob), p.Prompt)
}

// confirmParams are confirmTransaction's params.
type confirmParams struct {
	Tx          json.RawMessage `json:"tx"`
	Description string          `json:"description"`
}

// MaxDescription bounds a confirmation's description, in bytes.
const MaxDescription = 500

// confirmTransaction checks a prepared transaction and answers what the host page shows the owner:
// the transaction, its description, the wallet that would send it, and a confirmation token that
// binds them (the host page's Confirm sends that token; the app never sees it and cannot confirm).
// Nothing is signed or sent here.
func confirmTransaction(ctx context.Context, s *Service, c call) (json.RawMessage, error) {
	var p confirmParams
	if err := decode(c.params, &p); err != nil {
		return nil, err
	}
	tx, err := checkTx(p.Tx)
	if err != nil {
		return nil, err
	}
	if len(p.Description) > MaxDescription {
		return nil, svcerr.Invalid("params.description", "params.description has at most %d bytes", MaxDescription)
	}
	if err := ownerOnly(c.method, c.viewer); err != nil {
		return nil, err
	}
	if s.Transactions == nil {
		return nil, notAvailable(c.method, "managed wallets' transactions are not configured on this server")
	}
	w, err := s.Transactions.Prepare(ctx, c.app, tx)
	if err != nil {
		return nil, err
	}
	id := ids.New(ConfirmationPrefix)
	token, exp, err := s.Signer.IssueConfirmation(c.app.AccountID, c.app.Slug, c.viewer.AccountID, id, tx, p.Description)
	if err != nil {
		return nil, err
	}
	return marshal(map[string]any{"confirmationId": id, "token": token, "expiresAt": exp, "tx": tx,
		"description": p.Description, "wallet": w})
}

// ConfirmationPrefix names a confirmation of a transaction (cfm_…).
const ConfirmationPrefix = "cfm"

// checkTx strictly reads tx {to, data?, value?, chainId?}: to a 0x address, data 0x hex, value wei
// (a decimal or 0x string, or a number), chainId a number or a decimal or 0x string.
func checkTx(raw json.RawMessage) (Tx, error) {
	var tx struct {
		To      string          `json:"to"`
		Data    string          `json:"data"`
		Value   json.RawMessage `json:"value"`
		ChainID json.RawMessage `json:"chainId"`
	}
	if len(raw) == 0 {
		return Tx{}, svcerr.Invalid("params.tx", "params.tx is required: {to, data?, value?, chainId?}")
	}
	if err := decode(raw, &tx); err != nil {
		if e, ok := err.(*svcerr.Error); ok && strings.HasPrefix(e.Param, "params.") {
			e.Param = "params.tx." + strings.TrimPrefix(e.Param, "params.")
			e.Message = strings.Replace(e.Message, "params.", "params.tx.", 1)
		}
		return Tx{}, err
	}
	if !isHex(tx.To, 40) {
		return Tx{}, svcerr.Invalid("params.tx.to", "params.tx.to must be a 0x address")
	}
	out := Tx{To: tx.To, Data: tx.Data}
	if tx.Data != "" && (!isHex(tx.Data, -1) || len(tx.Data)%2 != 0) {
		return Tx{}, svcerr.Invalid("params.tx.data", "params.tx.data must be 0x-prefixed hex bytes")
	}
	value, err := bigParam("params.tx.value", tx.Value)
	if err != nil {
		return Tx{}, err
	}
	if value != nil {
		out.Value = value.String()
	}
	chain, err := bigParam("params.tx.chainId", tx.ChainID)
	if err != nil {
		return Tx{}, err
	}
	if chain != nil {
		out.ChainID = chain.String()
	}
	return out, nil
}

// bigParam reads a non-negative integer given as a number or a decimal or 0x string (nil when absent).
func bigParam(field string, raw json.RawMessage) (*big.Int, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		var n json.Number
		if err := json.Unmarshal(raw, &n); err != nil {
			return nil, svcerr.Invalid(field, "%s must be an integer (a number or a decimal or 0x string)", field)
		}
		s = n.String()
	}
	n, ok := new(big.Int).SetString(strings.TrimSpace(s), 0)
	if !ok || n.Sign() < 0 {
		return nil, svcerr.Invalid(field, "%s must be a non-negative integer, not %q", field, s)
	}
	return n, nil
}

// isHex reports whether s is 0x and hex digits (exactly n of them when n ≥ 0).
func isHex(s string, n int) bool {
	if !strings.HasPrefix(s, "0x") || (n >= 0 && len(s) != n+2) {
		return false
	}
	return strings.Trim(s[2:], "0123456789abcdefABCDEF") == ""
}

// HostMethods are the host page's own actions: never on the frame's allowlist (Methods), so nothing an
// app sends reaches them; the host page performs them when the person acts on its chat panel.
var HostMethods = map[string]Method{
	"chat.job":            {Where: OnServer, Permission: "invoke:agent", Params: map[string]string{"jobId": "string"}},
	"transaction.confirm": {Where: OnServer, Permission: "prepare:transaction", Params: map[string]string{"token": "string"}},
}

// HostCall performs one of the host page's own actions for the viewer of app.
func (s *Service) HostCall(ctx context.Context, app *App, v Viewer, method string, params json.RawMessage) (json.RawMessage, error) {
	m, ok := HostMethods[method]
	if !ok {
		return nil, (&svcerr.Error{Code: svcerr.InvalidRequest, Param: "method",
			Message: fmt.Sprintf("%q is not an action of the host page (chat.job, transaction.confirm)", method)}).WithDetails("method", method)
	}
	if err := permitted(app, method, m); err != nil {
		return nil, err
	}
	if err := ownerOnly(method, v); err != nil {
		return nil, err
	}
	if method == "chat.job" {
		return s.chatJob(ctx, app, params)
	}
	return s.confirm(ctx, app, v, params)
}

// chatJob reads an agent job the chat panel started.
func (s *Service) chatJob(ctx context.Context, app *App, params json.RawMessage) (json.RawMessage, error) {
	var p struct {
		JobID string `json:"jobId"`
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if err := required("jobId", p.JobID); err != nil {
		return nil, err
	}
	if s.Agent == nil {
		return nil, notAvailable("chat.job", "the agent is not configured on this server")
	}
	return s.Agent.Job(ctx, app, p.JobID)
}

// confirm sends the transaction a confirmation token names, the owner having pressed Confirm: its
// wallet transaction's id derives from the confirmation, so a second press (or a retried request)
// answers the same transaction and sends nothing more.
func (s *Service) confirm(ctx context.Context, app *App, v Viewer, params json.RawMessage) (json.RawMessage, error) {
	var p struct {
		Token string `json:"token"`
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if err := required("token", p.Token); err != nil {
		return nil, err
	}
	cf, err := s.Signer.VerifyConfirmation(p.Token, app.AccountID, app.Slug, v.AccountID)
	if err != nil {
		return nil, err
	}
	if s.Transactions == nil {
		return nil, notAvailable("transaction.confirm", "managed wallets' transactions are not configured on this server")
	}
	return s.Transactions.Send(ctx, app, ids.Derive(ids.WalletTransaction, "appfront", app.ID, cf.ID), cf.Tx)
}
