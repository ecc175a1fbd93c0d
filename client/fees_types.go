package client

// Operation ids of seed 002's public fee routes (no key; cached 2 minutes per address and window).
const (
	OpTokenLaunchFees       = "tokenLaunches.fees.read"
	OpPublicTokenFees       = "public.amm.tokenFees.read"
	OpPublicClaimableFees   = "public.amm.claimableFees.read"
	OpPublicCreatorFees     = "public.amm.creatorFees.read"
	OpPublicBeneficiaryFees = "public.amm.beneficiaryFees.read"
	OpPublicBuildClaim      = "public.amm.buildClaim"
	OpPublicBuildTransfer   = "public.amm.buildTransferBeneficiary"
)

// Fee windows and claim builds (seed 002's limits).
const (
	FeeDaysDefault      = 30
	FeeDaysMax          = 90
	BuildClaimMaxTokens = 50
)

// FeePair is an amount of each of a pool's two tokens: ether-decimal strings (18 decimals, no trailing
// zeros), token0 and token1 ordered by address as in the pool.
type FeePair struct {
	Token0 string `json:"token0" doc:"Amount of token0, a decimal string in whole tokens (18 decimals)."`
	Token1 string `json:"token1" doc:"Amount of token1, a decimal string in whole tokens (18 decimals)."`
}

// ClaimedFees is what a beneficiary has been paid by a pool (its Release events) and how many times.
type ClaimedFees struct {
	Token0 string `json:"token0" doc:"Token0 released to the beneficiary, decimal string (18 decimals)."`
	Token1 string `json:"token1" doc:"Token1 released to the beneficiary, decimal string (18 decimals)."`
	Count  int    `json:"count" doc:"Number of releases (collectFees or updateBeneficiary settlements that paid it)."`
}

// TokenFees is one token of a fee snapshot, for the snapshot's address.
type TokenFees struct {
	TokenAddress string      `json:"tokenAddress"`
	Name         string      `json:"name"`
	Symbol       string      `json:"symbol"`
	PoolID       string      `json:"poolId" doc:"The pool's id (bytes32 hex); never changes."`
	Initializer  string      `json:"initializer" doc:"The fee manager's contract address; never changes."`
	Share        string      `json:"share" doc:"The address's share of the pool's fees, a percent string (57 = 57 %)."`
	Token0Label  string      `json:"token0Label" doc:"Symbol of token0 (WETH or the token)."`
	Token1Label  string      `json:"token1Label" doc:"Symbol of token1."`
	Claimable    FeePair     `json:"claimable" doc:"pendingFees read from the chain now, uncollected pool fees included."`
	Claimed      ClaimedFees `json:"claimed"`
	Source       string      `json:"source" doc:"Where the figures come from: fees-manager (the dev chain's FeesManager)."`
}

// DailyEarning is one UTC day of a fee timeline: WETH released to the address that day.
type DailyEarning struct {
	Date string `json:"date" doc:"YYYY-MM-DD (UTC)."`
	Weth string `json:"weth" doc:"WETH released that day, decimal string (18 decimals)."`
}

// FeeTotals sums a snapshot's tokens.
type FeeTotals struct {
	ClaimableWeth string `json:"claimableWeth"`
	ClaimedWeth   string `json:"claimedWeth"`
	ClaimCount    int    `json:"claimCount"`
}

// FeeSnapshot is seed 002's token-fee snapshot of one address over some tokens.
type FeeSnapshot struct {
	OK                 bool           `json:"ok"`
	Address            string         `json:"address" doc:"The beneficiary the snapshot is of."`
	Chain              string         `json:"chain" doc:"The chain's name (CAIP-2, eip155:1337 on the dev chain)."`
	Days               int            `json:"days"`
	Tokens             []TokenFees    `json:"tokens"`
	DailyEarnings      []DailyEarning `json:"dailyEarnings" doc:"Every UTC day of the window, oldest first, zero days included."`
	LifetimeEarnedWeth string         `json:"lifetimeEarnedWeth" doc:"All WETH ever released to the address by these tokens."`
	LifetimeDays       int            `json:"lifetimeDays" doc:"UTC days on which WETH was released to the address."`
	LifetimeBestDay    *DailyEarning  `json:"lifetimeBestDay" doc:"The day with the most WETH released; null before any."`
	Totals             FeeTotals      `json:"totals"`
}

// ClaimableFees is seed 002's claimable-fees lookup: eligible (holding shares) or not.
type ClaimableFees struct {
	OK            bool                `json:"ok"`
	Eligible      bool                `json:"eligible"`
	TokenAddress  string              `json:"tokenAddress"`
	Share         string              `json:"share,omitempty" doc:"Percent string; only when eligible."`
	ClaimableFees *ClaimableFeeAmount `json:"claimableFees,omitempty" doc:"Only when eligible."`
}

// ClaimableFeeAmount is the claimable amount of each pool token, with their labels.
type ClaimableFeeAmount struct {
	Token0      string `json:"token0"`
	Token1      string `json:"token1"`
	Token0Label string `json:"token0Label"`
	Token1Label string `json:"token1Label"`
}

// BuildClaimRequest is the body of POST /public/amm/build-claim.
type BuildClaimRequest struct {
	BeneficiaryAddress string   `json:"beneficiaryAddress" minLength:"1" maxLength:"100" doc:"The address that will sign and send the claims."`
	TokenAddresses     []string `json:"tokenAddresses" doc:"1 to 50 launched tokens' addresses."`
}

// UnsignedFeeTx is seed 002's unsigned claim transaction: an EIP-1559 call for the caller to sign.
type UnsignedFeeTx struct {
	TokenAddress         string `json:"tokenAddress"`
	TokenName            string `json:"tokenName"`
	TokenSymbol          string `json:"tokenSymbol"`
	To                   string `json:"to" doc:"The fee manager."`
	Data                 string `json:"data" doc:"Hex calldata."`
	ChainID              int64  `json:"chainId"`
	GasEstimate          string `json:"gasEstimate" doc:"eth_estimateGas from the signer plus 30 %, decimal string."`
	MaxFeePerGas         string `json:"maxFeePerGas" doc:"Wei, decimal string: twice the latest base fee plus the priority fee."`
	MaxPriorityFeePerGas string `json:"maxPriorityFeePerGas" doc:"Wei, decimal string."`
	Description          string `json:"description"`
}

// BuildError is a token a claim build could not build, with why.
type BuildError struct {
	TokenAddress string `json:"tokenAddress"`
	Code         string `json:"code" doc:"invalid_address, not_found, not_beneficiary or unavailable."`
	Message      string `json:"message"`
}

// BuildClaimResult answers POST /public/amm/build-claim: the transactions built and the tokens that failed.
type BuildClaimResult struct {
	OK           bool            `json:"ok"`
	Transactions []UnsignedFeeTx `json:"transactions"`
	Errors       []BuildError    `json:"errors"`
}

// BuildTransferRequest is the body of POST /public/amm/build-transfer-beneficiary.
type BuildTransferRequest struct {
	TokenAddress       string `json:"tokenAddress" minLength:"1" maxLength:"100"`
	CurrentBeneficiary string `json:"currentBeneficiary" minLength:"1" maxLength:"100" doc:"Must hold shares of the token's pool (else 403)."`
	NewBeneficiary     string `json:"newBeneficiary" minLength:"1" maxLength:"100"`
}

// BuildTransferResult answers POST /public/amm/build-transfer-beneficiary: one unsigned updateBeneficiary call.
type BuildTransferResult struct {
	OK bool `json:"ok"`
	UnsignedFeeTx
}
