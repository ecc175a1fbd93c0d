// Package ids makes the prefixed identifiers every resource carries (run_..., key_..., req_...).
package ids

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"strings"
)

// Prefixes of the identifiers in use.
const (
	Account    = "acct"
	APIKey     = "key"
	Project    = "proj"
	Run        = "run"
	Approval   = "apr"
	Artifact   = "art"
	Event      = "evt"
	Request    = "req"
	AuditEvent = "aud"
	TopUp      = "tu"
	Receipt    = "rcpt"
	File       = "file"
	// FileReservation names the storage quota held for one upload while it streams.
	FileReservation = "fres"
	// DatabaseTransfer names an export or import of an account's managed database.
	DatabaseTransfer = "xfer"
	// Automation names a cron-driven series of runs.
	Automation = "auto"
	// Wallet names a managed wallet.
	Wallet = "wal"
	// Quote names a quoted send or signature of a wallet.
	Quote = "quo"
	// WalletTransaction names an outbound transaction of a wallet.
	WalletTransaction = "tx"
	// WalletSignature names a message or transaction signature of a wallet.
	WalletSignature = "sig"
	// Partner names an organisation-level partner key (X-Partner-Key).
	Partner = "ptn"
	// TokenLaunch names a token launch (POST /token-launches/deploy); CONTRACT.md fixes lnch_.
	TokenLaunch = "lnch"
	// FeeClaim names a managed wallet's fee claim (POST /token-launches/{tokenAddress}/fees/claim);
	// CONTRACT.md fixes fclm_.
	FeeClaim = "fclm"
	// BeneficiaryTransfer names a managed wallet's beneficiary transfer (POST /user/amm/execute-transfer-beneficiary).
	BeneficiaryTransfer = "bnt"
	// TradingOrder names a spot order of managed trading (POST /v1/trading/orders).
	TradingOrder = "ord"
	// Handoff names a file or task handoff to another machine through the vault (POST /api/handoff).
	Handoff = "hnd"
	// CodeProject names a record of the code-project registry (POST /api/projects).
	CodeProject = "cpj"
	// AgentJob names an agent job (POST /agent/prompt), AgentThread its thread and AgentStep one of its
	// steps.
	AgentJob    = "job"
	AgentThread = "thr"
	AgentStep   = "stp"
	// AppScriptRun names a run of an app's script (issue 26, workflow appscript/<id>).
	AppScriptRun = "arun"
	// EmailSignIn names an attempt to sign in by email with a one-time code (issue 27).
	EmailSignIn = "otp"
)

var encoding = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// New returns prefix_ followed by 26 characters of 128 random bits.
func New(prefix string) string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return prefix + "_" + encoding.EncodeToString(b[:])
}

// Derive returns an identifier determined by its parts: the same parts always give the same id. It lets
// an idempotent request that is retried after a crash find the resource its first attempt created.
func Derive(prefix string, parts ...string) string {
	h := sha256.New()
	h.Write([]byte(prefix))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return prefix + "_" + encoding.EncodeToString(h.Sum(nil)[:16])
}

// HasPrefix reports whether id looks like an identifier of the given prefix.
func HasPrefix(id, prefix string) bool {
	return strings.HasPrefix(id, prefix+"_") && len(id) > len(prefix)+1
}
