package main

import (
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode"

	"github.com/svcplatform/svc/client"
)

// launchCommands is seed 002's token launch, "svc launch".
func launchCommands() []command {
	return []command{
		{name: "launch", run: (*app).launch, help: launchHelp,
			brief: "launch a token with a Uniswap-style pool and follow it until deployed"},
	}
}

// launchHelp is the help of "svc launch".
const launchHelp = `Usage: svc launch --name N [--symbol S] [--fee VALUE] [--fee-type x|farcaster|ens|wallet]
                  [--image URL] [--tweet URL] [--website URL]
                  [--wallet ID] [-y|--yes] [--simulate] [--interval D] [--timeout D]

Launches a token from the account's wallet (scope wallets:transact, POST /token-launches/deploy):
shows what will be launched and asks first (unless --yes), then follows the launch (GET
/v1/token-launches/{id}) on stderr until it is deployed or failed, and prints the token's address,
pool, poolId, initializer and transaction hashes. The creator's 57 % of the swap fees goes to --fee,
or without it to the deploying wallet.

  --name N          the token's name (1 to 100 characters; required: asked for on a terminal)
  --symbol S        its symbol, 1 to 10 letters or digits (default: made from the name)
  --fee VALUE       who receives the creator's fees: an address, or a handle of --fee-type (asked for
                    on a terminal; left empty, the deploying wallet's address)
  --fee-type T      x (default), farcaster, ens or wallet (an address); with no --fee, wallet
  --image URL       a URL (http or https) of the token's image; a local file is not uploaded
  --tweet URL       a URL (http or https) of the launch's tweet or post
  --website URL     a URL (http or https) of the token's website
  --wallet ID       the deploying wallet (default: the account's first wallet)
  -y, --yes         launch without asking (or without a terminal; --not-interactive skips the question too)
  --simulate        check the flags and print what would be launched; deploys nothing
  --interval D      poll interval while following (default 500ms)
  --timeout D       stop following after D (default 5m); the launch goes on

--image, --tweet and --website (each at most 2048 characters) are stored with the launch and shown in its
record (GET /token-launches, GET /v1/token-launches/{id}) for indexers and websites; they never go on chain.

` + globalFlagsHelp

// feeTypes are the accepted --fee-type values.
var feeTypes = []string{"x", "farcaster", "ens", "wallet"}

// launchFlags are the flags of "svc launch" beyond the request.
type launchFlags struct {
	yes, simulate     bool
	interval, timeout time.Duration
	// feeType: --fee-type was given (a launch without --fee then needs one).
	feeType bool
}

// launch deploys a token and follows it.
func (a *app) launch(args []string) int {
	const cmd = "launch"
	var (
		req client.TokenLaunchRequest
		f   launchFlags
	)
	fs := a.commandFlags(cmd, nil)
	fs.StringVar(&req.TokenName, "name", "", "the token's name")
	fs.StringVar(&req.TokenSymbol, "symbol", "", "the token's symbol")
	fs.StringVar(&req.FeeRecipient.Value, "fee", "", "the fee recipient")
	fs.StringVar(&req.FeeRecipient.Type, "fee-type", "x", "the fee recipient's type")
	fs.StringVar(&req.WalletID, "wallet", "", "the wallet id")
	fs.StringVar(&req.Image, "image", "", "a URL of the token's image")
	fs.StringVar(&req.Tweet, "tweet", "", "a URL of the launch's tweet")
	fs.StringVar(&req.Website, "website", "", "a URL of the token's website")
	fs.BoolVar(&f.yes, "yes", false, "launch without asking")
	fs.BoolVar(&f.yes, "y", false, "launch without asking")
	fs.BoolVar(&f.simulate, "simulate", false, "print without deploying")
	fs.DurationVar(&f.interval, "interval", 500*time.Millisecond, "poll interval")
	fs.DurationVar(&f.timeout, "timeout", 5*time.Minute, "how long to follow")
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	f.feeType = flagsGiven(fs)["fee-type"]
	if err := a.askLaunch(&req); err != nil {
		return a.localError("prompt_failed", err.Error())
	}
	fillLaunch(&req, f)
	if msg := checkLaunch(req, f); msg != "" {
		return a.usageError(cmd, "%s", msg)
	}
	if f.simulate {
		return a.showPlannedLaunch(req, "Simulated (nothing deployed)")
	}
	if code, ok := a.mayProceed(cmd, &f.yes, "launch"); !ok {
		return code
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	if req.FeeRecipient.Value == "" { // the fees go to the deploying wallet
		if req.FeeRecipient.Value, code, ok = a.walletAddress(c, req.WalletID); !ok {
			return code
		}
	}
	if !f.yes {
		a.describeLaunch(req)
		sure, err := a.confirm("Launch it?")
		if err != nil {
			return a.localError("prompt_failed", err.Error())
		}
		if !sure {
			fmt.Fprintln(a.stderr, "Not launched.")
			return exitAPI
		}
	}
	sent := c.DeployToken(a.ctx, req)
	if !sent.OK {
		return apiFailure(a, sent)
	}
	return a.followLaunch(c, sent.Body.Launch, f)
}

// askLaunch asks on a terminal for the required name and fee recipient left out (seed 002: --name is
// required headless). Without a terminal, or with --not-interactive, it asks nothing and checkLaunch
// refuses what is missing.
func (a *app) askLaunch(req *client.TokenLaunchRequest) error {
	if !a.interactive() {
		return nil
	}
	var err error
	if strings.TrimSpace(req.TokenName) == "" {
		if req.TokenName, err = a.promptLine("Token name: "); err != nil {
			return err
		}
	}
	if strings.TrimSpace(req.TokenName) != "" && strings.TrimSpace(req.FeeRecipient.Value) == "" {
		req.FeeRecipient.Value, err = a.promptLine("Fee recipient (" + req.FeeRecipient.Type + "; empty: the deploying wallet): ")
	}
	return err
}

// fillLaunch makes the symbol from the name when --symbol is left out, trims the metadata URLs, and
// makes a launch without --fee (and without --fee-type) pay the deploying wallet: its address is
// looked up when the launch is sent.
func fillLaunch(req *client.TokenLaunchRequest, f launchFlags) {
	if req.TokenSymbol == "" {
		req.TokenSymbol = symbolFrom(req.TokenName)
	}
	req.FeeRecipient.Value = strings.TrimSpace(req.FeeRecipient.Value)
	if req.FeeRecipient.Value == "" && !f.feeType {
		req.FeeRecipient.Type = "wallet"
	}
	for _, v := range []*string{&req.Image, &req.Tweet, &req.Website} {
		*v = strings.TrimSpace(*v)
	}
}

// checkLaunch returns what is wrong with the flags of a launch, naming the flag, or "".
func checkLaunch(req client.TokenLaunchRequest, f launchFlags) string {
	name := strings.TrimSpace(req.TokenName)
	switch {
	case name == "":
		return "--name is required: the token's name"
	case len([]rune(name)) > 100:
		return "--name is at most 100 characters"
	case len(req.TokenSymbol) > 10 || !isAlnum(req.TokenSymbol):
		return fmt.Sprintf("--symbol must be 1 to 10 letters or digits, not %q", req.TokenSymbol)
	case !contains(feeTypes, req.FeeRecipient.Type):
		return fmt.Sprintf("--fee-type must be one of %s, not %q", strings.Join(feeTypes, ", "), req.FeeRecipient.Type)
	case req.FeeRecipient.Value == "" && req.FeeRecipient.Type != "wallet":
		return fmt.Sprintf("--fee is required with --fee-type %s: the handle that receives the creator's fees", req.FeeRecipient.Type)
	case req.FeeRecipient.Type == "wallet" && req.FeeRecipient.Value != "" && !isAddress(req.FeeRecipient.Value):
		return fmt.Sprintf("--fee must be an address (0x and 40 hex digits) with --fee-type wallet, not %q", req.FeeRecipient.Value)
	case f.interval <= 0 || f.timeout <= 0:
		return "--interval and --timeout must be positive"
	}
	return checkMetadataFlags(req.LaunchMetadata)
}

// maxMetadataURL is the longest --image, --tweet or --website the API accepts.
const maxMetadataURL = 2048

// checkMetadataFlags returns what is wrong with --image, --tweet or --website, naming the flag, or "".
func checkMetadataFlags(m client.LaunchMetadata) string {
	if m.Image != "" && !isWebURL(m.Image) && !strings.Contains(m.Image, "://") && !strings.HasPrefix(m.Image, "data:") {
		return fmt.Sprintf("--image takes a URL of the image (http:// or https://), not the local file %q: upload it and pass its URL", clipped(m.Image))
	}
	for _, f := range []struct{ flag, value string }{{"--image", m.Image}, {"--tweet", m.Tweet}, {"--website", m.Website}} {
		switch {
		case f.value == "":
		case len([]rune(f.value)) > maxMetadataURL:
			return fmt.Sprintf("%s is at most %d characters", f.flag, maxMetadataURL)
		case !isWebURL(f.value):
			return fmt.Sprintf("%s must be a URL (http:// or https://), not %q", f.flag, clipped(f.value))
		}
	}
	return ""
}

// clipped shortens s to at most 80 characters for a message.
func clipped(s string) string {
	if r := []rune(s); len(r) > 80 {
		return string(r[:80]) + "…"
	}
	return s
}

// isWebURL reports whether s is an absolute http or https URL with a host.
func isWebURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Hostname() != "" && !strings.ContainsAny(s, " \t\n")
}

// contains reports whether list holds s.
func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// isAlnum reports whether s is not empty and only ASCII letters and digits.
func isAlnum(s string) bool {
	for _, r := range s {
		if r > unicode.MaxASCII || !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return s != ""
}

// isAddress reports whether s is 0x and 40 hex digits.
func isAddress(s string) bool {
	return len(s) == 42 && hexData.MatchString(s)
}

// symbolFrom makes a symbol from a name: the initials of a name of several words, else its first six
// letters and digits, upper-cased; "" when the name has none.
func symbolFrom(name string) string {
	words := strings.FieldsFunc(name, func(r rune) bool { return r > unicode.MaxASCII || !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	var b strings.Builder
	if len(words) > 1 {
		for _, w := range words {
			b.WriteByte(w[0])
		}
	} else {
		b.WriteString(strings.Join(words, ""))
	}
	s := strings.ToUpper(b.String())
	if len(s) > 6 {
		s = s[:6]
	}
	return s
}

// describeLaunch shows on stderr what will be launched.
func (a *app) describeLaunch(req client.TokenLaunchRequest) {
	fmt.Fprintf(a.stderr, "Token:   %s (%s)\nFees to: %s (57 %% of swap fees)\nWallet:  %s\n", req.TokenName, req.TokenSymbol,
		feeRecipientText(req.FeeRecipient), first(req.WalletID, "the account's first wallet"))
	for _, r := range metadataRows(req.LaunchMetadata) {
		fmt.Fprintf(a.stderr, "%-8s %s\n", r[0]+":", r[1])
	}
}

// metadataRows are a launch's image, tweet and website that are set, as label and value.
func metadataRows(m client.LaunchMetadata) [][2]string {
	var rows [][2]string
	for _, r := range [][2]string{{"Image", m.Image}, {"Tweet", m.Tweet}, {"Website", m.Website}} {
		if r[1] != "" {
			rows = append(rows, r)
		}
	}
	return rows
}

// showPlannedLaunch prints a launch that was not sent.
func (a *app) showPlannedLaunch(req client.TokenLaunchRequest, status string) int {
	if a.g.json {
		a.printJSON(map[string]any{"ok": true, "simulated": true, "request": req})
		return exitOK
	}
	fmt.Fprintf(a.stdout, "%s:\n", status)
	tw := a.table()
	fmt.Fprintf(tw, "  Name:\t%s\n  Symbol:\t%s\n  Fee recipient:\t%s\n  Wallet:\t%s\n", req.TokenName, req.TokenSymbol,
		feeRecipientText(req.FeeRecipient), first(req.WalletID, "the account's first wallet"))
	for _, r := range metadataRows(req.LaunchMetadata) {
		fmt.Fprintf(tw, "  %s:\t%s\n", r[0], r[1])
	}
	_ = tw.Flush()
	return exitOK
}

// feeRecipientText is the fee recipient as shown before a launch: its type and value, or the deploying
// wallet when no --fee was given.
func feeRecipientText(r client.FeeRecipient) string {
	if r.Value == "" {
		return "wallet (the deploying wallet)"
	}
	return r.Type + " " + r.Value
}

// walletAddress is the address of the wallet with the id, or of the account's first wallet when id is "".
func (a *app) walletAddress(c *client.Client, id string) (string, int, bool) {
	if id == "" {
		var code int
		var ok bool
		if id, code, ok = a.firstWallet(c); !ok {
			return "", code, false
		}
	}
	r := c.GetWallet(a.ctx, id)
	if !r.OK {
		return "", apiFailure(a, r), false
	}
	return r.Body.Wallet.Address, 0, true
}

// followLaunch polls a launch until it is deployed or failed (or the timeout) and prints it.
func (a *app) followLaunch(c *client.Client, l client.TokenLaunch, f launchFlags) int {
	fmt.Fprintf(a.stderr, "Launch %s %s", l.ID, l.Status)
	deadline := time.Now().Add(f.timeout)
	for l.Status == client.LaunchDeploying && time.Now().Before(deadline) {
		select {
		case <-a.ctx.Done():
			fmt.Fprintln(a.stderr)
			return a.localError("interrupted", "stopped following launch "+l.ID+"; it goes on (GET /v1/token-launches/"+l.ID+")")
		case <-time.After(f.interval):
		}
		r := c.TokenLaunch(a.ctx, l.ID)
		if !r.OK {
			fmt.Fprintln(a.stderr)
			return apiFailure(a, r)
		}
		if r.Body.Launch.Status != l.Status {
			fmt.Fprintf(a.stderr, " → %s", r.Body.Launch.Status)
		} else {
			fmt.Fprint(a.stderr, ".")
		}
		l = r.Body.Launch
	}
	fmt.Fprintln(a.stderr)
	if a.g.json {
		a.printJSON(client.TokenLaunchEnvelope{OK: l.Status != client.LaunchFailed, Launch: l})
	} else {
		a.printLaunch(l)
	}
	switch l.Status {
	case client.LaunchDeployed:
		return exitOK
	case client.LaunchFailed:
		msg := "the launch failed"
		if l.Error != nil {
			msg += ": " + l.Error.Message
		}
		fmt.Fprintln(a.stderr, "error: "+msg)
		return exitAPI
	}
	fmt.Fprintf(a.stderr, "error: launch %s still deploying after %s; it goes on (GET /v1/token-launches/%s)\n", l.ID, f.timeout, l.ID)
	return exitAPI
}

// printLaunch shows a launch.
func (a *app) printLaunch(l client.TokenLaunch) {
	tw := a.table()
	rows := [][2]string{{"Launch", l.ID}, {"Status", l.Status}, {"Token", l.TokenName + " (" + l.TokenSymbol + ")"},
		{"Chain", l.Chain}, {"Token address", l.TokenAddress}, {"Pool", l.PoolAddress}, {"Pool id", l.PoolID},
		{"Initializer", l.Initializer}, {"Fee recipient", l.FeeRecipient.Type + " " + l.FeeRecipient.Value + " → " + l.FeeAddress},
		{"Deployer", l.Deployer.WalletAddress + " (" + l.WalletID + ")"}, {"Transaction", l.TransactionHash},
		{"Gas sponsor tx", l.SponsorTxHash}}
	rows = append(rows, metadataRows(l.LaunchMetadata)...)
	for _, r := range rows {
		if r[1] != "" {
			fmt.Fprintf(tw, "%s:\t%s\n", r[0], r[1])
		}
	}
	_ = tw.Flush()
}
