package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/svcplatform/svc/client"
)

// tokensHelp is the help of "svc tokens".
const tokensHelp = `Usage: svc tokens <search|info> [flags]

Public token reads (no API key needed): the tokens launched through the platform's FeesManager and the
trading token list, with the pool's price at a stated block and the last 24 hours' volume from the
indexed swaps.

  tokens search QUERY   find tokens by symbol or name prefix, or by address
  tokens info ADDRESS   one token's pool, price and 24 h volume

Run "svc tokens <command> --help" for details.`

// tokensCommands are seed 002's public token commands, "svc tokens ...".
func tokensCommands() []command {
	return []command{
		{name: "tokens", help: tokensHelp},
		{name: "tokens search", args: "QUERY", run: (*app).tokensSearch, help: tokensSearchHelp,
			brief: "search launched and listed tokens by symbol, name or address (public)"},
		{name: "tokens info", args: "ADDRESS", run: (*app).tokensInfo, help: tokensInfoHelp,
			brief: "show a token's pool, price and 24 h volume (public)"},
	}
}

const tokensSearchHelp = `Usage: svc tokens search QUERY [--chain C] [--limit N] [--json]

Searches the launched tokens and the trading token list (GET /public/tokens/search): symbols and names
starting with QUERY (any case), or the token whose address is QUERY; listed tokens first, then launched
ones, newest first. Needs no API key.

  --chain C    the chain: its id (1337), CAIP-2 name (eip155:1337) or name (default: the platform's)
  --limit N    at most N tokens, 1 to 50 (default 20)

` + globalFlagsHelp

const tokensInfoHelp = `Usage: svc tokens info ADDRESS [--chain C] [--json]

Shows one token (GET /public/tokens/{address}): where it comes from (launch or trading list), its pool,
its price in WETH and USD at a stated block and, for a launched token, the last 24 hours' volume from
the indexed swaps. Needs no API key.

  --chain C    the chain: its id (1337), CAIP-2 name (eip155:1337) or name (default: the platform's)

` + globalFlagsHelp

func (a *app) tokensSearch(args []string) int {
	const cmd = "tokens search"
	var chain string
	var limit int
	fs := a.commandFlags(cmd, nil)
	fs.StringVar(&chain, "chain", "", "the chain (default: the platform's)")
	fs.IntVar(&limit, "limit", client.TokenSearchDefaultLimit, "at most this many tokens")
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	switch {
	case len(pos) != 1 || strings.TrimSpace(pos[0]) == "":
		return a.usageError(cmd, "tokens search takes exactly one query (a symbol or name prefix, or an address)")
	case limit < 1 || limit > client.TokenSearchMaxLimit:
		return a.usageError(cmd, "--limit must be 1 to %d, not %d", client.TokenSearchMaxLimit, limit)
	}
	s, err := a.settings()
	if err != nil {
		return a.localError("config_error", err.Error())
	}
	return answer(a, a.newClient(s).SearchTokens(a.ctx, pos[0], chain, limit), func(r client.Response[client.TokenSearchResult]) {
		a.printTokenList(r.Body)
	})
}

func (a *app) tokensInfo(args []string) int {
	const cmd = "tokens info"
	var chain string
	fs := a.commandFlags(cmd, nil)
	fs.StringVar(&chain, "chain", "", "the chain (default: the platform's)")
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	switch {
	case len(pos) != 1:
		return a.usageError(cmd, "tokens info takes exactly one token address")
	case !isAddress(pos[0]):
		return a.usageError(cmd, "the address must be 0x and 40 hex digits, not %q", pos[0])
	}
	s, err := a.settings()
	if err != nil {
		return a.localError("config_error", err.Error())
	}
	return answer(a, a.newClient(s).TokenInfo(a.ctx, pos[0], chain), func(r client.Response[client.TokenEnvelope]) {
		a.printToken(r.Body.Token)
	})
}

// printTokenList shows a search's tokens as a table.
func (a *app) printTokenList(r client.TokenSearchResult) {
	if len(r.Tokens) == 0 {
		fmt.Fprintf(a.stdout, "No token on %s matches %q.\n", r.Chain, r.Query)
		return
	}
	tw := a.table()
	fmt.Fprintln(tw, "SYMBOL\tNAME\tADDRESS\tSOURCE\tPRICE USD\tPRICE WETH\tVOLUME 24H\tVOLUME 24H USD")
	for _, t := range r.Tokens {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.Symbol, oneLine(t.Name, 30), t.Address, t.Source,
			orDash(deref(t.PriceUSD)), orDash(deref(t.PriceWeth)), volumeTokens(t), volumeUSD(t))
	}
	_ = tw.Flush()
	fmt.Fprintf(a.stdout, "\n%d token(s) on %s, priced at block %d; volumes of the last 24 hours (cut to 2 decimals).\n",
		len(r.Tokens), r.Chain, r.Tokens[0].AsOfBlock)
}

// printToken shows one token.
func (a *app) printToken(t client.TokenInfo) {
	fmt.Fprintf(a.stdout, "%s (%s) on %s\n\n", t.Name, t.Symbol, t.Chain)
	tw := a.table()
	row := func(k, v string) { fmt.Fprintf(tw, "%s\t%s\n", k, v) }
	row("Address", t.Address)
	row("Source", t.Source)
	row("Decimals", fmt.Sprint(t.Decimals))
	if t.LaunchID != nil {
		row("Launch", *t.LaunchID)
	}
	if t.PoolID != nil {
		row("Pool id", *t.PoolID)
	}
	row("Pool", orDash(deref(t.PoolAddress)))
	if t.Creator != nil {
		row("Creator", *t.Creator)
		row("Fee recipient", deref(t.FeeRecipient))
	}
	if t.LaunchedAt != nil {
		row("Launched", t.LaunchedAt.UTC().Format(time.RFC3339))
	}
	row("Price USD", orDash(deref(t.PriceUSD)))
	row("Price WETH", orDash(deref(t.PriceWeth)))
	row("Volume 24h", volumeLine(t))
	row("As of block", fmt.Sprint(t.AsOfBlock))
	_ = tw.Flush()
}

// volumeTokens is a token's 24 h volume in tokens, cut to 2 decimals for the table ("-" when not indexed).
func volumeTokens(t client.TokenInfo) string {
	if t.Volume24h == nil {
		return "-"
	}
	return cutDecimals(t.Volume24h.Token, 2)
}

// cutDecimals drops the decimals of a decimal string beyond places (no rounding).
func cutDecimals(s string, places int) string {
	whole, frac, ok := strings.Cut(s, ".")
	if !ok || len(frac) <= places {
		return s
	}
	if frac = strings.TrimRight(frac[:places], "0"); frac == "" {
		return whole
	}
	return whole + "." + frac
}

// volumeUSD is a token's 24 h volume in USD ("-" when unknown).
func volumeUSD(t client.TokenInfo) string {
	if t.Volume24h == nil {
		return "-"
	}
	return orDash(deref(t.Volume24h.USD))
}

// volumeLine describes a token's 24 h volume.
func volumeLine(t client.TokenInfo) string {
	v := t.Volume24h
	if v == nil {
		return "- (the token's pool is not indexed)"
	}
	line := fmt.Sprintf("%s %s / %s WETH in %d swap(s)", v.Token, t.Symbol, v.Weth, v.Swaps)
	if v.USD != nil {
		line += fmt.Sprintf(", %s USD", *v.USD)
	}
	return line + fmt.Sprintf(" (indexed to block %d)", v.IndexedTo)
}
