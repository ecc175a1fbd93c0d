package cryptorail

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/svcerr"
)

// Prepare returns the request the caller would make on the rail sel chose: origin is the API's scheme
// and host, idemKey the Idempotency-Key to suggest. It sends nothing.
func Prepare(f Facts, r client.CryptoActionRequest, sel client.CryptoSelection, origin, idemKey string) (*client.CryptoPrepared, error) {
	switch sel.Rail {
	case client.RailX402TopUp:
		return prepareTopUp(f, sel, origin, idemKey), nil
	case client.RailWalletSend:
		return prepareWalletSend(r, sel, origin, idemKey)
	default:
		return prepareCredits(sel, origin), nil
	}
}

func prepareTopUp(f Facts, sel client.CryptoSelection, origin, idemKey string) *client.CryptoPrepared {
	buy := TopUpAmount(sel.AmountUSD, sel.Purpose)
	req := request(origin, "POST", "/v1/credits/x402/top-up", idemKey, map[string]any{"amountUsd": buy})
	then := fmt.Sprintf("The first answer is 402 with a Payment-Required header asking for %s USDC on %s to %s. "+
		"Sign it with an x402 v2 client and send the same request again, same Idempotency-Key, with the Payment-Signature header; "+
		"the answer is 200 once the payment has settled and %s credits are on the balance.",
		usd(buy), f.X402.Network, f.X402.PayTo, num(buy*float64(f.CreditsPerUSD)))
	return &client.CryptoPrepared{Request: req, Then: then}
}

func prepareWalletSend(r client.CryptoActionRequest, sel client.CryptoSelection, origin, idemKey string) (*client.CryptoPrepared, error) {
	to := strings.TrimSpace(r.To)
	if !common.IsHexAddress(to) {
		return nil, svcerr.Invalid("to", "to must be a 0x address of 40 hex digits for a wallet send")
	}
	body := map[string]any{"to": common.HexToAddress(to).Hex(), "amount": strconv.FormatFloat(sel.AmountUSD, 'f', -1, 64), "asset": "usdc"}
	base := "/v1/wallets/" + url.PathEscape(sel.WalletID) + "/transactions"
	quote := request(origin, "POST", base+"/quote", idemKey+"-quote", body)
	send := request(origin, "POST", base, idemKey, body)
	then := "Quote first (it moves nothing): the answer has the fee and the policy's verdict. " +
		"Then send: 202 with the transaction (queued, or pending_approval when the policy wants an approval); " +
		"the workflow wallettx/<id> signs, broadcasts and confirms it. A USDC amount is taken at one dollar."
	return &client.CryptoPrepared{Preflight: &quote, Request: send, Then: then}, nil
}

func prepareCredits(sel client.CryptoSelection, origin string) *client.CryptoPrepared {
	req := request(origin, "GET", "/v1/credits/balance", "", nil)
	then := fmt.Sprintf("Nothing to pay: the paid call itself (POST /v1/services/{serviceId}/invoke, POST /v1/runs) draws "+
		"the credits for %s USD from the balance. This request checks the balance first.", usd(sel.AmountUSD))
	return &client.CryptoPrepared{Request: req, Then: then}
}

// request is a prepared request on origin; idemKey "" sends none (a read).
func request(origin, method, path, idemKey string, body map[string]any) client.PreparedRequest {
	h := map[string]string{}
	if body != nil {
		h["Content-Type"] = "application/json"
	}
	if idemKey != "" {
		h["Idempotency-Key"] = idemKey
	}
	return client.PreparedRequest{Method: method, Path: path, URL: origin + path, Headers: h, Body: body}
}
