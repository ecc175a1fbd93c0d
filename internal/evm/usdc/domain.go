package usdc

// Token facts that off-chain code needs to build EIP-712 / EIP-3009 messages
// without a round trip to the chain. They match contracts/src/DevUSDC.sol.
const (
	// Decimals is the number of decimals of DevUSDC amounts (1 USDC = 1e6 base units).
	Decimals = 6
	// DomainName is the EIP-712 domain name of DevUSDC.
	DomainName = "USD Coin"
	// DomainVersion is the EIP-712 domain version of DevUSDC.
	DomainVersion = "2"
)
