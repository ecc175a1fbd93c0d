package schema

import (
	"time"

	"github.com/uptrace/bun"
)

// Statuses of a token launch.
const (
	LaunchDeploying = "deploying"
	LaunchDeployed  = "deployed"
	LaunchFailed    = "failed"
)

// TokenLaunch is a token launch run by workflow launch/<id> (migration 0030).
type TokenLaunch struct {
	bun.BaseModel `bun:"table:token_launches"`

	ID                  string     `bun:"id,pk"`
	AccountID           string     `bun:"account_id"`
	ProjectID           *string    `bun:"project_id"`
	KeyID               *string    `bun:"key_id"`
	PartnerID           *string    `bun:"partner_id"`
	Status              string     `bun:"status"`
	TokenName           string     `bun:"token_name"`
	TokenSymbol         string     `bun:"token_symbol"`
	Chain               string     `bun:"chain"`
	FeeRecipientType    string     `bun:"fee_recipient_type"`
	FeeRecipientValue   string     `bun:"fee_recipient_value"`
	FeeRecipientAddress string     `bun:"fee_recipient_address"`
	DeployerAddress     string     `bun:"deployer_address"`
	WalletID            string     `bun:"wallet_id"`
	TransactionID       string     `bun:"transaction_id"`
	Salt                string     `bun:"salt"`
	VaultAddress        string     `bun:"vault_address"`
	TokenAddress        *string    `bun:"token_address"`
	PoolAddress         *string    `bun:"pool_address"`
	PoolID              *string    `bun:"pool_id"`
	Initializer         *string    `bun:"initializer"`
	TxHash              *string    `bun:"tx_hash"`
	SponsorTxHash       *string    `bun:"sponsor_tx_hash"`
	ErrorCode           *string    `bun:"error_code"`
	ErrorMessage        *string    `bun:"error_message"`
	CreatedAt           time.Time  `bun:"created_at,nullzero,default:now()"`
	UpdatedAt           time.Time  `bun:"updated_at,nullzero,default:now()"`
	DeployedAt          *time.Time `bun:"deployed_at"`
	// ImageURL, TweetURL and WebsiteURL are the launch's optional metadata (migration 0056): http(s)
	// URLs shown by indexers and websites, never sent on chain.
	ImageURL   *string `bun:"image_url"`
	TweetURL   *string `bun:"tweet_url"`
	WebsiteURL *string `bun:"website_url"`
}

// GasSponsorship is the platform's top-up of a wallet with the gas of one of its transactions
// (migration 0030).
type GasSponsorship struct {
	bun.BaseModel `bun:"table:gas_sponsorships"`

	TransactionID  string    `bun:"transaction_id,pk"`
	WalletID       string    `bun:"wallet_id"`
	AccountID      string    `bun:"account_id"`
	Purpose        string    `bun:"purpose"`
	Day            time.Time `bun:"day,type:date"`
	SponsorAddress string    `bun:"sponsor_address"`
	ToAddress      string    `bun:"to_address"`
	AmountWei      string    `bun:"amount_wei,type:numeric"`
	Nonce          *int64    `bun:"nonce"`
	RawTx          []byte    `bun:"raw_tx"`
	TxHash         *string   `bun:"tx_hash"`
	Status         string    `bun:"status"`
	CreatedAt      time.Time `bun:"created_at,nullzero,default:now()"`
	UpdatedAt      time.Time `bun:"updated_at,nullzero,default:now()"`
}
