package main

import (
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/svcplatform/svc/client"
)

// tradeCommands are the commands of managed spot trading, "svc trade ...".
func tradeCommands() []command {
	return append([]command{
		{name: "trade", help: tradeHelp},
		{name: "trade quote", run: (*app).tradeQuote, help: tradeQuoteHelp, brief: "price a swap from a wallet; moves nothing"},
		{name: "trade buy", run: func(a *app, args []string) int { return a.tradeOrder(client.SideBuy, args) }, help: tradeBuyHelp,
			brief: "buy a token from a wallet: quote, confirm, place the order, follow it"},
		{name: "trade sell", run: func(a *app, args []string) int { return a.tradeOrder(client.SideSell, args) }, help: tradeSellHelp,
			brief: "sell a token from a wallet: quote, confirm, place the order, follow it"},
		{name: "trade orders", run: (*app).tradeOrders, help: tradeOrdersHelp, brief: "list the account's orders, or show one"},
		{name: "trade positions", run: (*app).tradePositions, help: tradePositionsHelp,
			brief: "positions per wallet and token: quantity, average cost, P&L in USD"},
	}, tradeParentCommands()...)
}

// tradeHelp is the help of the "svc trade" group.
const tradeHelp = `Usage: svc trade <quote|buy|sell|twap|dca|orders|cancel|pause|resume|positions> [flags]

Managed spot trading from managed wallets (service managed-trading) on the configured Uniswap V2 router
(svcd dev: USDC/WETH and DEV/WETH pools on the dev chain). Orders run as workflows order/<id>.

  trade quote       price a swap from a wallet; moves nothing
  trade buy         buy a token: quote, confirm, place the order, follow it
  trade sell        sell a token: quote, confirm, place the order, follow it
  trade twap        split a buy or sell into slices placed at even intervals
  trade dca         buy or sell a fixed amount on a schedule, a number of times
  trade orders      list the account's orders, or show one
  trade cancel      cancel a limit or stop order, or a twap or dca order's future slices
  trade pause       pause a dca order's schedule
  trade resume      resume a paused dca order's schedule
  trade positions   positions per wallet and token: quantity, average cost, P&L in USD

` + globalFlagsHelp

// tradeSwapFlagsHelp documents the flags every swap command shares.
const tradeSwapFlagsHelp = `  --wallet ID           the managed wallet that trades (required)
  --base T              the token bought or sold: ETH, WETH, USDC, DEV on the dev chain, or an address (required)
  --quote T             the token paid with or received (default USDC)
  --amount N            the amount in whole units (required): what the wallet pays, or with --exact-out
                        what it receives
  --exact-out           --amount is what the wallet receives (amountKind exact_out)
  --slippage-bps N      tolerated slippage in basis points, 0 to 5000 (default 50)
`

const tradeQuoteHelp = `Usage: svc trade quote --side buy|sell --wallet ID --base T [--quote T] --amount N [--exact-out]
                       [--slippage-bps N]

Prices a swap (POST /v1/trading/quotes, scope trading:execute): the router's amounts at a stated block,
the minimum received or maximum paid after slippage, price, price impact, fees, USD value and the
wallet policy's verdict. Nothing moves; the quote can be ordered for 30 seconds.

  --side S              buy or sell (required)
` + tradeSwapFlagsHelp + `
` + globalFlagsHelp

const tradeOrderFlagsHelp = `  --yes                 place the order without asking (or --not-interactive; one is required without a terminal)
  --no-wait             print the order as placed and do not follow it
  --interval D          poll interval while following (default 500ms)
  --timeout D           stop following after D (default 2m); the order goes on
  --idempotency-key K   Idempotency-Key of the order (default: random); reuse it to retry safely

A failed order (slippage, policy, …) exits 1 with its reason; a refused quote exits 1 before anything is
placed; a flag's mistake exits 2.

`

const tradeBuyHelp = `Usage: svc trade buy --wallet ID --base T [--quote T] --amount N [--exact-out] [--slippage-bps N] [--yes]
                     [--no-wait] [--interval D] [--timeout D] [--idempotency-key K]

Buys --base with --quote from a managed wallet (scope trading:execute). It quotes first and shows the
quote, asks "Buy …? [y/N]" on the terminal unless --yes, places the order from the quote (POST
/v1/trading/orders) and follows workflow order/<id> on stderr (open → submitted → filled), then prints
the order: fills, average price, gas, transaction hashes.

` + tradeSwapFlagsHelp + tradeOrderFlagsHelp + globalFlagsHelp

const tradeSellHelp = `Usage: svc trade sell --wallet ID --base T [--quote T] --amount N [--exact-out] [--slippage-bps N] [--yes]
                      [--no-wait] [--interval D] [--timeout D] [--idempotency-key K]

Sells --base for --quote from a managed wallet, as "svc trade buy" buys: quote, confirm, order, follow.

` + tradeSwapFlagsHelp + tradeOrderFlagsHelp + globalFlagsHelp

const tradeOrdersHelp = `Usage: svc trade orders [ID] [--status S] [--wallet ID] [--pair BASE/QUOTE] [--limit N] [--cursor C]

Without ID, lists the account's orders, newest first (GET /v1/trading/orders, scope trading:read); with
ID, shows that order with its fills (GET /v1/trading/orders/{id}).

  --status S            pending_approval, open, submitted, filled, failed, cancelled or expired
  --wallet ID           only this wallet's orders
  --pair BASE/QUOTE     only this pair's orders, e.g. DEV/USDC
  --limit N             page size (default 50)
  --cursor C            the page after C (nextCursor of the previous page)

` + globalFlagsHelp

const tradePositionsHelp = `Usage: svc trade positions [--wallet ID]

Shows the positions of one wallet, or of every wallet of the account (GET /v1/trading/positions, scope
trading:read): per token, the quantity on the chain, the average cost and cost basis over filled
orders, the price at the pools' mid price, and realised and unrealised P&L in USD. Gas is counted: it
is added to the cost of what an order bought, or taken from the proceeds of a sale into USDC.

  --wallet ID           only this wallet

` + globalFlagsHelp

// swapFlags are the flags of a swap: its request and the order's following.
type swapFlags struct {
	req               client.TradingQuoteRequest
	exactOut          bool
	slippage          int
	yes, noWait       bool
	interval, timeout time.Duration
	idemKey           string
}

// bindSwap binds the request's flags to fs.
func (f *swapFlags) bindSwap(fs *flag.FlagSet) {
	fs.StringVar(&f.req.WalletID, "wallet", "", "the wallet id")
	fs.StringVar(&f.req.Base, "base", "", "the token bought or sold")
	fs.StringVar(&f.req.Quote, "quote", "USDC", "the token paid with or received")
	fs.StringVar(&f.req.Amount, "amount", "", "the amount in whole units")
	fs.BoolVar(&f.exactOut, "exact-out", false, "the amount is what the wallet receives")
	fs.IntVar(&f.slippage, "slippage-bps", -1, "tolerated slippage in basis points")
}

// request is the quote request of the flags given.
func (f *swapFlags) request() client.TradingQuoteRequest {
	r := f.req
	r.AmountKind = client.AmountExactIn
	if f.exactOut {
		r.AmountKind = client.AmountExactOut
	}
	if f.slippage >= 0 {
		s := f.slippage
		r.SlippageBps = &s
	}
	return r
}

// check names the first flag at fault, or is "".
func (f *swapFlags) check() string {
	switch {
	case f.req.Side != client.SideBuy && f.req.Side != client.SideSell:
		return fmt.Sprintf("--side must be buy or sell, not %q", f.req.Side)
	case strings.TrimSpace(f.req.WalletID) == "":
		return "--wallet is required: the managed wallet that trades"
	case strings.TrimSpace(f.req.Base) == "":
		return "--base is required: the token bought or sold (ETH, USDC, DEV, … or an address)"
	case strings.TrimSpace(f.req.Quote) == "":
		return "--quote must name a token"
	case strings.TrimSpace(f.req.Amount) == "":
		return "--amount is required: the amount in whole units, e.g. 10 or 0.5"
	case f.slippage > 5000 || f.slippage < -1:
		return fmt.Sprintf("--slippage-bps must be 0 to 5000, not %d", f.slippage)
	case f.interval < 0 || f.timeout < 0:
		return "--interval and --timeout must be positive"
	}
	return ""
}

// tradeQuote prices a swap and prints the quote.
func (a *app) tradeQuote(args []string) int {
	const cmd = "trade quote"
	var f swapFlags
	fs := a.commandFlags(cmd, nil)
	f.bindSwap(fs)
	fs.StringVar(&f.req.Side, "side", "", "buy or sell")
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	if msg := f.check(); msg != "" {
		return a.usageError(cmd, "%s", msg)
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return answer(a, c.QuoteTrade(a.ctx, f.request()), func(r client.Response[client.TradingQuoteEnvelope]) {
		a.printTradeQuote(r.Body.Quote)
	})
}

// tradeOrder quotes a buy or sell, shows it, confirms, places the order from the quote and follows it.
func (a *app) tradeOrder(side string, args []string) int {
	cmd := "trade " + side
	f := swapFlags{}
	fs := a.commandFlags(cmd, &f.idemKey)
	f.bindSwap(fs)
	fs.BoolVar(&f.yes, "yes", false, "place the order without asking")
	fs.BoolVar(&f.noWait, "no-wait", false, "do not follow the order")
	fs.DurationVar(&f.interval, "interval", 500*time.Millisecond, "poll interval while following")
	fs.DurationVar(&f.timeout, "timeout", 2*time.Minute, "how long to follow")
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	f.req.Side = side
	if msg := f.check(); msg != "" {
		return a.usageError(cmd, "%s", msg)
	}
	if code, ok := a.mayProceed(cmd, &f.yes, "place the order"); !ok {
		return code
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	qr := c.QuoteTrade(a.ctx, f.request())
	if !qr.OK {
		return apiFailure(a, qr)
	}
	q := qr.Body.Quote
	a.describeTradeQuote(q)
	if q.Verdict.Decision == client.VerdictRefused {
		return a.localError("policy_refused", fmt.Sprintf("%s: %s; no order was placed", q.Verdict.Rule, q.Verdict.Message))
	}
	if !f.yes {
		sure, err := a.confirm(fmt.Sprintf("%s %s %s for %s %s%s?", titleCase(side), q.AmountOut, q.TokenOut, q.AmountIn, q.TokenIn,
			usdSuffix(q.USDValue)))
		if err != nil {
			return a.localError("prompt_failed", err.Error())
		}
		if !sure {
			fmt.Fprintln(a.stderr, "No order placed.")
			return exitAPI
		}
	}
	placed := c.PlaceOrder(a.ctx, client.CreateOrderRequest{QuoteID: q.ID}, idemOpts(f.idemKey)...)
	if !placed.OK {
		return apiFailure(a, placed)
	}
	if f.noWait {
		return a.finishOrder(placed)
	}
	return a.finishOrder(a.followOrder(c, placed, f.interval, f.timeout))
}

// titleCase is s with its first letter upper-cased.
func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// followOrder polls an order until it has ended (or the timeout), printing each status change on stderr;
// it returns the last answer.
func (a *app) followOrder(c *client.Client, first client.Response[client.TradingOrderEnvelope], interval, timeout time.Duration) client.Response[client.TradingOrderEnvelope] {
	o := first.Body.Order
	start, last, status := time.Now(), first, o.Status
	fmt.Fprintf(a.stderr, "%s  %s\n", o.ID, status)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for !orderEnded(status) && time.Since(start) < timeout {
		select {
		case <-a.ctx.Done():
			return last
		case <-tick.C:
		}
		r := c.Order(a.ctx, o.ID)
		if !r.OK {
			return r
		}
		last = r
		if s := r.Body.Order.Status; s != status {
			status = s
			fmt.Fprintf(a.stderr, "%s  %s  (%s)\n", o.ID, status, time.Since(start).Round(100*time.Millisecond))
		}
	}
	return last
}

// orderEnded reports whether an order in status has ended.
func orderEnded(status string) bool {
	switch status {
	case client.OrderFilled, client.OrderFailed, client.OrderCancelled, client.OrderExpired:
		return true
	}
	return false
}

// finishOrder prints an order answer (raw with --json) and returns its exit code: 1 for an order that
// failed, was cancelled or expired, with its reason on stderr.
func (a *app) finishOrder(r client.Response[client.TradingOrderEnvelope]) int {
	if !r.OK {
		return apiFailure(a, r)
	}
	o := r.Body.Order
	if a.g.json {
		a.printRaw(r.Raw)
	} else {
		a.printOrder(o)
	}
	switch o.Status {
	case client.OrderFailed, client.OrderCancelled, client.OrderExpired:
		msg := "order " + o.ID + " " + o.Status
		if o.FailureReason != "" {
			msg += ": " + o.FailureReason
		}
		if o.Error != nil {
			msg += ": " + o.Error.Message
		}
		fmt.Fprintln(a.stderr, "error: "+msg)
		return exitAPI
	}
	return exitOK
}

// tradeOrders lists the account's orders, or shows one.
func (a *app) tradeOrders(args []string) int {
	const cmd = "trade orders"
	var f client.OrderFilter
	fs := a.commandFlags(cmd, nil)
	fs.StringVar(&f.Status, "status", "", "only orders in this status")
	fs.StringVar(&f.WalletID, "wallet", "", "only this wallet's orders")
	fs.StringVar(&f.Pair, "pair", "", "only this pair, BASE/QUOTE")
	fs.IntVar(&f.Limit, "limit", 0, "page size")
	fs.StringVar(&f.Cursor, "cursor", "", "the page after this cursor")
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	if len(pos) > 1 {
		return a.usageError(cmd, "trade orders takes at most one order id")
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	if len(pos) == 1 {
		return answer(a, c.Order(a.ctx, pos[0]), func(r client.Response[client.TradingOrderEnvelope]) { a.printOrder(r.Body.Order) })
	}
	return answer(a, c.Orders(a.ctx, f), func(r client.Response[client.TradingOrderList]) {
		tw := a.table()
		fmt.Fprintln(tw, "ID\tSTATUS\tSIDE\tPAIR\tIN\tOUT\tWALLET\tCREATED")
		for _, o := range r.Body.Orders {
			in, out := first(o.FilledIn, o.AmountIn), first(o.FilledOut, o.AmountOut)
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s/%s\t%s %s\t%s %s\t%s\t%s\n", o.ID, o.Status, o.Side, o.Base, o.Quote, in, o.TokenIn, out, o.TokenOut,
				o.WalletID, o.CreatedAt.UTC().Format(time.RFC3339))
		}
		_ = tw.Flush()
		if r.Body.NextCursor != nil {
			fmt.Fprintf(a.stderr, "More: --cursor %s\n", *r.Body.NextCursor)
		}
	})
}

// tradePositions shows the positions of a wallet or of every wallet.
func (a *app) tradePositions(args []string) int {
	const cmd = "trade positions"
	var walletID string
	fs := a.commandFlags(cmd, nil)
	fs.StringVar(&walletID, "wallet", "", "only this wallet")
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return answer(a, c.Positions(a.ctx, walletID), func(r client.Response[client.TradingPositionList]) {
		tw := a.table()
		fmt.Fprintln(tw, "WALLET\tTOKEN\tQUANTITY\tAVG COST\tCOST BASIS\tPRICE\tVALUE\tREALISED\tUNREALISED\tGAS")
		for _, p := range r.Body.Positions {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p.WalletID, p.Token, p.Quantity, p.AverageCost, p.CostBasis,
				first(p.Price, "-"), first(p.Value, "-"), p.RealizedPnL, first(p.UnrealizedPnL, "-"), p.GasUSD)
		}
		_ = tw.Flush()
		fmt.Fprintf(a.stdout, "USD; at block %d\n", r.Body.Block)
	})
}

// printTradeQuote shows a quote on stdout.
func (a *app) printTradeQuote(q client.TradingQuote) {
	tw := a.table()
	a.quoteRows(tw, q)
	_ = tw.Flush()
}

// describeTradeQuote shows a quote on stderr, before asking.
func (a *app) describeTradeQuote(q client.TradingQuote) {
	tw := tabwriter.NewWriter(a.stderr, 0, 0, 2, ' ', 0)
	a.quoteRows(tw, q)
	_ = tw.Flush()
}

// quoteRows writes a quote's rows.
func (a *app) quoteRows(tw interface{ Write([]byte) (int, error) }, q client.TradingQuote) {
	bound := "Minimum received:\t" + q.MinimumReceived + " " + q.TokenOut
	if q.MaximumPaid != "" {
		bound = "Maximum paid:\t" + q.MaximumPaid + " " + q.TokenIn
	}
	usdValue := "unknown"
	if q.USDValue != nil {
		usdValue = usdText(*q.USDValue)
	}
	verdict := q.Verdict.Decision
	if q.Verdict.Rule != "" {
		verdict += " (" + q.Verdict.Rule + ": " + q.Verdict.Message + ")"
	}
	fmt.Fprintf(tw, "Quote:\t%s (%s %s/%s, block %d, expires %s)\nPay:\t%s %s\nReceive:\t%s %s\n%s\nPrice:\t%s %s per %s (impact %d bps)\n",
		q.ID, q.Side, q.Base, q.Quote, q.Block, q.ExpiresAt.UTC().Format(time.RFC3339), q.AmountIn, q.TokenIn, q.AmountOut, q.TokenOut, bound,
		q.Price, q.Quote, q.Base, q.PriceImpactBps)
	fmt.Fprintf(tw, "Fees:\t%s %s LP fee (%d bps) + %g credits\nUSD value:\t%s\nPolicy:\t%s\n", q.Fee.LPFee, q.Fee.LPFeeToken, q.Fee.LPFeeBps,
		q.Fee.TradingFeeCredits, usdValue, verdict)
}

// printOrder shows an order.
func (a *app) printOrder(o client.TradingOrder) {
	tw := a.table()
	rows := [][2]string{{"Order", o.ID}, {"Status", o.Status}, {"Failure", o.FailureReason}, {"Side", o.Side + " " + o.Base + "/" + o.Quote},
		{"Wallet", o.WalletID}, {"Paid", joinAmount(first(o.FilledIn, o.AmountIn), o.TokenIn)},
		{"Received", joinAmount(first(o.FilledOut, o.AmountOut), o.TokenOut)}, {"Average price", o.AveragePrice},
		{"Gas (wei)", o.GasWei}, {"Fee", fmt.Sprintf("%g credits", o.FeeCredits)}, {"Transactions", strings.Join(o.TxHashes, ", ")},
		{"Workflow", o.WorkflowID}}
	if o.Type != client.OrderTypeMarket && o.Type != "" {
		rows = append(rows[:2], append([][2]string{{"Type", o.Type}}, rows[2:]...)...)
	}
	if o.ParentOrderID != nil {
		rows = append(rows, [2]string{"Parent", *o.ParentOrderID})
	}
	rows = append(rows, progressRows(o)...)
	if o.ApprovalID != nil {
		rows = append(rows, [2]string{"Approval", *o.ApprovalID})
	}
	for _, r := range rows {
		if r[1] != "" {
			fmt.Fprintf(tw, "%s:\t%s\n", r[0], r[1])
		}
	}
	_ = tw.Flush()
}

// joinAmount is "amount token", or "" without an amount.
func joinAmount(amount, token string) string {
	if amount == "" {
		return ""
	}
	return amount + " " + token
}
