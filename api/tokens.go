package api

import (
	"context"
	"net/http"
	"strconv"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tokeninfo"
)

// tokensAPI serves the public token reads (issue 27): searches of the launched tokens and the trading
// list, and one token's info, priced at a stated block. They need no key.
type tokensAPI struct {
	tokens *tokeninfo.Service
}

// service is the token reads, or 503 when the process has no chain.
func (ta *tokensAPI) service() (*tokeninfo.Service, error) {
	if ta.tokens == nil {
		return nil, svcerr.New(svcerr.Unavailable, "token reads are not configured (no chain)")
	}
	return ta.tokens, nil
}

type searchTokensInput struct {
	Q     string `query:"q" maxLength:"200" doc:"A symbol or name prefix (any case), or a token address."`
	Chain string `query:"chain" maxLength:"100" doc:"The chain: its id, CAIP-2 name or name (default: the platform's chain)."`
	Limit string `query:"limit" maxLength:"10" doc:"How many tokens, 1 to 50 (default 20)."`
}

func (ta *tokensAPI) search(ctx context.Context, in *searchTokensInput) (*Out[client.TokenSearchResult], error) {
	s, err := ta.service()
	if err != nil {
		return nil, err
	}
	limit, err := parseTokenLimit(in.Limit)
	if err != nil {
		return nil, err
	}
	found, err := s.Search(ctx, in.Q, in.Chain, limit)
	if err != nil {
		return nil, err
	}
	return reply(client.TokenSearchResult{OK: true, Query: in.Q, Chain: s.Network(), Tokens: found})
}

// parseTokenLimit reads limit: empty is the default (0), else a whole number (Search checks its range).
func parseTokenLimit(s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || strconv.Itoa(n) != s || n == 0 {
		return 0, svcerr.Invalid("limit", "limit must be a whole number from 1 to %d", client.TokenSearchMaxLimit)
	}
	return n, nil
}

type tokenInfoInput struct {
	Address string `path:"address" maxLength:"100" doc:"The token's 0x address."`
	Chain   string `query:"chain" maxLength:"100" doc:"The chain: its id, CAIP-2 name or name (default: the platform's chain)."`
}

func (ta *tokensAPI) info(ctx context.Context, in *tokenInfoInput) (*Out[client.TokenEnvelope], error) {
	s, err := ta.service()
	if err != nil {
		return nil, err
	}
	t, err := s.Info(ctx, in.Address, in.Chain)
	if err != nil {
		return nil, err
	}
	return reply(client.TokenEnvelope{OK: true, Token: *t})
}

// routes are the public token reads.
func (ta *tokensAPI) routes() []Route {
	const tag = "Tokens"
	return []Route{
		handle(Route{Op: client.OpPublicTokensSearch, Method: http.MethodGet, Path: "/public/tokens/search", Tag: tag, Auth: authNone,
			Summary: "Search the launched tokens and the trading list by symbol or name prefix or address, with price and 24 h volume (public)"},
			ta.search),
		handle(Route{Op: client.OpPublicTokensRead, Method: http.MethodGet, Path: "/public/tokens/{address}", Tag: tag, Auth: authNone,
			Summary:  "A launched or listed token's info: pool, price at a stated block and 24 h volume (public)",
			document: documentErrors(http.StatusNotFound)}, ta.info),
	}
}
