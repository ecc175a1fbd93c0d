package x402

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
)

// SettlementSucceeded builds the Payment-Response body for a transfer that
// was mined: tx is its hash, payer the authorization's from.
func SettlementSucceeded(network string, tx common.Hash, payer common.Address) SettleResponse {
	return SettleResponse{Success: true, Transaction: tx.Hex(), Network: network, Payer: payer.Hex()}
}

// SettlementFailed builds the Payment-Response body for a settlement that
// did not move the funds. reason is a machine code, message a sentence.
func SettlementFailed(network, reason, message string, payer common.Address) SettleResponse {
	return SettleResponse{Success: false, ErrorReason: reason, ErrorMessage: message, Network: network, Payer: payer.Hex()}
}

// Header returns r encoded for the Payment-Response header.
func (r SettleResponse) Header() (string, error) {
	h, err := EncodeHeader(r)
	if err != nil {
		return "", fmt.Errorf("x402: payment response header: %w", err)
	}
	return h, nil
}
