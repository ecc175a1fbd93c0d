package cryptorail

import (
	"fmt"
	"slices"
	"strings"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/svcerr"
)

// preference is the order in which rails are tried for each purpose: credits already paid for come
// before buying more; only a wallet send pays an address.
var preference = map[string][]string{
	client.PurposePlatform: {client.RailCredits, client.RailX402TopUp},
	client.PurposeTopUp:    {client.RailX402TopUp},
	client.PurposeTransfer: {client.RailWalletSend},
}

// verdict is one rail's fit, with the wallet chosen for a wallet send.
type verdict struct {
	client.CryptoVerdict
	walletID string
}

// Select picks the rail for r (already checked by CheckRequest, purpose as it returned): the first rail
// of the purpose's preference that fits, or with rail set that rail if it fits. Nothing fitting is a
// 409 naming every rail's reason.
func Select(f Facts, r client.CryptoActionRequest, purpose string) (client.CryptoSelection, error) {
	all := []verdict{judgeCredits(f, r, purpose), judgeTopUp(f, r, purpose), judgeWallet(f, r, purpose)}
	sel := client.CryptoSelection{Purpose: purpose, AmountUSD: r.AmountUSD, Verdicts: make([]client.CryptoVerdict, len(all))}
	for i, v := range all {
		sel.Verdicts[i] = v.CryptoVerdict
	}
	order := preference[purpose]
	if r.Rail != "" {
		order = []string{r.Rail}
	}
	for _, id := range order {
		i := slices.IndexFunc(all, func(v verdict) bool { return v.Rail == id })
		if i >= 0 && all[i].Fits {
			sel.Rail, sel.Reason, sel.WalletID = id, all[i].Reason, all[i].walletID
			return sel, nil
		}
	}
	return sel, noRail(all, order, purpose, r.AmountUSD)
}

// noRail is the 409 of a request no rail fits, naming why each rail of order does not.
func noRail(all []verdict, order []string, purpose string, amount float64) error {
	var why []string
	for _, v := range all {
		if slices.Contains(order, v.Rail) {
			why = append(why, v.Rail+": "+v.Reason)
		}
	}
	verdicts := make([]client.CryptoVerdict, len(all))
	for i, v := range all {
		verdicts[i] = v.CryptoVerdict
	}
	return svcerr.New(svcerr.Conflict, "no payment rail fits %s of %s USD: %s", purpose, usd(amount), strings.Join(why, "; ")).
		WithDetails("considered", verdicts)
}

func judgeCredits(f Facts, r client.CryptoActionRequest, purpose string) verdict {
	v := verdict{CryptoVerdict: client.CryptoVerdict{Rail: client.RailCredits}}
	need := r.AmountUSD * float64(f.CreditsPerUSD)
	switch {
	case purpose != client.PurposePlatform:
		v.Reason = "credits pay only for the platform's own services"
	case f.Balance == nil:
		v.Reason = "the balance cannot be checked: this key lacks scope credits:read"
	case *f.Balance < need:
		v.Reason = fmt.Sprintf("the balance (%s credits) is short of the %s credits %s USD costs", num(*f.Balance), num(need), usd(r.AmountUSD))
	default:
		v.Fits, v.Reason = true, fmt.Sprintf("the balance (%s credits) covers %s credits; nothing to pay", num(*f.Balance), num(need))
	}
	return v
}

func judgeTopUp(f Facts, r client.CryptoActionRequest, purpose string) verdict {
	v := verdict{CryptoVerdict: client.CryptoVerdict{Rail: client.RailX402TopUp}}
	rail := topUpRail(f)
	buy := TopUpAmount(r.AmountUSD, purpose)
	switch {
	case purpose == client.PurposeTransfer:
		v.Reason = "a top-up buys credits; it cannot pay an address"
	case !rail.Available:
		v.Reason = rail.UnavailableReason
	case buy < TopUpMinUSD || buy > TopUpMaxUSD:
		v.Reason = fmt.Sprintf("a top-up is %d to %d USD, not %s", TopUpMinUSD, TopUpMaxUSD, usd(buy))
	default:
		v.Fits, v.Reason = true, fmt.Sprintf("buy %s USD of credits with an x402 USDC payment on %s", usd(buy), f.X402.Network)
	}
	return v
}

// TopUpAmount is what a top-up for amount buys: the amount, but at least the smallest top-up when the
// credits pay for the platform's services.
func TopUpAmount(amount float64, purpose string) float64 {
	if purpose == client.PurposePlatform && amount < TopUpMinUSD {
		return TopUpMinUSD
	}
	return amount
}

func judgeWallet(f Facts, r client.CryptoActionRequest, purpose string) verdict {
	v := verdict{CryptoVerdict: client.CryptoVerdict{Rail: client.RailWalletSend}}
	rail := walletRail(f)
	switch {
	case purpose != client.PurposeTransfer:
		v.Reason = "a wallet send pays an address; the platform's services are paid in credits"
	case !rail.Available:
		v.Reason = rail.UnavailableReason
	default:
		w, why := pickWallet(f.Wallets, r.WalletID, r.AmountUSD)
		if w == nil {
			v.Reason = why
			return v
		}
		v.Fits, v.walletID = true, w.ID
		v.Reason = fmt.Sprintf("send %s USDC from wallet %s (%s) on %s; its policy judges the send", usd(r.AmountUSD), w.ID, w.Address, w.Chain)
	}
	return v
}

// pickWallet is the wallet named (if it fits) or the first usable wallet whose per-transaction limit
// allows amount; otherwise it says why none does.
func pickWallet(ws []client.CryptoWallet, id string, amount float64) (*client.CryptoWallet, string) {
	for i := range ws {
		w := &ws[i]
		if id != "" && w.ID != id {
			continue
		}
		switch {
		case w.Paused:
			if id != "" {
				return nil, "wallet " + id + " is paused"
			}
		case w.PerTransactionLimitUSD != nil && *w.PerTransactionLimitUSD < amount:
			if id != "" {
				return nil, fmt.Sprintf("wallet %s allows at most %s USD a transaction", id, usd(*w.PerTransactionLimitUSD))
			}
		default:
			return w, ""
		}
	}
	if id != "" {
		return nil, "the account has no wallet " + id
	}
	return nil, fmt.Sprintf("no wallet that is not paused allows %s USD in one transaction", usd(amount))
}

// usd renders dollars with cents only when there are any (25, 25.5 as 25.50).
func usd(v float64) string {
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.2f", v)
}

// num renders a credit amount without needless decimals.
func num(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", v), "0"), ".")
}
