package client

// TopUpRequest is the body of POST /v1/credits/x402/top-up. Nothing else is accepted: the recipient,
// network, asset and price are the server's, and the credits go to the caller's account.
type TopUpRequest struct {
	AmountUSD float64 `json:"amountUsd" minimum:"5" maximum:"500" doc:"US dollars to buy credits for: 5 to 500, at most two decimal places."`
}

// TopUpResult answers a paid top-up.
type TopUpResult struct {
	OK              bool    `json:"ok"`
	CreditedUSD     float64 `json:"creditedUsd" doc:"The amount paid, in US dollars."`
	CreditedCredits float64 `json:"creditedCredits" doc:"The credits added to the balance."`
	ReceiptID       string  `json:"receiptId" doc:"The purchase receipt (also in X-Svc-Paid-Agent-Receipt)."`
	TopUpID         string  `json:"topUpId" doc:"The top-up; its workflow is topup/<topUpId>."`
	Network         string  `json:"network" doc:"The CAIP-2 network the payment settled on."`
	Payer           string  `json:"payer" doc:"The address that paid."`
	Transaction     string  `json:"transaction" doc:"The settlement transaction hash."`
	Balance         Balance `json:"balance" doc:"The balance after the top-up."`
}
