package client

import "time"

// Balance is an account's credits.
type Balance struct {
	Credits     float64   `json:"credits" doc:"Credits available to spend."`
	HeldCredits float64   `json:"heldCredits" doc:"Credits reserved for calls in progress."`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// BalanceEnvelope answers GET /v1/credits/balance.
type BalanceEnvelope struct {
	OK      bool    `json:"ok"`
	Balance Balance `json:"balance"`
}
