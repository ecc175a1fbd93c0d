package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/big"
	"os"

	"github.com/ethereum/go-ethereum/common"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/internal/devchain"
)

// defaultChainRPC is the dev chain's JSON-RPC endpoint when SVC_CHAIN_RPC_URL is unset.
const defaultChainRPC = "http://" + devchain.DefaultAddr

// faucetRequest is a parsed `svcd dev faucet` command line.
type faucetRequest struct {
	to                common.Address
	usdc, eth         *big.Int
	usdcText, ethText string
	rpc               string
}

// faucetOutput is the one JSON line `svcd dev faucet` prints.
type faucetOutput struct {
	To     string `json:"to"`
	USDC   string `json:"usdc"`
	ETH    string `json:"eth"`
	USDCTx string `json:"usdcTx"`
	ETHTx  string `json:"ethTx"`
}

// devFaucet runs `svcd dev faucet`: it mints dev USDC and sends ETH to --to
// on the dev chain of a running `svcd dev`, then prints what it sent.
func devFaucet(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	req, err := parseFaucetArgs(args, os.Getenv, stderr)
	if err != nil {
		return err
	}
	res, err := devchain.Fund(ctx, req.rpc, req.to, req.usdc, req.eth)
	if err != nil {
		return fmt.Errorf("dev faucet: %w", err)
	}
	return json.NewEncoder(stdout).Encode(faucetOutput{
		To: req.to.Hex(), USDC: req.usdcText, ETH: req.ethText,
		USDCTx: hashOrEmpty(res.USDCTx), ETHTx: hashOrEmpty(res.ETHTx),
	})
}

// parseFaucetArgs parses and validates the faucet flags; every error is a
// usageError naming the flag at fault.
func parseFaucetArgs(args []string, getenv func(string) string, stderr io.Writer) (faucetRequest, error) {
	rpcDefault := cmp.Or(getenv("SVC_CHAIN_RPC_URL"), app.RunningDevChainRPC(getenv), defaultChainRPC)
	fs := flag.NewFlagSet("dev faucet", flag.ContinueOnError)
	fs.SetOutput(stderr)
	to := fs.String("to", "", "recipient address (0x...)")
	usdcText := fs.String("usdc", "", "dev USDC to mint, in dollars (e.g. 25.5; at most 6 decimals)")
	ethText := fs.String("eth", "1", "ETH to send (0 to send none)")
	rpcURL := fs.String("rpc", rpcDefault, "dev chain JSON-RPC URL (default: SVC_CHAIN_RPC_URL, else the running svcd dev's chain)")
	if err := fs.Parse(args); err != nil {
		return faucetRequest{}, usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return faucetRequest{}, usageError{fmt.Sprintf("dev faucet: unexpected argument %q", fs.Arg(0))}
	}
	return validateFaucet(*to, *usdcText, *ethText, *rpcURL)
}

// validateFaucet turns the flag values into a request.
func validateFaucet(to, usdcText, ethText, rpcURL string) (faucetRequest, error) {
	if to == "" {
		return faucetRequest{}, usageError{"dev faucet needs --to"}
	}
	if usdcText == "" {
		return faucetRequest{}, usageError{"dev faucet needs --usdc"}
	}
	if !common.IsHexAddress(to) {
		return faucetRequest{}, usageError{fmt.Sprintf("dev faucet: --to %q is not an address (want 0x and 40 hex digits)", to)}
	}
	usdc, err := devchain.ParseUSDC(usdcText)
	if err != nil {
		return faucetRequest{}, usageError{fmt.Sprintf("dev faucet: --usdc: %v", err)}
	}
	eth, err := devchain.ParseETH(ethText)
	if err != nil {
		return faucetRequest{}, usageError{fmt.Sprintf("dev faucet: --eth: %v", err)}
	}
	if rpcURL == "" {
		return faucetRequest{}, usageError{"dev faucet: --rpc is empty"}
	}
	return faucetRequest{to: common.HexToAddress(to), usdc: usdc, eth: eth,
		usdcText: usdcText, ethText: ethText, rpc: rpcURL}, nil
}

// hashOrEmpty renders a transaction hash, or "" for a skipped transaction.
func hashOrEmpty(h common.Hash) string {
	if h == (common.Hash{}) {
		return ""
	}
	return h.Hex()
}
