package api

import (
	"context"
	"math/big"
	"net/http"
	"strconv"

	"github.com/ethereum/go-ethereum/common"

	"github.com/svcplatform/svc/internal/evm"
	"github.com/svcplatform/svc/internal/svcerr"
)

// Faucet funds an address on the dev chain: usdcAtomic USDC (6 decimals) and wei ETH.
type Faucet func(ctx context.Context, to common.Address, usdcAtomic, wei *big.Int) (Funded, error)

// Funded are the faucet's transactions (zero hashes for what was not sent).
type Funded struct {
	USDCTx common.Hash
	ETHTx  common.Hash
}

// MaxFaucetUSDC caps one faucet request.
const MaxFaucetUSDC = 1_000_000

type faucetInput struct {
	Body struct {
		Address string  `json:"address" doc:"The 0x address to fund."`
		USDC    float64 `json:"usdc" minimum:"0" maximum:"1000000" doc:"Dev USDC to mint to the address (up to 6 decimals)."`
		ETH     float64 `json:"eth,omitempty" minimum:"0" maximum:"100" doc:"Dev ETH to send (default 0)."`
	}
}

type faucetOutput struct {
	Body struct {
		OK      bool    `json:"ok"`
		Address string  `json:"address"`
		USDC    float64 `json:"usdc"`
		ETH     float64 `json:"eth"`
		USDCTx  string  `json:"usdcTx,omitempty"`
		ETHTx   string  `json:"ethTx,omitempty"`
	}
}

// devAPI serves the dev-mode routes: POST /dev/faucet, when the process has a faucet.
type devAPI struct {
	faucet Faucet
}

// routes are the dev routes: none without a faucet.
func (d *devAPI) routes() []Route {
	if d.faucet == nil {
		return nil
	}
	return []Route{
		handle(Route{Op: "dev.faucet", Method: http.MethodPost, Path: "/dev/faucet", Summary: "Dev mode only: mint dev USDC (and send ETH) to an address on the dev chain", Tag: "Dev"}, d.fund),
	}
}

func (d *devAPI) fund(ctx context.Context, in *faucetInput) (*faucetOutput, error) {
	if !common.IsHexAddress(in.Body.Address) {
		return nil, svcerr.Invalid("address", "address must be a 0x-prefixed 20-byte hex address")
	}
	usdc, ok := decimalUnits(in.Body.USDC, 6)
	if !ok {
		return nil, svcerr.Invalid("usdc", "usdc has at most 6 decimal places")
	}
	wei, ok := decimalUnits(in.Body.ETH, 18)
	if !ok {
		return nil, svcerr.Invalid("eth", "eth has too many decimal places")
	}
	if usdc.Sign() == 0 && wei.Sign() == 0 {
		return nil, svcerr.Invalid("usdc", "ask for some usdc or eth")
	}
	to := common.HexToAddress(in.Body.Address)
	res, err := d.faucet(ctx, to, usdc, wei)
	if err != nil {
		return nil, err
	}
	out := &faucetOutput{}
	out.Body.OK, out.Body.Address, out.Body.USDC, out.Body.ETH = true, to.Hex(), in.Body.USDC, in.Body.ETH
	if res.USDCTx != (common.Hash{}) {
		out.Body.USDCTx = res.USDCTx.Hex()
	}
	if res.ETHTx != (common.Hash{}) {
		out.Body.ETHTx = res.ETHTx.Hex()
	}
	return out, nil
}

// decimalUnits converts a JSON number to integer units of 10^-decimals, refusing finer amounts. It
// reads the shortest decimal that converts back to v: the JSON number 0.1 is 0.1, not its binary
// neighbour.
func decimalUnits(v float64, decimals int) (*big.Int, bool) {
	n, err := evm.ParseUnits(strconv.FormatFloat(v, 'f', -1, 64), decimals)
	return n, err == nil
}
