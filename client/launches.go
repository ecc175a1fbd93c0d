package client

import (
	"context"
	"net/http"
	"net/url"
)

// Operation ids of token launches (seed 002's "Token launch and fees", issue 20).
const (
	OpTokenLaunchesDeploy = "tokenLaunches.deploy"
	OpTokenLaunchesList   = "tokenLaunches.list"
	OpTokenLaunchesRead   = "tokenLaunches.read"
)

// Statuses of a token launch.
const (
	LaunchDeploying = "deploying"
	LaunchDeployed  = "deployed"
	LaunchFailed    = "failed"
)

// FeeRecipient names who receives the creator's share of a launched token's swap fees.
type FeeRecipient struct {
	Type  string `json:"type" enum:"wallet,x,farcaster,ens" doc:"wallet (an address), x or farcaster (a username), ens (an ENS-style name); handles resolve through the platform's handle resolver."`
	Value string `json:"value" minLength:"1" maxLength:"255" doc:"The address or handle."`
}

// TokenLaunchRequest is the body of POST /token-launches/deploy.
type TokenLaunchRequest struct {
	TokenName    string       `json:"tokenName" minLength:"1" maxLength:"100" doc:"The token's name (1 to 100 characters)."`
	TokenSymbol  string       `json:"tokenSymbol" minLength:"1" maxLength:"10" doc:"The token's symbol: 1 to 10 letters or digits."`
	FeeRecipient FeeRecipient `json:"feeRecipient" doc:"Who receives the creator's 57 % of the swap fees."`
	WalletID     string       `json:"walletId,omitempty" maxLength:"200" doc:"The deploying wallet (wal_…); left out, the account's first wallet (the oldest)."`
	LaunchMetadata
}

// LaunchMetadata is a launch's optional metadata: http(s) URLs that indexers and websites show with the
// token. The platform stores them with the launch and answers them in its record; they never go on chain.
type LaunchMetadata struct {
	Image   string `json:"image,omitempty" maxLength:"2048" doc:"A URL (http or https, at most 2048 characters) of the token's image; an uploaded file or a data: URI is not accepted."`
	Tweet   string `json:"tweet,omitempty" maxLength:"2048" doc:"A URL (http or https, at most 2048 characters) of the launch's tweet or post."`
	Website string `json:"website,omitempty" maxLength:"2048" doc:"A URL (http or https, at most 2048 characters) of the token's website."`
}

// LaunchAddress is an address as the launch record shows it.
type LaunchAddress struct {
	WalletAddress string `json:"walletAddress" doc:"The address (0x…)."`
}

// TokenLaunch is a token launch as its deployer's account sees it.
type TokenLaunch struct {
	ID           string        `json:"id" doc:"The launch (lnch_…); the list's activityId."`
	Status       string        `json:"status" enum:"deploying,deployed,failed"`
	TokenName    string        `json:"tokenName"`
	TokenSymbol  string        `json:"tokenSymbol"`
	Chain        string        `json:"chain" doc:"CAIP-2 chain id."`
	FeeRecipient FeeRecipient  `json:"feeRecipient"`
	FeeAddress   string        `json:"feeRecipientAddress" doc:"The address feeRecipient resolved to."`
	Deployer     LaunchAddress `json:"deployer" doc:"The managed wallet that sends the launch."`
	WalletID     string        `json:"walletId"`
	// TransactionID is the wallet transaction (tx_…) that sends FeesManager.launch.
	TransactionID   string    `json:"transactionId"`
	TokenAddress    string    `json:"tokenAddress,omitempty" doc:"The token: predicted from the launch's salt when it is recorded (FeesManager.predictTokenAddress), the deployed one after; empty if the launch failed."`
	PoolAddress     string    `json:"poolAddress,omitempty"`
	PoolID          string    `json:"poolId,omitempty" doc:"bytes32 pool id (predicted when the launch is recorded, like tokenAddress; empty if the launch failed)."`
	Initializer     string    `json:"initializer,omitempty" doc:"The fee manager that initialises the pool (with poolId)."`
	TransactionHash string    `json:"transactionHash,omitempty" doc:"The launch transaction."`
	SponsorTxHash   string    `json:"gasSponsorTransactionHash,omitempty" doc:"The platform's gas top-up of the wallet."`
	WorkflowID      string    `json:"workflowId" doc:"launch/<id>."`
	Error           *RunError `json:"error,omitempty"`
	CreatedAt       int64     `json:"timestamp" doc:"Milliseconds since the epoch."`
	DeployedAt      *int64    `json:"deployedAt,omitempty" doc:"Milliseconds since the epoch."`
	LaunchMetadata
}

// TokenLaunchEnvelope answers POST /token-launches/deploy and GET /v1/token-launches/{launchId}.
type TokenLaunchEnvelope struct {
	OK     bool        `json:"ok"`
	Launch TokenLaunch `json:"launch"`
}

// LaunchRecord is seed 002's launch record (GET /token-launches).
type LaunchRecord struct {
	ActivityID   string        `json:"activityId" doc:"The launch id."`
	Status       string        `json:"status"`
	TokenName    string        `json:"tokenName"`
	TokenSymbol  string        `json:"tokenSymbol"`
	Chain        string        `json:"chain"`
	TokenAddress string        `json:"tokenAddress"`
	Deployer     LaunchAddress `json:"deployer"`
	FeeRecipient LaunchAddress `json:"feeRecipient"`
	Timestamp    int64         `json:"timestamp" doc:"Milliseconds since the epoch."`
	LaunchMetadata
}

// LaunchList answers GET /token-launches: the 50 newest launches, newest first.
type LaunchList struct {
	OK       bool           `json:"ok"`
	Launches []LaunchRecord `json:"launches"`
}

// DeployToken launches a token, POST /token-launches/deploy (scope wallets:transact, service
// managed-wallets; or a partner key): 202 with the launch deploying.
func (c *Client) DeployToken(ctx context.Context, r TokenLaunchRequest, opts ...CallOption) Response[TokenLaunchEnvelope] {
	return send[TokenLaunchEnvelope](ctx, c, call{method: http.MethodPost, path: "/token-launches/deploy", body: r, auth: authKey, idem: true,
		opts: opts, root: true})
}

// TokenLaunches lists the 50 newest launches, GET /token-launches (public).
func (c *Client) TokenLaunches(ctx context.Context) Response[LaunchList] {
	return send[LaunchList](ctx, c, call{method: http.MethodGet, path: "/token-launches", root: true})
}

// TokenLaunch reads one of the account's launches, GET /v1/token-launches/{launchId}.
func (c *Client) TokenLaunch(ctx context.Context, id string) Response[TokenLaunchEnvelope] {
	return send[TokenLaunchEnvelope](ctx, c, call{method: http.MethodGet, path: "/token-launches/" + url.PathEscape(id), auth: authKey})
}
