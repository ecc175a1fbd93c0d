package x402

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
)

// Signer signs EIP-3009 authorizations for one address. A managed wallet implements it by opening its
// key only for the signature; the key never leaves the signer.
type Signer interface {
	// Address is the payer: the authorization's from.
	Address() common.Address
	// SignAuthorization signs a under d and answers the 0x hex signature r ‖ s ‖ v (v 27 or 28).
	SignAuthorization(ctx context.Context, d Domain, a EIP3009Authorization) (string, error)
}

// KeySigner is a Signer over a private key held in memory (tests, the CLI).
type KeySigner struct{ Key *ecdsa.PrivateKey }

// Address implements Signer.
func (k KeySigner) Address() common.Address { return crypto.PubkeyToAddress(k.Key.PublicKey) }

// SignAuthorization implements Signer.
func (k KeySigner) SignAuthorization(_ context.Context, d Domain, a EIP3009Authorization) (string, error) {
	return SignAuthorization(k.Key, d, a)
}

// PayWith is Pay with a Signer: it signs an EIP-3009 TransferWithAuthorization of exactly req.Amount to
// req.PayTo (validAfter 0, validBefore now + maxTimeoutSeconds, a random nonce) and answers the v2
// payment for the Payment-Signature header.
func PayWith(ctx context.Context, s Signer, req PaymentRequirements, resource *ResourceInfo, now time.Time) (PaymentPayload, error) {
	d, err := RequirementsDomain(req)
	if err != nil {
		return PaymentPayload{}, err
	}
	var nonce [32]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return PaymentPayload{}, fmt.Errorf("x402: nonce: %w", err)
	}
	auth := EIP3009Authorization{
		From: s.Address().Hex(), To: req.PayTo, Value: req.Amount, ValidAfter: "0",
		ValidBefore: strconv.FormatInt(now.Unix()+int64(req.MaxTimeoutSeconds), 10), Nonce: hexutil.Encode(nonce[:]),
	}
	sig, err := s.SignAuthorization(ctx, d, auth)
	if err != nil {
		return PaymentPayload{}, fmt.Errorf("x402: sign the authorization: %w", err)
	}
	accepted := req
	return PaymentPayload{X402Version: Version, Scheme: req.Scheme, Network: req.Network, Accepted: &accepted, Resource: resource,
		Payload: ExactEVMPayload{Signature: sig, Authorization: &auth}}, nil
}

// Offer is the requirement a client chose to pay, shown to Client.Approve before anything is signed.
type Offer struct {
	Requirements PaymentRequirements
	Resource     ResourceInfo
	// Atomic is Requirements.Amount parsed.
	Atomic *big.Int
}

// Client is the paying side of x402 v2: it sends a request and, on a 402, pays the server's offer for
// Network and Asset with Signer (exact scheme, EIP-3009) and repeats the request once with
// Payment-Signature. It pays at most once per call, never above MaxAtomic, and only after Approve.
type Client struct {
	// HTTP sends the requests (redirects should not be followed).
	HTTP *http.Client
	// Signer signs the authorization.
	Signer Signer
	// Network (CAIP-2) and Asset are the only chain and token the client pays with.
	Network string
	Asset   common.Address
	// MaxAtomic is the most the client pays for one call, in the asset's atomic units.
	MaxAtomic *big.Int
	// Approve, when set, is asked before signing; an error refuses the payment (nothing is signed) and
	// is returned as is.
	Approve func(ctx context.Context, o Offer) error
	// Now is the clock of validBefore (nil: time.Now).
	Now func() time.Time
	// MaxBody bounds the response bodies read (0: 1 MiB).
	MaxBody int64
}

// Response is the answer a Client returns: the final status, headers and body, and the payment made
// (nil when the server asked for none).
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	// Paid is the payment sent on the retry, nil if none was sent.
	Paid *Paid
}

// Paid is a payment the client sent and what the server said of it.
type Paid struct {
	Offer   Offer
	Payload PaymentPayload
	// Settlement is the decoded Payment-Response, nil when the server sent none.
	Settlement *SettleResponse
}

// Settled reports whether the server answered the paid retry with a successful settlement.
func (p *Paid) Settled() bool { return p != nil && p.Settlement != nil && p.Settlement.Success }

// Client refusals. Each is returned (wrapped) before anything is signed.
var (
	// ErrNoOffer: the 402 offers no exact payment on the client's network and asset.
	ErrNoOffer = errors.New("x402: the server offers no exact payment on the client's network and asset")
	// ErrAboveCap: the offer's amount is above MaxAtomic.
	ErrAboveCap = errors.New("x402: the price is above the client's cap")
	// ErrBadPaymentRequired: the 402 carries no readable v2 PAYMENT-REQUIRED header.
	ErrBadPaymentRequired = errors.New("x402: the 402 carries no readable v2 Payment-Required header")
)

// Do sends method url with header and body; on a 402 it pays (see Client) and sends it again.
func (c *Client) Do(ctx context.Context, method, url string, header http.Header, body []byte) (*Response, error) {
	first, err := c.send(ctx, method, url, header, body, "")
	if err != nil || first.Status != http.StatusPaymentRequired {
		return first, err
	}
	offer, err := c.choose(first.Header)
	if err != nil {
		return first, err
	}
	if c.Approve != nil {
		if err := c.Approve(ctx, offer); err != nil {
			return first, err
		}
	}
	payload, err := PayWith(ctx, c.Signer, offer.Requirements, &offer.Resource, c.now())
	if err != nil {
		return first, err
	}
	encoded, err := EncodeHeader(payload)
	if err != nil {
		return first, err
	}
	paid := &Paid{Offer: offer, Payload: payload}
	second, err := c.send(ctx, method, url, header, body, encoded)
	if err != nil {
		return &Response{Paid: paid}, err
	}
	second.Paid = paid
	paid.Settlement = readSettlement(second.Header)
	return second, nil
}

func (c *Client) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// send does one request, with the payment header when payment is set.
func (c *Client) send(ctx context.Context, method, url string, header http.Header, body []byte, payment string) (*Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, fmt.Errorf("x402: build the request: %w", err)
	}
	for k, vs := range header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if payment != "" {
		req.Header.Set(HeaderPaymentSignature, payment)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("x402: %s %s: %w", method, req.URL.Redacted(), err)
	}
	defer resp.Body.Close()
	limit := c.MaxBody
	if limit <= 0 {
		limit = 1 << 20
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		return nil, fmt.Errorf("x402: read the answer of %s: %w", req.URL.Redacted(), err)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}

// choose reads Payment-Required and picks the first exact offer on the client's network and asset,
// refusing it above MaxAtomic.
func (c *Client) choose(h http.Header) (Offer, error) {
	pr, err := DecodePaymentRequired(h.Get(HeaderPaymentRequired))
	if err != nil {
		return Offer{}, err
	}
	for _, req := range pr.Accepts {
		if req.Scheme != SchemeExact || req.Network != c.Network || !sameAddress(req.Asset, c.Asset) {
			continue
		}
		if _, err := RequirementsDomain(req); err != nil || !common.IsHexAddress(req.PayTo) {
			continue
		}
		amount, err := AtomicAmount(req)
		if err != nil {
			continue
		}
		if c.MaxAtomic == nil || amount.Cmp(c.MaxAtomic) > 0 {
			return Offer{}, fmt.Errorf("%w: %s atomic units asked, at most %v allowed", ErrAboveCap, amount, c.MaxAtomic)
		}
		return Offer{Requirements: req, Resource: pr.Resource, Atomic: amount}, nil
	}
	return Offer{}, fmt.Errorf("%w (%s, asset %s)", ErrNoOffer, c.Network, c.Asset.Hex())
}

// DecodePaymentRequired decodes a v2 Payment-Required header value (standard base64 JSON).
func DecodePaymentRequired(value string) (PaymentRequired, error) {
	value = strings.TrimSpace(value)
	if value == "" || len(value) > MaxHeaderLength {
		return PaymentRequired{}, fmt.Errorf("%w: the header is empty or longer than %d bytes", ErrBadPaymentRequired, MaxHeaderLength)
	}
	raw, err := decodeBase64(value)
	if err != nil {
		return PaymentRequired{}, fmt.Errorf("%w: not base64: %v", ErrBadPaymentRequired, err)
	}
	var pr PaymentRequired
	if err := json.Unmarshal(raw, &pr); err != nil {
		return PaymentRequired{}, fmt.Errorf("%w: not JSON: %v", ErrBadPaymentRequired, err)
	}
	if pr.X402Version != Version {
		return PaymentRequired{}, fmt.Errorf("%w: x402Version is %d", ErrBadPaymentRequired, pr.X402Version)
	}
	return pr, nil
}

// readSettlement decodes Payment-Response (or its v1 name); nil when absent or unreadable.
func readSettlement(h http.Header) *SettleResponse {
	value := h.Get(HeaderPaymentResponse)
	if value == "" {
		value = h.Get(HeaderLegacyPaymentResponse)
	}
	if value == "" || len(value) > MaxHeaderLength {
		return nil
	}
	raw, err := decodeBase64(strings.TrimSpace(value))
	if err != nil {
		return nil
	}
	var s SettleResponse
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	return &s
}
