// Package x402 implements the parts of the x402 payment protocol (v2, with the
// legacy v1 X-PAYMENT header) that svc needs to sell prepaid credits for USDC:
// the wire types, the Payment-Required / Payment-Signature / Payment-Response
// header codecs, local verification of an "exact" EVM payment (an EIP-3009
// TransferWithAuthorization signed under the token's EIP-712 domain), and a
// client for a remote x402 facilitator's /verify, /settle and /supported.
//
// PROTOCOL.md in this directory records the wire format as implemented by the
// reference TypeScript packages (@x402/core, @x402/evm, @x402/fetch 2.27.0).
package x402

import "encoding/json"

// Protocol constants.
const (
	// Version is the x402 protocol version this package speaks by default.
	Version = 2
	// LegacyVersion is the x402 version carried by the legacy X-PAYMENT header.
	LegacyVersion = 1
	// SchemeExact is the only payment scheme this package accepts.
	SchemeExact = "exact"
)

// HTTP header names. HTTP header names are case-insensitive; the reference
// clients write them upper-case.
const (
	// HeaderPaymentRequired carries a base64 JSON PaymentRequired on a 402 answer.
	HeaderPaymentRequired = "Payment-Required"
	// HeaderPaymentSignature carries a base64 JSON v2 PaymentPayload on the retry.
	HeaderPaymentSignature = "Payment-Signature"
	// HeaderPaymentResponse carries a base64 JSON SettleResponse on the answer to a paid request.
	HeaderPaymentResponse = "Payment-Response"
	// HeaderLegacyPayment carries a base64 JSON v1 PaymentPayload (legacy clients).
	HeaderLegacyPayment = "X-Payment"
	// HeaderLegacyPaymentResponse is the v1 name of HeaderPaymentResponse.
	HeaderLegacyPaymentResponse = "X-Payment-Response"
)

// ResourceInfo describes the paid resource in a v2 PaymentRequired and PaymentPayload.
type ResourceInfo struct {
	URL         string   `json:"url"`
	Description string   `json:"description,omitempty"`
	MimeType    string   `json:"mimeType,omitempty"`
	ServiceName string   `json:"serviceName,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	IconURL     string   `json:"iconUrl,omitempty"`
}

// PaymentRequirements is one way to pay that the server accepts (v2 shape).
// Amount is the exact atomic token amount as a decimal string.
type PaymentRequirements struct {
	Scheme            string         `json:"scheme"`
	Network           string         `json:"network"`
	Amount            string         `json:"amount"`
	Asset             string         `json:"asset"`
	PayTo             string         `json:"payTo"`
	MaxTimeoutSeconds int            `json:"maxTimeoutSeconds"`
	Extra             map[string]any `json:"extra,omitempty"`
}

// PaymentRequirementsV1 is the v1 shape of PaymentRequirements, as sent in a
// v1 402 body and to a facilitator together with a v1 payload. Network is a
// v1 name such as "base-sepolia".
type PaymentRequirementsV1 struct {
	Scheme            string         `json:"scheme"`
	Network           string         `json:"network"`
	MaxAmountRequired string         `json:"maxAmountRequired"`
	Resource          string         `json:"resource"`
	Description       string         `json:"description"`
	MimeType          string         `json:"mimeType"`
	OutputSchema      map[string]any `json:"outputSchema,omitempty"`
	PayTo             string         `json:"payTo"`
	MaxTimeoutSeconds int            `json:"maxTimeoutSeconds"`
	Asset             string         `json:"asset"`
	Extra             map[string]any `json:"extra,omitempty"`
}

// PaymentRequired is the body of the Payment-Required header (v2).
type PaymentRequired struct {
	X402Version int                   `json:"x402Version"`
	Error       string                `json:"error,omitempty"`
	Resource    ResourceInfo          `json:"resource"`
	Accepts     []PaymentRequirements `json:"accepts"`
	Extensions  map[string]any        `json:"extensions,omitempty"`
}

// EIP3009Authorization is the wire form of a TransferWithAuthorization message.
// Every field is a string: addresses as 0x hex, numbers as decimal strings,
// the nonce as 0x followed by 64 hex digits.
type EIP3009Authorization struct {
	From        string `json:"from"`
	To          string `json:"to"`
	Value       string `json:"value"`
	ValidAfter  string `json:"validAfter"`
	ValidBefore string `json:"validBefore"`
	Nonce       string `json:"nonce"`
}

// ExactEVMPayload is the scheme-specific "payload" of an exact EVM payment
// made with EIP-3009: a 0x hex signature and the signed authorization.
// Authorization is nil when the client used another transfer method (Permit2).
type ExactEVMPayload struct {
	Signature     string                `json:"signature"`
	Authorization *EIP3009Authorization `json:"authorization,omitempty"`
}

// PaymentPayload is a decoded Payment-Signature (v2) or X-PAYMENT (v1) header,
// normalised so that Scheme and Network (CAIP-2) are always set. It has no
// field tags: MarshalJSON writes the wire shape of its X402Version and
// UnmarshalJSON reads either shape.
type PaymentPayload struct {
	// X402Version is 2 for the v2 shape, 1 for the legacy shape.
	X402Version int
	// Legacy reports that the payload arrived in the X-PAYMENT header.
	Legacy bool
	// Scheme is accepted.scheme (v2) or scheme (v1).
	Scheme string
	// Network is the CAIP-2 network: accepted.network (v2) or the v1 name mapped.
	Network string
	// LegacyNetwork is the v1 network name as sent ("base-sepolia"); empty for v2.
	LegacyNetwork string
	// Accepted is the requirements the client says it paid for (v2 only).
	Accepted *PaymentRequirements
	// Resource echoes the PaymentRequired resource (v2, optional). v1 has
	// none; set it before passing a v1 payload to HTTPFacilitator.
	Resource *ResourceInfo
	// Payload is the exact EVM scheme payload.
	Payload ExactEVMPayload
	// Extensions echoes and extends PaymentRequired.extensions (v2, optional).
	Extensions map[string]json.RawMessage
}

// VerifyResponse is a facilitator's answer to POST /verify.
type VerifyResponse struct {
	IsValid        bool           `json:"isValid"`
	InvalidReason  string         `json:"invalidReason,omitempty"`
	InvalidMessage string         `json:"invalidMessage,omitempty"`
	Payer          string         `json:"payer,omitempty"`
	Extensions     map[string]any `json:"extensions,omitempty"`
	Extra          map[string]any `json:"extra,omitempty"`
}

// SettleResponse is a facilitator's answer to POST /settle and the body of
// the Payment-Response header. Transaction is the 0x transaction hash (empty
// when nothing was sent), Network the CAIP-2 network, Payer the paying address.
type SettleResponse struct {
	Success      bool           `json:"success"`
	ErrorReason  string         `json:"errorReason,omitempty"`
	ErrorMessage string         `json:"errorMessage,omitempty"`
	Payer        string         `json:"payer,omitempty"`
	Transaction  string         `json:"transaction"`
	Network      string         `json:"network"`
	Amount       string         `json:"amount,omitempty"`
	Extensions   map[string]any `json:"extensions,omitempty"`
	Extra        map[string]any `json:"extra,omitempty"`
}

// FacilitatorRequest is the body of POST /verify and POST /settle.
// PaymentRequirements is a PaymentRequirements (v2) or PaymentRequirementsV1.
type FacilitatorRequest struct {
	X402Version         int            `json:"x402Version"`
	PaymentPayload      PaymentPayload `json:"paymentPayload"`
	PaymentRequirements any            `json:"paymentRequirements"`
}

// SupportedKind is one (version, scheme, network) a facilitator handles.
type SupportedKind struct {
	X402Version int            `json:"x402Version"`
	Scheme      string         `json:"scheme"`
	Network     string         `json:"network"`
	Extra       map[string]any `json:"extra,omitempty"`
}

// SupportedResponse is a facilitator's answer to GET /supported. Signers maps
// a CAIP family pattern ("eip155:*") to the facilitator's signing addresses.
type SupportedResponse struct {
	Kinds      []SupportedKind     `json:"kinds"`
	Extensions []string            `json:"extensions"`
	Signers    map[string][]string `json:"signers"`
}
