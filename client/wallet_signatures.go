package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"
)

// Signature types a wallet signs.
const (
	// SignPersonal is an EIP-191 personal message ("\x19Ethereum Signed Message:\n" + length + message).
	SignPersonal = "personal_sign"
	// SignTypedData is EIP-712 typed data (eth_signTypedData_v4).
	SignTypedData = "eth_signTypedData_v4"
	// SignTransaction is a transaction signed and not broadcast (eth_signTransaction).
	SignTransaction = "eth_signTransaction"
)

// Statuses of a wallet signature.
const (
	// WalletSigPendingApproval waits for an approval (kind wallet_signature) before it is signed.
	WalletSigPendingApproval = "pending_approval"
	WalletSigQueued          = "queued"
	WalletSigSigned          = "signed"
	WalletSigFailed          = "failed"
	// WalletSigRejected is a signature whose approval was rejected, expired or was cancelled.
	WalletSigRejected = "rejected"
)

// UnsignedTransaction is the transaction of an eth_signTransaction request. Amounts are in wei, as
// decimal strings or 0x hex; what is left out is filled in by the platform.
type UnsignedTransaction struct {
	To                   string  `json:"to" doc:"The recipient or contract (0x address)."`
	Value                string  `json:"value,omitempty" doc:"Wei, decimal or 0x hex; 0 when left out."`
	Data                 string  `json:"data,omitempty" doc:"Hex call data (0x…)."`
	Nonce                *uint64 `json:"nonce,omitempty" doc:"The nonce; left out, the wallet's next nonce (max of its counter and the chain's pending nonce), not reserved."`
	Gas                  *uint64 `json:"gas,omitempty" doc:"The gas limit; left out, estimated by the chain plus 20%."`
	MaxFeePerGas         string  `json:"maxFeePerGas,omitempty" doc:"Wei; left out, the chain's current fee."`
	MaxPriorityFeePerGas string  `json:"maxPriorityFeePerGas,omitempty" doc:"Wei; left out, the chain's current tip."`
	ChainID              *int64  `json:"chainId,omitempty" doc:"Must be the wallet's chain when given."`
}

// SignatureRequest is the body of POST /v1/wallets/{walletId}/signatures and …/signatures/quote.
type SignatureRequest struct {
	Type string `json:"type" enum:"personal_sign,eth_signTypedData_v4,eth_signTransaction" doc:"What is signed."`
	// Message is personal_sign's message: text, or 0x-prefixed hex for raw bytes.
	Message string `json:"message,omitempty" maxLength:"65536" doc:"personal_sign: the message as text, or 0x-prefixed hex for raw bytes."`
	// TypedData is eth_signTypedData_v4's {types, primaryType, domain, message}, as an object or as that
	// object in a JSON string.
	TypedData json.RawMessage `json:"typedData,omitempty" doc:"eth_signTypedData_v4: {types, primaryType, domain, message} (an object, or the object as a JSON string). types.EIP712Domain may be left out: it follows from the domain's fields."`
	// Transaction is eth_signTransaction's transaction.
	Transaction *UnsignedTransaction `json:"transaction,omitempty" doc:"eth_signTransaction: the transaction to sign (never broadcast)."`
}

// TypedDataDomain is the EIP-712 domain of signed typed data, as a quote shows it.
type TypedDataDomain struct {
	Name              string  `json:"name,omitempty"`
	Version           string  `json:"version,omitempty"`
	ChainID           *string `json:"chainId,omitempty" doc:"Decimal."`
	VerifyingContract string  `json:"verifyingContract,omitempty"`
	Salt              string  `json:"salt,omitempty"`
}

// TypedDataSummary is what signed typed data says: its domain and primary type.
type TypedDataSummary struct {
	Domain      TypedDataDomain `json:"domain"`
	PrimaryType string          `json:"primaryType"`
}

// SignedTransactionSummary is the transaction an eth_signTransaction signs, every field filled in.
type SignedTransactionSummary struct {
	To                   string `json:"to"`
	Value                string `json:"value" doc:"Wei."`
	Data                 string `json:"data,omitempty"`
	Nonce                uint64 `json:"nonce"`
	Gas                  uint64 `json:"gas"`
	MaxFeePerGas         string `json:"maxFeePerGas"`
	MaxPriorityFeePerGas string `json:"maxPriorityFeePerGas"`
	ChainID              int64  `json:"chainId"`
}

// Kinds of a signature's spend.
const (
	SpendPermit      = "permit"
	SpendPermit2     = "permit2"
	SpendTransaction = "transaction"
	// SpendAuthorization is an EIP-3009 TransferWithAuthorization or ReceiveWithAuthorization: the
	// signature itself moves the value to its recipient (x402 payments are made of them).
	SpendAuthorization = "transfer_authorization"
)

// SignatureSpend is what a signature lets move: a token permit's allowance, or a transaction's transfer.
// It counts against the wallet's limits like a send.
type SignatureSpend struct {
	Kind     string   `json:"kind" enum:"permit,permit2,transfer_authorization,transaction"`
	Token    *string  `json:"token,omitempty" doc:"The token (absent for the native asset)."`
	To       string   `json:"to" doc:"The permit's spender, or the transfer's recipient."`
	Asset    string   `json:"asset" doc:"native, usdc, or the token's address when it is not known."`
	Atomic   string   `json:"atomic" doc:"The amount in the asset's smallest unit."`
	Amount   string   `json:"amount,omitempty" doc:"The amount in whole units (when the token's decimals are known)."`
	USDValue *float64 `json:"usdValue" doc:"USD; null when no price is known."`
}

// SignatureSubject is what a signature signs.
type SignatureSubject struct {
	Message     *string                   `json:"message,omitempty" doc:"personal_sign: the message as text (when it is UTF-8)."`
	MessageHex  string                    `json:"messageHex,omitempty" doc:"personal_sign: the message's bytes in hex."`
	TypedData   *TypedDataSummary         `json:"typedData,omitempty"`
	Transaction *SignedTransactionSummary `json:"transaction,omitempty"`
	// Spend is nil when the signature moves nothing the policy counts.
	Spend *SignatureSpend `json:"spend,omitempty"`
}

// SignatureQuote shows what a signature would sign and the policy's verdict, signing nothing.
type SignatureQuote struct {
	WalletID        string           `json:"walletId"`
	Address         string           `json:"address" doc:"The signer (EIP-55)."`
	Type            string           `json:"type"`
	Digest          string           `json:"digest" doc:"The 32-byte hash that is signed: EIP-191, EIP-712, or the transaction's signing hash."`
	Subject         SignatureSubject `json:"subject"`
	SpentLast24hUSD float64          `json:"spentLast24hUsd"`
	Verdict         PolicyVerdict    `json:"verdict"`
}

// SignatureQuoteEnvelope answers POST …/signatures/quote.
type SignatureQuoteEnvelope struct {
	OK    bool           `json:"ok"`
	Quote SignatureQuote `json:"quote"`
}

// WalletSignature is a signature of a wallet (sig_…), made once by the workflow walletsig/<id>.
type WalletSignature struct {
	ID       string `json:"id" doc:"sig_…"`
	WalletID string `json:"walletId"`
	Address  string `json:"address" doc:"The signer (EIP-55)."`
	Type     string `json:"type"`
	Digest   string `json:"digest"`
	// Signature is 0x r||s||v (65 bytes, v 27 or 28), set once signed.
	Signature *string `json:"signature" doc:"0x r||s||v, 65 bytes, v = 27 or 28; null until signed."`
	// SignedTransaction is eth_signTransaction's signed transaction (EIP-2718 bytes), never broadcast.
	SignedTransaction *string          `json:"signedTransaction,omitempty" doc:"eth_signTransaction: the signed transaction's bytes (0x…), never broadcast by the platform."`
	TransactionHash   *string          `json:"transactionHash,omitempty" doc:"eth_signTransaction: the hash the transaction will have on chain."`
	Status            string           `json:"status" enum:"pending_approval,queued,signed,failed,rejected"`
	Subject           SignatureSubject `json:"subject"`
	USDValue          *float64         `json:"usdValue"`
	Verdict           PolicyVerdict    `json:"verdict"`
	Error             *RunError        `json:"error"`
	// ApprovalID is the approval (kind wallet_signature) a signature that needs one waits for.
	ApprovalID *string    `json:"approvalId" doc:"The approval (apr_...) a pending_approval signature waits for; null when none was needed."`
	WorkflowID string     `json:"workflowId" doc:"walletsig/<id>."`
	CreatedAt  time.Time  `json:"createdAt"`
	SignedAt   *time.Time `json:"signedAt"`
}

// Done reports whether the signature reached a final status (signed, failed or rejected).
func (s WalletSignature) Done() bool {
	return s.Status == WalletSigSigned || s.Status == WalletSigFailed || s.Status == WalletSigRejected
}

// WalletSignatureEnvelope answers the routes of one signature.
type WalletSignatureEnvelope struct {
	OK        bool            `json:"ok"`
	Signature WalletSignature `json:"signature"`
}

// RootSignRequest is the body of seed 002's POST /wallet/sign: a signature request of one of the
// account's wallets (walletId, or its first wallet when left out).
type RootSignRequest struct {
	WalletID string `json:"walletId,omitempty" maxLength:"200" doc:"The wallet (wal_…); left out, the account's first wallet."`
	SignatureRequest
}

// QuoteSignature shows what a signature would sign (its digest, typed-data domain and primary type,
// or transaction) and the policy's verdict, POST /v1/wallets/{walletId}/signatures/quote (scope
// wallets:sign).
func (c *Client) QuoteSignature(ctx context.Context, walletID string, r SignatureRequest, opts ...CallOption) Response[SignatureQuoteEnvelope] {
	if walletID == "" {
		return invalidArg[SignatureQuoteEnvelope]("walletId", "the wallet id is empty")
	}
	return send[SignatureQuoteEnvelope](ctx, c, call{method: http.MethodPost, path: walletPath(walletID) + "/signatures/quote", body: r,
		auth: authKey, idem: true, opts: opts})
}

// Sign signs with the wallet, POST /v1/wallets/{walletId}/signatures (scope wallets:sign): the policy
// is judged (a permit or a signed transaction is reserved against the limits like a send) and the
// workflow walletsig/<id> signs once. A signature whose verdict is needs_approval answers 202 in
// pending_approval with its ApprovalID (kind wallet_signature); another key decides it, then
// GetWalletSignature reads it signed or rejected. A replay with the same Idempotency-Key answers the
// same signature.
func (c *Client) Sign(ctx context.Context, walletID string, r SignatureRequest, opts ...CallOption) Response[WalletSignatureEnvelope] {
	if walletID == "" {
		return invalidArg[WalletSignatureEnvelope]("walletId", "the wallet id is empty")
	}
	return send[WalletSignatureEnvelope](ctx, c, call{method: http.MethodPost, path: walletPath(walletID) + "/signatures", body: r,
		auth: authKey, idem: true, opts: opts})
}

// GetWalletSignature reads one signature of a wallet (scope wallets:read).
func (c *Client) GetWalletSignature(ctx context.Context, walletID, signatureID string) Response[WalletSignatureEnvelope] {
	if walletID == "" || signatureID == "" {
		return invalidArg[WalletSignatureEnvelope]("signatureId", "the wallet or signature id is empty")
	}
	return send[WalletSignatureEnvelope](ctx, c, call{method: http.MethodGet,
		path: walletPath(walletID) + "/signatures/" + url.PathEscape(signatureID), auth: authKey})
}

// WalletSign is seed 002's POST /wallet/sign (scope wallets:sign): the same signature as Sign, of
// r.WalletID or the account's first wallet.
func (c *Client) WalletSign(ctx context.Context, r RootSignRequest, opts ...CallOption) Response[WalletSignatureEnvelope] {
	return send[WalletSignatureEnvelope](ctx, c, call{method: http.MethodPost, path: "/wallet/sign", root: true, body: r,
		auth: authKey, idem: true, opts: opts})
}
