package wallet

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/big"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
)

// Screening rules (seed 002's security layer), as a screening verdict names them.
const (
	ScreenDenylist           = "denylist"
	ScreenFirstTimeRecipient = "firstTimeRecipient"
	ScreenBurst              = "burst"
	ScreenUnlimitedAllowance = "unlimitedAllowance"
)

// Screening defaults (see ScreeningOptions).
const (
	DefaultFirstRecipientApprovalCents = 250_00
	DefaultBurstSends                  = 100
	DefaultBurstWindow                 = time.Minute
)

// ScreeningOptions configure the screening step every send goes through.
type ScreeningOptions struct {
	// DenylistPath is a file of addresses (recipients, contracts, spenders) that are never sent to, one
	// 0x address a line, # starting a comment (SVC_WALLET_DENYLIST; "" denies nothing). It is read again
	// whenever it changes; a file that cannot be read refuses every send until it can.
	DenylistPath string
	// FirstRecipientApprovalCents: a send above this many USD cents to a recipient the wallet never sent
	// to needs an approval (SVC_WALLET_FIRST_RECIPIENT_APPROVAL_USD; 0 turns the check off).
	FirstRecipientApprovalCents int64
	// BurstSends within BurstWindow: a wallet's next send needs an approval once it recorded this many
	// in the window (SVC_WALLET_BURST_SENDS and SVC_WALLET_BURST_WINDOW; 0 sends turns the check off).
	BurstSends  int
	BurstWindow time.Duration
}

// DefaultScreening are the options without configuration: no denylist, approvals for first-time
// recipients above 250 USD and for more than 100 sends a minute.
func DefaultScreening() ScreeningOptions {
	return ScreeningOptions{FirstRecipientApprovalCents: DefaultFirstRecipientApprovalCents, BurstSends: DefaultBurstSends,
		BurstWindow: DefaultBurstWindow}
}

// Screener screens sends: the denylist, first-time recipients, bursts and unlimited token allowances.
type Screener struct {
	opts ScreeningOptions

	mu      sync.Mutex
	deny    map[common.Address]bool
	modTime time.Time
	size    int64
}

// NewScreener returns a Screener with opts.
func NewScreener(opts ScreeningOptions) *Screener {
	if opts.BurstWindow <= 0 {
		opts.BurstWindow = DefaultBurstWindow
	}
	return &Screener{opts: opts}
}

// approveSelector is the selector of ERC-20 approve(address,uint256).
var approveSelector = []byte{0x09, 0x5e, 0xa7, 0xb3}

// Screen judges snd from w at now, reading w's past sends in db (under the wallet's lock when the send is
// recorded, so concurrent sends count each other). The checks, in order: a denylisted recipient,
// contract or spender blocks; an approve of an unlimited allowance, a burst of sends and a first-time
// recipient above the threshold each need an approval. The first that is not allow decides.
func (s *Screener) Screen(ctx context.Context, db bun.IDB, w *schema.Wallet, snd *send, now time.Time) (client.Screening, error) {
	spender, unlimited := unlimitedApproval(snd.data)
	deny, err := s.denylist()
	if err != nil {
		return client.Screening{}, svcerr.New(svcerr.Unavailable, "screening refuses every send until its denylist can be read: %v", err)
	}
	for _, a := range []common.Address{snd.to, snd.txTo, spender} {
		if a != (common.Address{}) && deny[a] {
			return client.Screening{Verdict: client.ScreeningBlock, Rule: ScreenDenylist,
				Reason: a.Hex() + " is on the denylist of addresses and contracts this platform never sends to"}, nil
		}
	}
	if unlimited {
		return client.Screening{Verdict: client.ScreeningNeedsApproval, Rule: ScreenUnlimitedAllowance,
			Reason: "this call approves " + spender.Hex() + " to spend an unlimited amount of the token " + snd.txTo.Hex()}, nil
	}
	if n := s.opts.BurstSends; n > 0 {
		var recent int
		err := db.NewRaw("SELECT count(*) FROM wallet_transactions WHERE wallet_id = ? AND created_at > ?",
			w.ID, now.Add(-s.opts.BurstWindow)).Scan(ctx, &recent)
		if err != nil {
			return client.Screening{}, fmt.Errorf("count the recent sends of wallet %s: %w", w.ID, err)
		}
		if recent >= n {
			return client.Screening{Verdict: client.ScreeningNeedsApproval, Rule: ScreenBurst,
				Reason: fmt.Sprintf("the wallet recorded %d sends in the last %s (at most %d without an approval)", recent, s.opts.BurstWindow, n)}, nil
		}
	}
	if limit := s.opts.FirstRecipientApprovalCents; limit > 0 && snd.usdCents != nil && *snd.usdCents > limit && snd.to != Address(w) {
		var before bool
		err := db.NewRaw("SELECT EXISTS (SELECT 1 FROM wallet_transactions WHERE wallet_id = ? AND to_address = ? AND status IN (?))",
			w.ID, snd.to.Hex(), bun.List([]string{schema.WalletTxQueued, schema.WalletTxBroadcast, schema.WalletTxConfirmed})).Scan(ctx, &before)
		if err != nil {
			return client.Screening{}, fmt.Errorf("look for past sends of wallet %s to %s: %w", w.ID, snd.to.Hex(), err)
		}
		if !before {
			return client.Screening{Verdict: client.ScreeningNeedsApproval, Rule: ScreenFirstTimeRecipient,
				Reason: fmt.Sprintf("the wallet never sent to %s, and %s is above the first-time recipient threshold of %s",
					snd.to.Hex(), dollars(*snd.usdCents), dollars(limit))}, nil
		}
	}
	return client.Screening{Verdict: client.ScreeningAllow}, nil
}

// unlimitedApproval reports whether data is an ERC-20 approve of the largest uint256 (an unlimited
// allowance), and to whom.
func unlimitedApproval(data []byte) (common.Address, bool) {
	if len(data) < 4+64 || !bytes.Equal(data[:4], approveSelector) {
		return common.Address{}, false
	}
	spender := common.BytesToAddress(data[4:36])
	amount := new(big.Int).SetBytes(data[36:68])
	return spender, amount.Cmp(math.MaxBig256) == 0
}

// denylist answers the denylist, reading its file again when it changed (its modification time or size).
func (s *Screener) denylist() (map[common.Address]bool, error) {
	if s.opts.DenylistPath == "" {
		return nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := os.Stat(s.opts.DenylistPath)
	if err != nil {
		return nil, fmt.Errorf("read the wallet denylist (SVC_WALLET_DENYLIST): %w", err)
	}
	if s.deny != nil && st.ModTime().Equal(s.modTime) && st.Size() == s.size {
		return s.deny, nil
	}
	deny, err := readDenylist(s.opts.DenylistPath)
	if err != nil {
		return nil, err
	}
	s.deny, s.modTime, s.size = deny, st.ModTime(), st.Size()
	return deny, nil
}

// readDenylist reads a denylist file: one 0x address a line; blank lines and # comments are skipped.
func readDenylist(path string) (map[common.Address]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read the wallet denylist (SVC_WALLET_DENYLIST): %w", err)
	}
	defer func() { _ = f.Close() }()
	deny := map[common.Address]bool{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = strings.TrimSpace(text[:i])
		}
		if text == "" {
			continue
		}
		if !common.IsHexAddress(text) {
			return nil, fmt.Errorf("wallet denylist %s line %d: %q is not an address", path, line, text)
		}
		deny[common.HexToAddress(text)] = true
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read the wallet denylist %s: %w", path, err)
	}
	return deny, nil
}
