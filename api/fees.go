package api

import (
	"context"
	"net/http"
	"strconv"

	"github.com/danielgtaylor/huma/v2"
	"github.com/ethereum/go-ethereum/common"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/feeread"
	"github.com/svcplatform/svc/internal/svcerr"
)

// feesAPI serves seed 002's public fee reads and unsigned fee transactions at the host root. They need
// no key: the build routes change nothing (they answer transactions for the caller to sign), so they
// take no Idempotency-Key either.
type feesAPI struct {
	fees *feeread.Reader
}

// reader is the fee reader, or 503 when the process has no chain.
func (fa *feesAPI) reader() (*feeread.Reader, error) {
	if fa.fees == nil {
		return nil, svcerr.New(svcerr.Unavailable, "token fees are not configured (no chain)")
	}
	return fa.fees, nil
}

type tokenFeesInput struct {
	TokenAddress string `path:"tokenAddress" maxLength:"100" doc:"The launched token's address."`
	Days         string `query:"days" maxLength:"10" doc:"Window in UTC days, 1 to 90 (default 30)."`
}

func (fa *feesAPI) tokenFees(ctx context.Context, in *tokenFeesInput) (*Out[client.FeeSnapshot], error) {
	return fa.snapshot(ctx, "tokenAddress", in.TokenAddress, in.Days, (*feeread.Reader).TokenFees)
}

// snapshot answers read's fee snapshot of the address in field (the path's raw value) over the days of
// the query's raw value, each checked first (400 naming it).
func (fa *feesAPI) snapshot(ctx context.Context, field, address, rawDays string,
	read func(*feeread.Reader, context.Context, common.Address, int) (*client.FeeSnapshot, error)) (*Out[client.FeeSnapshot], error) {
	r, err := fa.reader()
	if err != nil {
		return nil, err
	}
	addr, err := feeread.ParseAddress(field, address)
	if err != nil {
		return nil, err
	}
	days, err := feeread.ParseDays(rawDays)
	if err != nil {
		return nil, err
	}
	s, err := read(r, ctx, addr, days)
	if err != nil {
		return nil, err
	}
	return reply(*s)
}

type claimableInput struct {
	TokenAddress string `path:"tokenAddress" maxLength:"100"`
	Beneficiary  string `query:"beneficiary" maxLength:"100" doc:"The address to look up (required)."`
}

func (fa *feesAPI) claimable(ctx context.Context, in *claimableInput) (*Out[client.ClaimableFees], error) {
	r, err := fa.reader()
	if err != nil {
		return nil, err
	}
	token, err := feeread.ParseAddress("tokenAddress", in.TokenAddress)
	if err != nil {
		return nil, err
	}
	who, err := feeread.ParseAddress("beneficiary", in.Beneficiary)
	if err != nil {
		return nil, err
	}
	c, err := r.Claimable(ctx, token, who)
	if err != nil {
		return nil, err
	}
	return reply(*c)
}

type walletFeesInput struct {
	WalletAddress string `path:"walletAddress" maxLength:"100"`
	Days          string `query:"days" maxLength:"10" doc:"Window in UTC days, 1 to 90 (default 30)."`
}

func (fa *feesAPI) creatorFees(ctx context.Context, in *walletFeesInput) (*Out[client.FeeSnapshot], error) {
	return fa.snapshot(ctx, "walletAddress", in.WalletAddress, in.Days, (*feeread.Reader).CreatorFees)
}

type beneficiaryFeesInput struct {
	WalletAddress string `path:"walletAddress" maxLength:"100"`
}

func (fa *feesAPI) beneficiaryFees(ctx context.Context, in *beneficiaryFeesInput) (*Out[client.FeeSnapshot], error) {
	r, err := fa.reader()
	if err != nil {
		return nil, err
	}
	who, err := feeread.ParseAddress("walletAddress", in.WalletAddress)
	if err != nil {
		return nil, err
	}
	s, err := r.BeneficiaryFees(ctx, who)
	if err != nil {
		return nil, err
	}
	return reply(*s)
}

type buildClaimInput struct {
	Body client.BuildClaimRequest
}

func (fa *feesAPI) buildClaim(ctx context.Context, in *buildClaimInput) (*Out[client.BuildClaimResult], error) {
	r, err := fa.reader()
	if err != nil {
		return nil, err
	}
	who, err := feeread.ParseAddress("beneficiaryAddress", in.Body.BeneficiaryAddress)
	if err != nil {
		return nil, err
	}
	res, err := r.BuildClaim(ctx, who, in.Body.TokenAddresses)
	if err != nil {
		return nil, err
	}
	return reply(*res)
}

type buildTransferInput struct {
	Body client.BuildTransferRequest
}

func (fa *feesAPI) buildTransfer(ctx context.Context, in *buildTransferInput) (*Out[client.BuildTransferResult], error) {
	r, err := fa.reader()
	if err != nil {
		return nil, err
	}
	token, err := feeread.ParseAddress("tokenAddress", in.Body.TokenAddress)
	if err != nil {
		return nil, err
	}
	current, err := feeread.ParseAddress("currentBeneficiary", in.Body.CurrentBeneficiary)
	if err != nil {
		return nil, err
	}
	next, err := feeread.ParseAddress("newBeneficiary", in.Body.NewBeneficiary)
	if err != nil {
		return nil, err
	}
	res, err := r.BuildTransfer(ctx, token, current, next)
	if err != nil {
		return nil, err
	}
	return reply(*res)
}

// documentErrors declares more error answers of a public route (which declares only 400, 500 and 503),
// with the error envelope of its 400.
func documentErrors(statuses ...int) func(op *huma.Operation) {
	return func(op *huma.Operation) {
		bad := op.Responses["400"]
		if bad == nil {
			return
		}
		for _, s := range statuses {
			resp := *bad
			resp.Description = http.StatusText(s)
			op.Responses[strconv.Itoa(s)] = &resp
		}
	}
}

// routes are seed 002's public fee routes (no key; reads cached 2 minutes per address and window).
func (fa *feesAPI) routes() []Route {
	const tag = "Token fees"
	notFound, forbidden := documentErrors(http.StatusNotFound), documentErrors(http.StatusNotFound, http.StatusForbidden)
	return []Route{
		handle(Route{Op: client.OpTokenLaunchFees, Method: http.MethodGet, Path: "/token-launches/{tokenAddress}/fees", Tag: tag, Auth: authNone,
			Summary: "Fee snapshot of a launched token's creator beneficiary (cached 2 minutes)", document: notFound}, fa.tokenFees),
		handle(Route{Op: client.OpPublicTokenFees, Method: http.MethodGet, Path: "/public/amm/token-fees/{tokenAddress}", Tag: tag, Auth: authNone,
			Summary: "Fee snapshot of a launched token's creator beneficiary (cached 2 minutes)", document: notFound}, fa.tokenFees),
		handle(Route{Op: client.OpPublicClaimableFees, Method: http.MethodGet, Path: "/public/amm/claimable-fees/{tokenAddress}", Tag: tag, Auth: authNone,
			Summary: "What an address may claim from a token's pool (cached 2 minutes)", document: notFound}, fa.claimable),
		handle(Route{Op: client.OpPublicCreatorFees, Method: http.MethodGet, Path: "/public/amm/creator-fees/{walletAddress}", Tag: tag, Auth: authNone,
			Summary: "Fee snapshot of every token an address is the creator beneficiary of, summed (cached 2 minutes)"}, fa.creatorFees),
		handle(Route{Op: client.OpPublicBeneficiaryFees, Method: http.MethodGet, Path: "/public/amm/beneficiary-fees/{walletAddress}", Tag: tag, Auth: authNone,
			Summary: "Every beneficiary position of an address (cached 2 minutes)"}, fa.beneficiaryFees),
		handle(Route{Op: client.OpPublicBuildClaim, Method: http.MethodPost, Path: "/public/amm/build-claim", Tag: tag, Auth: authNone, Reads: true,
			Summary: "Unsigned collectFees transactions for a beneficiary to sign (at most 50 tokens)"}, fa.buildClaim),
		handle(Route{Op: client.OpPublicBuildTransfer, Method: http.MethodPost, Path: "/public/amm/build-transfer-beneficiary", Tag: tag, Auth: authNone,
			Reads: true, Summary: "An unsigned updateBeneficiary transaction for the current beneficiary to sign", document: forbidden}, fa.buildTransfer),
		// Seed 002's legacy claim endpoints, served until their sunset (with /token-launches/{tokenAddress}/claim
		// in the claims' table): the same handlers under their old paths.
		handle(Route{Op: client.OpPublicClaimableFees + ".legacy", Method: http.MethodGet, Path: "/public/amm/claimable/{tokenAddress}", Tag: tag,
			Auth: authNone, Deprecated: legacyClaim("/public/amm/claimable-fees/{tokenAddress}"),
			Summary: "Legacy claimable lookup (deprecated): the same as GET /public/amm/claimable-fees/{tokenAddress}", document: notFound}, fa.claimable),
		handle(Route{Op: client.OpPublicBuildClaim + ".legacy", Method: http.MethodPost, Path: "/public/amm/claim-transactions", Tag: tag,
			Auth: authNone, Reads: true, Deprecated: legacyClaim("/public/amm/build-claim"),
			Summary: "Legacy claim build (deprecated): the same as POST /public/amm/build-claim"}, fa.buildClaim),
		handle(Route{Op: client.OpPublicBuildTransfer + ".legacy", Method: http.MethodPost, Path: "/public/amm/transfer-beneficiary-transaction", Tag: tag,
			Auth: authNone, Reads: true, Deprecated: legacyClaim("/public/amm/build-transfer-beneficiary"),
			Summary: "Legacy beneficiary transfer build (deprecated): the same as POST /public/amm/build-transfer-beneficiary", document: forbidden}, fa.buildTransfer),
	}
}
