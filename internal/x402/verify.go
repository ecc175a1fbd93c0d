package x402

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// Machine-readable reasons carried by *VerifyError.
const (
	ReasonInvalidPayload       = "invalid_payload"
	ReasonUnsupportedVersion   = "unsupported_version"
	ReasonUnsupportedScheme    = "unsupported_scheme"
	ReasonNetworkMismatch      = "network_mismatch"
	ReasonAssetMismatch        = "asset_mismatch"
	ReasonRecipientMismatch    = "recipient_mismatch"
	ReasonAmountMismatch       = "amount_mismatch"
	ReasonRequirementsMismatch = "requirements_mismatch"
	ReasonNotYetValid          = "authorization_not_yet_valid"
	ReasonExpired              = "authorization_expired"
	ReasonValidityTooLong      = "authorization_validity_too_long"
	ReasonInvalidSignature     = "invalid_signature"
)

// reasonRequirementsForConfig prefixes errors about an offer cfg cannot have made.
const reasonRequirementsForConfig = "requirements do not match config"

// Time policy applied by Verify.
const (
	// ClockSkewLeeway is how far in our future validAfter may be: a client
	// whose clock runs a little fast is accepted. (The token itself requires
	// block.timestamp > validAfter, so settlement may wait that long.)
	ClockSkewLeeway = 5 * time.Second
	// SettlementMargin is how long validBefore must still be ahead of now, so
	// the settlement transaction can be mined before the token's
	// block.timestamp < validBefore check fails. The reference facilitator uses 6 s.
	SettlementMargin = 6 * time.Second
	// ValidityLeeway is added to maxTimeoutSeconds when bounding validBefore
	// from above: validBefore must be <= now + maxTimeoutSeconds + ValidityLeeway.
	ValidityLeeway = time.Minute
)

// VerifyError is a refused payment: Reason is a machine code (Reason*
// constants), Field the JSON path at fault ("authorization.value"), Message a
// sentence for the payer that names the field in plain words.
type VerifyError struct {
	Reason  string
	Field   string
	Message string
}

// Error returns "x402: <reason>: <message>".
func (e *VerifyError) Error() string {
	return "x402: " + e.Reason + ": " + e.Message
}

// refuse builds a *VerifyError.
func refuse(reason, field, format string, args ...any) error {
	return &VerifyError{Reason: reason, Field: field, Message: fmt.Sprintf(format, args...)}
}

// AsVerifyError returns the *VerifyError in err's chain, if any.
func AsVerifyError(err error) (*VerifyError, bool) {
	var ve *VerifyError
	ok := errors.As(err, &ve)
	return ve, ok
}

// Verify checks payment p against the offer want (built by cfg.Requirements)
// at time now, locally and without any chain access: the scheme, network,
// asset, recipient and exact amount; for v2 that p.Accepted is what we
// offered; the validity window (see ClockSkewLeeway, SettlementMargin,
// ValidityLeeway); the nonce format; and that the 65-byte low-s EIP-712
// signature recovers exactly authorization.from under cfg's domain. A refused
// payment yields a *VerifyError; a cfg/want inconsistency yields a plain error.
// A v1 payload names no asset: the token is bound by the signature's domain
// (verifyingContract) alone. Verify does not check the payer's balance or
// whether the nonce was used; the chain decides those at settlement.
func Verify(cfg Config, want PaymentRequirements, p PaymentPayload, now time.Time) (Authorization, error) {
	amount, err := checkOffer(cfg, want)
	if err != nil {
		return Authorization{}, err
	}
	if err := checkEnvelope(cfg, want, amount, p); err != nil {
		return Authorization{}, err
	}
	if p.Payload.Authorization == nil {
		return Authorization{}, refuse(ReasonInvalidPayload, "payload.authorization",
			"payload.authorization is missing: only EIP-3009 transferWithAuthorization payments are accepted (not Permit2)")
	}
	a, err := parseAuthorization(*p.Payload.Authorization, p.Payload.Signature)
	if err != nil {
		return Authorization{}, err
	}
	if err := checkTerms(cfg, amount, a); err != nil {
		return Authorization{}, err
	}
	if err := checkWindow(a, want.MaxTimeoutSeconds, now); err != nil {
		return Authorization{}, err
	}
	return checkSignature(cfg.Domain(), a)
}

// checkOffer validates cfg and that want is an offer cfg could have made.
func checkOffer(cfg Config, want PaymentRequirements) (*big.Int, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("x402 verify: %w", err)
	}
	amount, ok := new(big.Int).SetString(want.Amount, 10)
	switch {
	case !ok || amount.Sign() <= 0:
		return nil, fmt.Errorf("x402 verify: %s: amount %q", reasonRequirementsForConfig, want.Amount)
	case want.Scheme != SchemeExact || want.Network != cfg.Network:
		return nil, fmt.Errorf("x402 verify: %s: %s on %s", reasonRequirementsForConfig, want.Scheme, want.Network)
	case !sameAddress(want.Asset, cfg.Asset) || !sameAddress(want.PayTo, cfg.PayTo):
		return nil, fmt.Errorf("x402 verify: %s: asset %s, payTo %s", reasonRequirementsForConfig, want.Asset, want.PayTo)
	case want.MaxTimeoutSeconds <= 0:
		return nil, fmt.Errorf("x402 verify: %s: maxTimeoutSeconds %d", reasonRequirementsForConfig, want.MaxTimeoutSeconds)
	}
	return amount, nil
}

// checkEnvelope checks version, scheme, network and (v2) the accepted offer.
func checkEnvelope(cfg Config, want PaymentRequirements, amount *big.Int, p PaymentPayload) error {
	if p.X402Version != Version && p.X402Version != LegacyVersion {
		return refuse(ReasonUnsupportedVersion, "x402Version", "x402Version %d is not supported", p.X402Version)
	}
	if p.Scheme != SchemeExact {
		return refuse(ReasonUnsupportedScheme, "scheme", "scheme %q is not supported; use %q", p.Scheme, SchemeExact)
	}
	if p.Network != cfg.Network {
		return refuse(ReasonNetworkMismatch, "network", "network is %q, payments are accepted on %q only", p.Network, cfg.Network)
	}
	if p.X402Version == LegacyVersion {
		return nil
	}
	if p.Accepted == nil {
		return refuse(ReasonInvalidPayload, "accepted", "accepted is missing from the x402Version 2 payload")
	}
	return checkAccepted(cfg, want, amount, *p.Accepted)
}

// checkAccepted compares the offer a v2 client says it accepted with ours.
func checkAccepted(cfg Config, want PaymentRequirements, amount *big.Int, got PaymentRequirements) error {
	if !sameAddress(got.Asset, cfg.Asset) {
		return refuse(ReasonAssetMismatch, "accepted.asset", "accepted.asset is %s, payments are accepted in %s only", got.Asset, cfg.Asset.Hex())
	}
	if !sameAddress(got.PayTo, cfg.PayTo) {
		return refuse(ReasonRecipientMismatch, "accepted.payTo", "accepted.payTo is %s, payments go to %s", got.PayTo, cfg.PayTo.Hex())
	}
	if got.Amount != amount.String() {
		return refuse(ReasonAmountMismatch, "accepted.amount", "accepted.amount is %s, the top-up needs exactly %s", got.Amount, amount)
	}
	if got.MaxTimeoutSeconds != want.MaxTimeoutSeconds {
		return refuse(ReasonRequirementsMismatch, "accepted.maxTimeoutSeconds",
			"accepted.maxTimeoutSeconds is %d, the offer said %d", got.MaxTimeoutSeconds, want.MaxTimeoutSeconds)
	}
	name, _ := got.Extra["name"].(string)
	version, _ := got.Extra["version"].(string)
	if name != cfg.Name || version != cfg.Version {
		return refuse(ReasonRequirementsMismatch, "accepted.extra",
			"accepted.extra names token domain %q version %q, the offer said %q version %q", name, version, cfg.Name, cfg.Version)
	}
	return nil
}

// checkTerms checks the signed recipient and amount.
func checkTerms(cfg Config, amount *big.Int, a Authorization) error {
	if a.To != cfg.PayTo {
		return refuse(ReasonRecipientMismatch, "authorization.to", "authorization.to is %s, payments go to %s", a.To.Hex(), cfg.PayTo.Hex())
	}
	if a.Value.Cmp(amount) != 0 {
		return refuse(ReasonAmountMismatch, "authorization.value", "authorization.value is %s, the top-up needs exactly %s", a.Value, amount)
	}
	return nil
}

// checkWindow applies the time policy to validAfter and validBefore.
func checkWindow(a Authorization, maxTimeoutSeconds int, now time.Time) error {
	unix := now.Unix()
	if a.ValidAfter.Cmp(big.NewInt(unix+int64(ClockSkewLeeway/time.Second))) > 0 {
		return refuse(ReasonNotYetValid, "authorization.validAfter",
			"authorization.validAfter is %s, which is after now (%d): the authorization is not valid yet", a.ValidAfter, unix)
	}
	if a.ValidBefore.Cmp(big.NewInt(unix+int64(SettlementMargin/time.Second))) <= 0 {
		return refuse(ReasonExpired, "authorization.validBefore",
			"authorization.validBefore is %s, it must be more than %d s after now (%d) so the transfer can still be settled",
			a.ValidBefore, int64(SettlementMargin/time.Second), unix)
	}
	limit := unix + int64(maxTimeoutSeconds) + int64(ValidityLeeway/time.Second)
	if a.ValidBefore.Cmp(big.NewInt(limit)) > 0 {
		return refuse(ReasonValidityTooLong, "authorization.validBefore",
			"authorization.validBefore is %s, more than maxTimeoutSeconds (%d) after now (%d)", a.ValidBefore, maxTimeoutSeconds, unix)
	}
	return nil
}

// checkSignature checks that a's signature recovers a.From under domain d and
// fills in V, R, S and the normalised Signature.
func checkSignature(d Domain, a Authorization) (Authorization, error) {
	v, r, s, err := SplitSignature(a.Signature)
	if err != nil {
		return Authorization{}, refuse(ReasonInvalidSignature, "signature", "%v", err)
	}
	signer, err := RecoverSigner(a.Digest(d), a.Signature)
	if err != nil {
		return Authorization{}, refuse(ReasonInvalidSignature, "signature", "%v", err)
	}
	if signer != a.From {
		return Authorization{}, refuse(ReasonInvalidSignature, "signature",
			"the signature was made by %s, not by authorization.from %s (wrong key, chain, token or EIP-712 domain %q version %q)",
			signer.Hex(), a.From.Hex(), d.Name, d.Version)
	}
	a.V, a.R, a.S = v, r, s
	a.Signature = JoinSignature(v, r, s)
	return a, nil
}

func sameAddress(s string, want common.Address) bool {
	return strings.HasPrefix(s, "0x") && common.IsHexAddress(s) && common.HexToAddress(s) == want
}
