package main

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/svcplatform/svc/client"
)

// tradeParentCommands are the commands of twap and dca orders and of an order's cancel, pause and
// resume.
func tradeParentCommands() []command {
	return []command{
		{name: "trade twap", run: (*app).tradeTWAP, help: tradeTWAPHelp, brief: "split a buy or sell into slices placed at even intervals"},
		{name: "trade dca", run: (*app).tradeDCA, help: tradeDCAHelp, brief: "buy or sell a fixed amount on a schedule, a number of times"},
		{name: "trade cancel", run: func(a *app, args []string) int { return a.tradeOrderAction("cancel", args) }, help: tradeCancelHelp,
			brief: "cancel a limit or stop order, or a twap or dca order's future slices"},
		{name: "trade pause", run: func(a *app, args []string) int { return a.tradeOrderAction("pause", args) }, help: tradePauseHelp,
			brief: "pause a dca order's schedule"},
		{name: "trade resume", run: func(a *app, args []string) int { return a.tradeOrderAction("resume", args) }, help: tradeResumeHelp,
			brief: "resume a paused dca order's schedule"},
	}
}

const tradeParentFlagsHelp = `  --side S              buy or sell (required)
` + tradeSwapFlagsHelp + `  --slices N            how many child orders, 1 to 100 (required)
  --yes                 place the order without asking (or --not-interactive; one is required without a terminal)
  --idempotency-key K   Idempotency-Key of the order (default: random); reuse it to retry safely

The order is printed as placed; follow it with "svc trade orders ID" (slices placed, filled, average
price, amount remaining). A flag's mistake exits 2; the API's refusal exits 1.

` + globalFlagsHelp

const tradeTWAPHelp = `Usage: svc trade twap --side buy|sell --wallet ID --base T [--quote T] --amount N [--exact-out]
                      [--slippage-bps N] --slices N --duration D [--yes]

Places a twap order (POST /v1/trading/orders, type twap): --amount is split evenly into --slices child
market orders (the remainder in the last), placed --duration/--slices apart, the first at once, by the
workflow order/<id>. Each slice is priced afresh with its own slippage bound and its own trading fee.

  --duration D          the order's duration, a Go duration such as 30m or 2h (required)
` + tradeParentFlagsHelp

const tradeDCAHelp = `Usage: svc trade dca --side buy|sell --wallet ID --base T [--quote T] --amount N [--exact-out]
                     [--slippage-bps N] --slices N --every E [--yes]

Places a dca order (POST /v1/trading/orders, type dca): a Temporal schedule places one child market
order of --amount (amountPerSlice) at each fire, --slices times. Pause, resume or cancel it with
"svc trade pause|resume|cancel ID".

  --every E             a Go duration of at least 1m (1h, 24h) or a 5-field cron expression in UTC
                        ("0 9 * * 1") (required)
  --amount N            here: the amount of each slice
` + tradeParentFlagsHelp

const tradeCancelHelp = `Usage: svc trade cancel ID [--json]

Cancels an order (POST /v1/trading/orders/{id}/cancel): a limit or stop order that has not fired, or a
twap or dca order's future slices (its filled slices stay recorded).

` + globalFlagsHelp

const tradePauseHelp = `Usage: svc trade pause ID [--json]

Pauses a dca order's schedule (POST /v1/trading/orders/{id}/pause): no slice is placed until it is
resumed.

` + globalFlagsHelp

const tradeResumeHelp = `Usage: svc trade resume ID [--json]

Resumes a paused dca order's schedule (POST /v1/trading/orders/{id}/resume).

` + globalFlagsHelp

// parentFlags are a twap or dca order's flags.
type parentFlags struct {
	swapFlags
	slices          int
	duration, every string
}

// bind binds the flags of a twap (twap true) or dca order to fs.
func (f *parentFlags) bind(fs *flag.FlagSet, twap bool) {
	f.bindSwap(fs)
	fs.StringVar(&f.req.Side, "side", "", "buy or sell")
	fs.IntVar(&f.slices, "slices", 0, "how many child orders")
	fs.BoolVar(&f.yes, "yes", false, "place the order without asking")
	if twap {
		fs.StringVar(&f.duration, "duration", "", "the order's duration")
	} else {
		fs.StringVar(&f.every, "every", "", "a Go duration or a cron expression")
	}
}

// order is the order request of the flags given.
func (f *parentFlags) order(typ string) client.CreateOrderRequest {
	q := f.request()
	r := client.CreateOrderRequest{Type: typ, WalletID: q.WalletID, Side: q.Side, Base: q.Base, Quote: q.Quote, Amount: q.Amount,
		AmountKind: q.AmountKind, SlippageBps: q.SlippageBps, Slices: f.slices, Duration: f.duration, Every: f.every}
	if typ == client.OrderTypeDCA {
		r.Amount, r.AmountPerSlice = "", q.Amount
	}
	return r
}

// tradeTWAP places a twap order.
func (a *app) tradeTWAP(args []string) int {
	return a.tradeParent("trade twap", client.OrderTypeTWAP, args)
}

// tradeDCA places a dca order.
func (a *app) tradeDCA(args []string) int {
	return a.tradeParent("trade dca", client.OrderTypeDCA, args)
}

// tradeParent checks the flags of a twap or dca order, confirms it and places it.
func (a *app) tradeParent(cmd, typ string, args []string) int {
	var f parentFlags
	fs := a.commandFlags(cmd, &f.idemKey)
	f.bind(fs, typ == client.OrderTypeTWAP)
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	if msg := f.checkParent(typ); msg != "" {
		return a.usageError(cmd, "%s", msg)
	}
	if code, ok := a.mayProceed(cmd, &f.yes, "place the order"); !ok {
		return code
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	if !f.yes {
		if code, placed := a.confirmParent(typ, f); !placed {
			return code
		}
	}
	return a.finishOrder(c.PlaceOrder(a.ctx, f.order(typ), idemOpts(f.idemKey)...))
}

// checkParent names the first flag at fault, or is "".
func (f *parentFlags) checkParent(typ string) string {
	if msg := f.check(); msg != "" {
		return msg
	}
	switch {
	case f.slices < 1 || f.slices > 100:
		return fmt.Sprintf("--slices must be 1 to 100, not %d", f.slices)
	case typ == client.OrderTypeTWAP && strings.TrimSpace(f.duration) == "":
		return "--duration is required: the order's duration, such as 30m"
	case typ == client.OrderTypeDCA && strings.TrimSpace(f.every) == "":
		return "--every is required: a Go duration such as 1h or a cron expression"
	}
	return ""
}

// confirmParent asks before placing; placed false answers the exit code.
func (a *app) confirmParent(typ string, f parentFlags) (int, bool) {
	what := fmt.Sprintf("%s %s %s %s in %d slices over %s?", strings.ToUpper(typ), f.req.Side, f.req.Amount, f.req.Base, f.slices, f.duration)
	if typ == client.OrderTypeDCA {
		what = fmt.Sprintf("DCA %s %s %s every %s, %d times?", f.req.Side, f.req.Amount, f.req.Base, f.every, f.slices)
	}
	sure, err := a.confirm(what)
	if err != nil {
		return a.localError("prompt_failed", err.Error()), false
	}
	if !sure {
		fmt.Fprintln(a.stderr, "No order placed.")
		return exitAPI, false
	}
	return exitOK, true
}

// tradeOrderAction cancels, pauses or resumes an order.
func (a *app) tradeOrderAction(action string, args []string) int {
	cmd := "trade " + action
	fs := a.commandFlags(cmd, nil)
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return a.usageError(cmd, "%s takes one order id", cmd)
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	call := map[string]func() client.Response[client.TradingOrderEnvelope]{
		"cancel": func() client.Response[client.TradingOrderEnvelope] { return c.CancelOrder(a.ctx, pos[0]) },
		"pause":  func() client.Response[client.TradingOrderEnvelope] { return c.PauseOrder(a.ctx, pos[0]) },
		"resume": func() client.Response[client.TradingOrderEnvelope] { return c.ResumeOrder(a.ctx, pos[0]) },
	}[action]
	return answer(a, call(), func(r client.Response[client.TradingOrderEnvelope]) { a.printOrder(r.Body.Order) })
}

// progressRows are a twap or dca order's rows.
func progressRows(o client.TradingOrder) [][2]string {
	p := o.Progress
	if p == nil {
		return nil
	}
	rows := [][2]string{{"Slices", fmt.Sprintf("%d of %d filled (%d placed, %d failed)", p.SlicesFilled, p.SlicesTotal, p.SlicesPlaced, p.SlicesFailed)},
		{"Amount filled", p.AmountFilled}, {"Remaining", p.AmountRemaining}, {"Children", strings.Join(p.ChildOrderIDs, ", ")}}
	if o.Type == client.OrderTypeDCA {
		rows = append(rows, [2]string{"Every", o.Every}, [2]string{"Paused", fmt.Sprint(p.Paused)})
	}
	if p.NextFireAt != nil {
		rows = append(rows, [2]string{"Next fire", p.NextFireAt.UTC().Format(time.RFC3339)})
	}
	return rows
}
