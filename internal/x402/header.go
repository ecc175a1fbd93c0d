package x402

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// MaxHeaderLength bounds an incoming payment header (base64 text).
const MaxHeaderLength = 16 << 10

// EncodeHeader returns v as JSON in standard, padded base64 — the encoding the
// reference clients expect in Payment-Required and Payment-Response (they
// reject URL-safe base64 there).
func EncodeHeader(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("x402: encode header: %w", err)
	}
	return base64.StdEncoding.EncodeToString(bytes.TrimRight(buf.Bytes(), "\n")), nil
}

// DecodePaymentHeader decodes a Payment-Signature (legacy false) or X-PAYMENT
// (legacy true) header value into a normalised PaymentPayload. Payment-Signature
// must carry x402Version 2; X-PAYMENT may carry 1 or 2. Standard and URL-safe
// base64, padded or not, are accepted. Every failure is a *VerifyError
// ("invalid_payload", "unsupported_version", "network_mismatch").
func DecodePaymentHeader(value string, legacy bool) (PaymentPayload, error) {
	header := headerName(legacy)
	value = strings.TrimSpace(value)
	if value == "" || len(value) > MaxHeaderLength {
		return PaymentPayload{}, refuse(ReasonInvalidPayload, header,
			"the %s header is empty or longer than %d bytes", header, MaxHeaderLength)
	}
	raw, err := decodeBase64(value)
	if err != nil {
		return PaymentPayload{}, refuse(ReasonInvalidPayload, header, "the %s header is not base64: %v", header, err)
	}
	p, err := decodePayload(raw)
	if err != nil {
		return PaymentPayload{}, err
	}
	if !legacy && p.X402Version != Version {
		return PaymentPayload{}, refuse(ReasonUnsupportedVersion, "x402Version",
			"the %s header carries x402Version %d; it must be %d (send v1 payloads in X-PAYMENT)",
			header, p.X402Version, Version)
	}
	p.Legacy = legacy
	return p, nil
}

func headerName(legacy bool) string {
	if legacy {
		return "X-PAYMENT"
	}
	return "Payment-Signature"
}

func decodeBase64(s string) ([]byte, error) {
	var firstErr error
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		b, err := enc.DecodeString(s)
		if err == nil {
			return b, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, firstErr
}

// payloadWire is the union of the v1 and v2 PaymentPayload wire shapes.
type payloadWire struct {
	X402Version *int                       `json:"x402Version"`
	Scheme      string                     `json:"scheme,omitempty"`
	Network     string                     `json:"network,omitempty"`
	Resource    *ResourceInfo              `json:"resource,omitempty"`
	Accepted    *PaymentRequirements       `json:"accepted,omitempty"`
	Payload     json.RawMessage            `json:"payload"`
	Extensions  map[string]json.RawMessage `json:"extensions,omitempty"`
}

// decodePayload parses and normalises one PaymentPayload JSON document.
func decodePayload(raw []byte) (PaymentPayload, error) {
	var w payloadWire
	if err := json.Unmarshal(raw, &w); err != nil {
		return PaymentPayload{}, refuse(ReasonInvalidPayload, "payload", "the payment header is not valid payment JSON: %v", err)
	}
	if w.X402Version == nil {
		return PaymentPayload{}, refuse(ReasonInvalidPayload, "x402Version", "the payment header has no x402Version")
	}
	var evm ExactEVMPayload
	if len(w.Payload) == 0 || w.Payload[0] != '{' || json.Unmarshal(w.Payload, &evm) != nil {
		return PaymentPayload{}, refuse(ReasonInvalidPayload, "payload", "payload must be an object with signature and authorization")
	}
	p := PaymentPayload{X402Version: *w.X402Version, Payload: evm}
	switch p.X402Version {
	case Version:
		return normaliseV2(p, w)
	case LegacyVersion:
		return normaliseV1(p, w)
	default:
		return PaymentPayload{}, refuse(ReasonUnsupportedVersion, "x402Version",
			"x402Version %d is not supported (use %d, or %d in X-PAYMENT)", p.X402Version, Version, LegacyVersion)
	}
}

func normaliseV2(p PaymentPayload, w payloadWire) (PaymentPayload, error) {
	if w.Accepted == nil {
		return PaymentPayload{}, refuse(ReasonInvalidPayload, "accepted", "an x402Version 2 payload must say which offer it accepted (accepted)")
	}
	p.Accepted, p.Resource, p.Extensions = w.Accepted, w.Resource, w.Extensions
	p.Scheme, p.Network = w.Accepted.Scheme, w.Accepted.Network
	return p, nil
}

func normaliseV1(p PaymentPayload, w payloadWire) (PaymentPayload, error) {
	if w.Scheme == "" || w.Network == "" {
		return PaymentPayload{}, refuse(ReasonInvalidPayload, "scheme", "an x402Version 1 payload needs scheme and network")
	}
	caip, err := LegacyNetworkCAIP2(w.Network)
	if err != nil {
		return PaymentPayload{}, refuse(ReasonNetworkMismatch, "network", "%v", err)
	}
	p.Scheme, p.Network, p.LegacyNetwork = w.Scheme, caip, w.Network
	return p, nil
}

// MarshalJSON writes p in the wire shape of its X402Version: v1 as
// {x402Version, scheme, network (v1 name), payload}; v2 as
// {x402Version, resource?, accepted, payload, extensions?}.
func (p PaymentPayload) MarshalJSON() ([]byte, error) {
	if p.X402Version == LegacyVersion {
		network := p.LegacyNetwork
		if network == "" {
			name, err := LegacyNetworkName(p.Network)
			if err != nil {
				return nil, fmt.Errorf("x402: marshal v1 payload: %w", err)
			}
			network = name
		}
		return json.Marshal(struct {
			X402Version int             `json:"x402Version"`
			Scheme      string          `json:"scheme"`
			Network     string          `json:"network"`
			Payload     ExactEVMPayload `json:"payload"`
		}{p.X402Version, p.Scheme, network, p.Payload})
	}
	payload, err := json.Marshal(p.Payload)
	if err != nil {
		return nil, fmt.Errorf("x402: marshal exact payload: %w", err)
	}
	v := p.X402Version
	return json.Marshal(payloadWire{X402Version: &v, Resource: p.Resource, Accepted: p.Accepted,
		Payload: payload, Extensions: p.Extensions})
}

// UnmarshalJSON parses either wire shape and normalises it like DecodePaymentHeader.
func (p *PaymentPayload) UnmarshalJSON(data []byte) error {
	decoded, err := decodePayload(data)
	if err != nil {
		return err
	}
	*p = decoded
	return nil
}
