package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
)

// TestWalletsCommands follows managed wallets through the CLI against the real API and dev chain:
// create prints the id, address, chain and default policy; a reused --idempotency-key answers the same
// wallet, replayed; list (newest first, paged with the printed cursor) and get; balances before and
// after the dev faucet funds the wallet; policy changes send only the flags given (off shows as off and
// is null in --json), recipients show when they may receive, and the server's refusals (0, a cooldown
// out of range) name the field and store nothing.
func TestWalletsCommands(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true, NoDatabases: true})
	vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": t.TempDir(), "SVC_BASE_URL": env.URL,
		"SVC_API_KEY": env.FirstKey(t)} // no terminal: nothing prompts, and confirmations need --yes
	svc := func(args ...string) result {
		t.Helper()
		return cli(t, vars, "", args...)
	}
	ok := func(r result) string {
		t.Helper()
		require.Equal(t, exitOK, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
		return r.stdout
	}
	getJSON := func(id string) client.Wallet {
		t.Helper()
		var w client.WalletEnvelope
		out := ok(svc("--json", "wallets", "get", id))
		require.NoError(t, json.Unmarshal([]byte(out), &w), out)
		return w.Wallet
	}
	idRe := regexp.MustCompile(`(?m)^Wallet:\s+(wal_\S+)$`)

	// Create: id, address, chain, then the default policy.
	out := ok(svc("wallets", "create", "--name", "ops"))
	m := idRe.FindStringSubmatch(out)
	require.NotNil(t, m, out)
	id := m[1]
	addr := regexp.MustCompile(`(?m)^Address:\s+(0x[0-9a-fA-F]{40})$`).FindStringSubmatch(out)
	require.NotNil(t, addr, out)
	require.Regexp(t, `(?m)^Name:\s+ops$`, out)
	require.Regexp(t, `(?m)^Chain:\s+eip155:1337$`, out)
	for _, line := range []string{`Paused:\s+no`, `Daily limit:\s+500 USD in any 24 hours`, `Per-transaction limit:\s+500 USD`,
		`Approval above:\s+off`, `Contract calls:\s+allowed`, `Permitted recipients:\s+off \(any address\)`,
		`Recipient cooldown:\s+24 hours`, `No permitted recipients\.`} {
		require.Regexp(t, `(?m)^  `+line+`$`, out)
	}
	w := getJSON(id)
	require.Equal(t, addr[1], w.Address, "the address shown is the wallet's")
	require.NotContains(t, strings.ToLower(out), "private", "no key is shown")

	// An unnamed one through --json; the same Idempotency-Key answers it again, marked replayed.
	retry := []string{"wallets", "create", "--idempotency-key", "wallet-retry-1"}
	var second client.WalletEnvelope
	out = ok(svc(append([]string{"--json"}, retry...)...))
	require.NoError(t, json.Unmarshal([]byte(out), &second), out)
	require.Regexp(t, `^wal_`, second.Wallet.ID)
	require.NotEqual(t, id, second.Wallet.ID)
	out = ok(svc(retry...))
	require.Regexp(t, `(?m)^Wallet:\s+`+second.Wallet.ID+`  \[replayed answer\]$`, out)
	require.Regexp(t, `(?m)^Name:\s+-$`, out)

	// List: both, newest first; one page at a time through the printed cursor.
	out = ok(svc("wallets", "list"))
	require.Regexp(t, `(?m)^ID\s+NAME\s+ADDRESS\s+CHAIN\s+CREATED$`, out)
	require.Regexp(t, `(?m)^`+id+`\s+ops\s+`+w.Address+`\s+eip155:1337\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`, out)
	require.Regexp(t, `(?m)^`+second.Wallet.ID+`\s+-\s+`+second.Wallet.Address+`\s+eip155:1337\s+\S+Z$`, out)
	require.Less(t, strings.Index(out, second.Wallet.ID), strings.Index(out, id), "newest first")
	require.NotContains(t, out, "More wallets")
	out = ok(svc("wallets", "list", "--limit", "1"))
	require.Contains(t, out, second.Wallet.ID)
	require.NotContains(t, out, id)
	c := regexp.MustCompile(`More wallets: svc wallets list --limit 1 --cursor (\S+)\n`).FindStringSubmatch(out)
	require.NotNil(t, c, out)
	out = ok(svc("wallets", "list", "--limit", "1", "--cursor", strings.Trim(c[1], "'")))
	require.Contains(t, out, id)
	require.NotContains(t, out, second.Wallet.ID)
	var list client.WalletList
	out = ok(svc("--json", "wallets", "list", "--all", "--limit", "1"))
	require.NoError(t, json.Unmarshal([]byte(out), &list), out)
	require.Len(t, list.Wallets, 2)

	// Get shows what create showed.
	out = ok(svc("wallets", "get", id))
	require.Regexp(t, `(?m)^Wallet:\s+`+id+`$`, out)
	require.Regexp(t, `(?m)^Address:\s+`+w.Address+`$`, out)
	require.Regexp(t, `(?m)^  Daily limit:\s+500 USD in any 24 hours$`, out)

	// Balances: nothing, then what the dev faucet sent.
	out = ok(svc("wallets", "balances", id))
	require.Contains(t, out, "Wallet "+id+", "+w.Address+" on eip155:1337\n")
	require.Regexp(t, `(?m)^ASSET\s+SYMBOL\s+AMOUNT\s+TOKEN$`, out)
	require.Regexp(t, `(?m)^native\s+ETH\s+0\s+-$`, out)
	require.Regexp(t, `(?m)^usdc\s+USDC\s+0\s+0x[0-9a-fA-F]{40}$`, out)
	require.Regexp(t, `(?m)^Read at block \d+\.$`, out)
	fund := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": w.Address, "usdc": 25.5}})
	require.Equal(t, http.StatusOK, fund.Status, "%s", fund.Raw)
	usdcRe := regexp.MustCompile(`(?m)^usdc\s+USDC\s+25\.5\s+0x[0-9a-fA-F]{40}$`)
	require.Eventually(t, func() bool {
		r := svc("wallets", "balances", id)
		return r.code == exitOK && usdcRe.MatchString(r.stdout)
	}, 30*time.Second, 50*time.Millisecond)
	var bal client.WalletBalances
	out = ok(svc("--json", "wallets", "balances", id))
	require.NoError(t, json.Unmarshal([]byte(out), &bal), out)
	require.Equal(t, "25500000", bal.Balances[1].Atomic)
	require.Positive(t, bal.Block)

	// Policy: only the flags given change; off is null, shown as off.
	out = ok(svc("wallets", "policy", id, "--daily-limit", "off", "--approval-above", "100", "--paused", "true"))
	require.Contains(t, out, "Updated the policy of wallet "+id+" (ops)\n")
	require.Regexp(t, `(?m)^  Daily limit:\s+off$`, out)
	require.Regexp(t, `(?m)^  Approval above:\s+100 USD$`, out)
	require.Regexp(t, `(?m)^  Paused:\s+yes$`, out)
	require.Regexp(t, `(?m)^  Per-transaction limit:\s+500 USD$`, out, "left as it was")
	p := getJSON(id).Policy
	require.Nil(t, p.DailyLimitUSD)
	require.Equal(t, 100.0, *p.ApprovalAboveUSD)
	require.Equal(t, 500.0, *p.PerTransactionLimitUSD)
	out = ok(svc("wallets", "policy", id, "--per-tx-limit", "12.5", "--paused", "false", "--disable-contract-calls", "true"))
	require.Regexp(t, `(?m)^  Per-transaction limit:\s+12\.50 USD$`, out)
	require.Regexp(t, `(?m)^  Paused:\s+no$`, out)
	require.Regexp(t, `(?m)^  Contract calls:\s+disabled`, out)
	require.Regexp(t, `(?m)^  Daily limit:\s+off$`, out, "still off")

	// The server's refusals name the field and store nothing.
	r := svc("wallets", "policy", id, "--daily-limit", "0")
	require.Equal(t, exitAPI, r.code, r.stdout)
	require.Regexp(t, `^error: invalid_request: dailyLimitUsd must be between 1 and 1000000 USD`, r.stderr)
	requireSaidOnce(t, r.stderr)
	r = svc("wallets", "policy", id, "--cooldown-hours", "169")
	require.Equal(t, exitAPI, r.code, r.stdout)
	require.Contains(t, r.stderr, "permittedRecipients.cooldownHours")
	r = svc("--json", "wallets", "policy", id, "--approval-above", "1.005")
	require.Equal(t, exitAPI, r.code, r.stdout)
	var e client.ErrorEnvelope
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &e), r.stdout)
	require.Equal(t, "approvalAboveUsd", e.Error.Param)
	p = getJSON(id).Policy
	require.Nil(t, p.DailyLimitUSD, "a refused change stores nothing")
	require.Equal(t, 100.0, *p.ApprovalAboveUSD)
	require.Equal(t, 24, p.PermittedRecipients.CooldownHours)

	// Recipients: one usable at once (cooldown 0); then a cooldown of 24 hours, which applies to every
	// recipient from when it was added, and a second one; then one removed.
	const now1, later = "0x1111111111111111111111111111111111111111", "0x2222222222222222222222222222222222222222"
	rowRe := func(a string) *regexp.Regexp {
		return regexp.MustCompile(`(?m)^  ` + a + `\s+(\S+Z)\s+(\S+Z)\s+(usable|cooling down)$`)
	}
	out = ok(svc("wallets", "policy", id, "--recipients", "on", "--cooldown-hours", "0", "--add-recipient", now1))
	require.Regexp(t, `(?m)^  Recipient cooldown:\s+0 hours$`, out)
	row := rowRe(now1).FindStringSubmatch(out)
	require.NotNil(t, row, out)
	require.Equal(t, "usable", row[3])
	require.Equal(t, row[1], row[2], "no cooldown: usable when added")
	out = ok(svc("wallets", "policy", id, "--cooldown-hours", "24", "--add-recipient", later))
	require.Regexp(t, `(?m)^  Permitted recipients:\s+on \(only the addresses below\)$`, out)
	require.Regexp(t, `(?m)^  Recipient cooldown:\s+24 hours$`, out)
	require.Regexp(t, `(?m)^  ADDRESS\s+ADDED\s+USABLE AT\s+STATUS$`, out)
	for _, a := range []string{now1, later} {
		row := rowRe(a).FindStringSubmatch(out)
		require.NotNil(t, row, out)
		require.Equal(t, "cooling down", row[3], a)
		added, err := time.Parse(time.RFC3339, row[1])
		require.NoError(t, err)
		usable, err := time.Parse(time.RFC3339, row[2])
		require.NoError(t, err)
		require.Equal(t, 24*time.Hour, usable.Sub(added), a)
	}
	out = ok(svc("wallets", "get", id))
	require.Regexp(t, rowRe(later), out, "get shows the recipients too")
	out = ok(svc("wallets", "policy", id, "--remove-recipient", now1))
	require.NotContains(t, out, now1)
	require.Regexp(t, rowRe(later), out)
	out = ok(svc("wallets", "policy", id, "--recipients", "off"))
	require.Regexp(t, `(?m)^  Permitted recipients:\s+off \(any address\)$`, out)

	// Another wallet id is not found; a chain the platform does not serve is refused naming chain.
	r = svc("wallets", "get", "wal_nope")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "not_found")
	r = svc("wallets", "create", "--chain", "eip155:1")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "chain")
}

// TestWalletsUsage: flag syntax is checked before anything is sent, and the error names the flag.
func TestWalletsUsage(t *testing.T) {
	t.Parallel()
	vars := testEnv(t, nil)
	vars["SVC_API_KEY"] = "svc_sk_unused"
	vars["SVC_BASE_URL"] = "http://127.0.0.1:1" // nothing may be sent
	const a0 = "0x1111111111111111111111111111111111111111"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"wallets"}, "Usage: svc wallets"},
		{[]string{"wallets", "create", "extra"}, `unexpected argument "extra"`},
		{[]string{"wallets", "create", "--name", " "}, "--name must not be empty"},
		{[]string{"wallets", "create", "--chain", ""}, "--chain must not be empty"},
		{[]string{"wallets", "create", "--chian", "x"}, `unknown flag --chian; did you mean --chain?`},
		{[]string{"wallets", "list", "--limit", "500"}, "--limit must be between 1 and 200"},
		{[]string{"wallets", "get"}, "wallets get takes exactly one wallet id"},
		{[]string{"wallets", "balances", "a", "b"}, "wallets balances takes exactly one wallet id"},
		{[]string{"wallets", "policy", "wal_1"}, "nothing to change: give --paused"},
		{[]string{"wallets", "policy", "--paused", "true"}, "wallets policy takes exactly one wallet id"},
		{[]string{"wallets", "policy"}, "wallets policy takes exactly one wallet id"},
		{[]string{"wallets", "policy", "wal_1", "wal_2", "--paused", "true"}, "wallets policy takes exactly one wallet id"},
		{[]string{"wallets", "policy", "wal_1", "--paused", "--daily-limit", "5"}, `--paused must be true or false, not "--daily-limit"`},
		{[]string{"wallets", "policy", "wal_1", "--daily-limit"}, "flag needs an argument: -daily-limit"},
		{[]string{"wallets", "policy", "wal_1", "--paused", "maybe"}, `--paused must be true or false, not "maybe"`},
		{[]string{"wallets", "policy", "wal_1", "--disable-contract-calls", "1"}, `--disable-contract-calls must be true or false, not "1"`},
		{[]string{"wallets", "policy", "wal_1", "--recipients", "true"}, `--recipients must be on or off, not "true"`},
		{[]string{"wallets", "policy", "wal_1", "--daily-limit", "lots"}, `--daily-limit must be a USD amount such as 250 or 12.50, or off; not "lots"`},
		{[]string{"wallets", "policy", "wal_1", "--per-tx-limit", "$5"}, `--per-tx-limit must be a USD amount`},
		{[]string{"wallets", "policy", "wal_1", "--approval-above", "NaN"}, `--approval-above must be a USD amount`},
		{[]string{"wallets", "policy", "wal_1", "--approval-above", ""}, `--approval-above must be a USD amount`},
		{[]string{"wallets", "policy", "wal_1", "--cooldown-hours", "1.5"}, `--cooldown-hours must be a whole number of hours, not "1.5"`},
		{[]string{"wallets", "policy", "wal_1", "--add-recipient", "0x12"}, `--add-recipient "0x12" is not an address`},
		{[]string{"wallets", "policy", "wal_1", "--remove-recipient", ","}, `--remove-recipient must not be empty`},
		{[]string{"wallets", "policy", "wal_1", "--daily-limt", "5"}, `did you mean --daily-limit?`},
		{[]string{"wallets", "send", "--to", a0, "--amount", "1", "--asset", "usdc"}, "wallets send takes exactly one wallet id"},
		{[]string{"wallets", "send", "wal_1", "--amount", "1", "--asset", "usdc"}, "--to is required"},
		{[]string{"wallets", "send", "wal_1", "--to", "0x12", "--amount", "1", "--asset", "usdc"}, `--to "0x12" is not an address`},
		{[]string{"wallets", "send", "wal_1", "--to", a0, "--asset", "usdc"}, "--amount is required"},
		{[]string{"wallets", "send", "wal_1", "--to", a0, "--amount", "1"}, "--asset is required: usdc or native"},
		{[]string{"wallets", "send", "wal_1", "--to", a0, "--amount", "1", "--asset", "doge"}, `--asset must be usdc or native, not "doge"`},
		{[]string{"wallets", "send", "wal_1", "--to", a0, "--amount", "1", "--asset", "native", "--data", "0x1"}, "--data must be hex call data"},
		{[]string{"wallets", "send", "wal_1", "--to", a0, "--amount", "1", "--asset", "usdc", "--data", "0x00"}, "use --asset native"},
		{[]string{"wallets", "send", "wal_1", "--to", a0, "--amount", "1", "--asset", "usdc", "--interval", "0s"}, "--interval must be positive"},
		{[]string{"wallets", "send", "wal_1", "--to", a0, "--amount", "1", "--asset", "usdc"}, "add --yes (or --not-interactive) to send without asking"},
		{[]string{"wallets", "transactions"}, "wallets transactions takes exactly one wallet id"},
		{[]string{"wallets", "transactions", "wal_1", "--limit", "201"}, "--limit must be between 1 and 200"},
		{[]string{"wallets", "transaction", "wal_1"}, "wallets transaction takes a wallet id and a transaction id"},
	} {
		r := cli(t, vars, "", c.args...)
		require.Equal(t, exitUsage, r.code, "%v: %s", c.args, r.stderr)
		require.Contains(t, r.stderr, c.want, c.args)
		require.Empty(t, r.stdout, c.args)
	}
	for _, args := range [][]string{{"wallets", "--help"}, {"wallets", "policy", "--help"}, {"help", "wallets", "balances"},
		{"wallets", "create", "-h"}, {"help", "wallets", "list"}, {"help", "wallets", "get"},
		{"wallets", "send", "--help"}, {"help", "wallets", "transactions"}, {"help", "wallets", "transaction"}} {
		r := cli(t, vars, "", args...)
		require.Equal(t, exitOK, r.code, args)
		require.Contains(t, r.stdout, "Usage: svc wallets", args)
	}
}

// TestWalletsPolicySendsOnlyFlagsGiven: the PATCH body holds exactly the fields whose flags were given,
// off as null, the recipients' changes under permittedRecipients; --idempotency-key is sent.
func TestWalletsPolicySendsOnlyFlagsGiven(t *testing.T) {
	t.Parallel()
	var (
		mu     sync.Mutex
		bodies []string
		keys   []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies, keys = append(bodies, r.Method+" "+r.URL.Path+" "+string(b)), append(keys, r.Header.Get("Idempotency-Key"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"ok":true,"wallet":{"id":"wal_1","name":"","address":"0x1111111111111111111111111111111111111111",
			"chain":"eip155:1337","projectId":null,"createdAt":"2026-01-02T03:04:05Z","policy":{"paused":false,"dailyLimitUsd":null,
			"perTransactionLimitUsd":500,"approvalAboveUsd":null,"disableContractCalls":false,
			"permittedRecipients":{"enabled":false,"cooldownHours":24,"entries":[]}}}}`)
	}))
	t.Cleanup(srv.Close)
	vars := testEnv(t, nil)
	vars["SVC_API_KEY"], vars["SVC_BASE_URL"] = "svc_sk_unused", srv.URL
	const a1, a2 = "0x1111111111111111111111111111111111111111", "0x2222222222222222222222222222222222222222"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--daily-limit", "off"}, `{"dailyLimitUsd":null}`},
		{[]string{"--paused", "FALSE", "--per-tx-limit", "12.5", "--approval-above", "Off"},
			`{"paused":false,"perTransactionLimitUsd":12.5,"approvalAboveUsd":null}`},
		{[]string{"--disable-contract-calls", "true", "--daily-limit", "0"}, `{"dailyLimitUsd":0,"disableContractCalls":true}`},
		{[]string{"--recipients", "on", "--cooldown-hours", "0", "--add-recipient", a1 + "," + a2, "--remove-recipient", a2},
			`{"permittedRecipients":{"enabled":true,"cooldownHours":0,"add":["` + a1 + `","` + a2 + `"],"remove":["` + a2 + `"]}}`},
		{[]string{"--add-recipient", a1, "--add-recipient", a2}, `{"permittedRecipients":{"add":["` + a1 + `","` + a2 + `"]}}`},
	} {
		r := cli(t, vars, "", append([]string{"wallets", "policy", "wal_1", "--idempotency-key", "k1"}, c.args...)...)
		require.Equal(t, exitOK, r.code, "%v: %s", c.args, r.stderr)
		require.Contains(t, r.stdout, "Updated the policy of wallet wal_1\n")
		mu.Lock()
		last, key := bodies[len(bodies)-1], keys[len(keys)-1]
		mu.Unlock()
		method, body, _ := strings.Cut(last, " {")
		require.Equal(t, "PATCH /v1/wallets/wal_1/policy", method, c.args)
		require.JSONEq(t, c.want, "{"+body, c.args)
		require.Equal(t, "k1", key)
	}
}

// TestWalletsSend sends through the CLI against the real API and dev chain: without --yes and without a
// terminal the send fails fast naming --yes; one over the per-transaction limit shows the refusal, exits
// 1 naming perTransactionLimitUsd and sends nothing; a USDC send with --yes shows the quote, follows the
// transaction to confirmed (status changes on stderr) and moves the balances; the transactions list and
// the transaction show it.
func TestWalletsSend(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true, NoDatabases: true})
	vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": t.TempDir(), "SVC_BASE_URL": env.URL,
		"SVC_API_KEY": env.FirstKey(t)} // no terminal: nothing prompts, and confirmations need --yes
	svc := func(args ...string) result {
		t.Helper()
		return cli(t, vars, "", args...)
	}
	ok := func(r result) string {
		t.Helper()
		require.Equal(t, exitOK, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
		return r.stdout
	}
	wallet := func(name string) client.Wallet {
		t.Helper()
		var w client.WalletEnvelope
		out := ok(svc("--json", "wallets", "create", "--name", name))
		require.NoError(t, json.Unmarshal([]byte(out), &w), out)
		return w.Wallet
	}
	usdc := func(id string) string {
		t.Helper()
		var b client.WalletBalances
		out := ok(svc("--json", "wallets", "balances", id))
		require.NoError(t, json.Unmarshal([]byte(out), &b), out)
		return b.Balances[1].Amount
	}
	from, to := wallet("payer"), wallet("payee")
	fund := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": from.Address, "usdc": 1000, "eth": 1}})
	require.Equal(t, http.StatusOK, fund.Status, "%s", fund.Raw)
	require.Eventually(t, func() bool { return usdc(from.ID) == "1000" }, 30*time.Second, 50*time.Millisecond)
	send := []string{"wallets", "send", from.ID, "--to", to.Address, "--asset", "usdc", "--interval", "50ms"}

	// Without --yes and without a terminal: exit 2 naming --yes and --not-interactive, before anything
	// is sent.
	r := svc(append(send, "--amount", "5")...)
	require.Equal(t, exitUsage, r.code, r.stderr)
	require.Contains(t, r.stderr, "add --yes (or --not-interactive)")
	require.Empty(t, r.stdout)
	// --not-interactive skips the confirmation (seed 002): the command goes on to the quote, which here
	// is refused, so nothing is sent.
	r = svc(append(send, "--amount", "600", "--not-interactive")...)
	require.Equal(t, exitAPI, r.code, r.stderr)
	require.Contains(t, r.stderr, "--not-interactive: the confirmation is skipped")
	require.Contains(t, r.stderr, "policy_refused: perTransactionLimitUsd")

	// Over the per-transaction limit: the quote shows the refusal; exit 1 naming the rule; nothing sent.
	r = svc(append(send, "--amount", "600", "--yes")...)
	require.Equal(t, exitAPI, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	require.Regexp(t, `(?m)^  Policy:\s+refused: perTransactionLimitUsd \(\$600\.00 is above the per-transaction limit of \$500\.00\)$`, r.stdout)
	require.Regexp(t, `(?m)^error: policy_refused: perTransactionLimitUsd: \$600\.00 is above the per-transaction limit of \$500\.00; nothing was sent$`, r.stderr)
	require.NotContains(t, r.stdout, "Transaction:")
	require.Equal(t, "No transactions.\n", ok(svc("wallets", "transactions", from.ID)), "nothing was sent")

	// Within the limits, with --yes: quote, status changes on stderr, the confirmed transaction.
	out := ok(svc(append(send, "--amount", "5", "--yes")...))
	require.Regexp(t, `(?m)^Quote quo_\S+ \(valid until \S+Z\)$`, out)
	require.Regexp(t, `(?m)^  To:\s+`+to.Address+`$`, out)
	require.Regexp(t, `(?m)^  Amount:\s+5 USDC$`, out)
	require.Regexp(t, `(?m)^  USD value:\s+5\.00 USD$`, out)
	require.Regexp(t, `(?m)^  Fee:\s+at most [0-9.]+ ETH \(gas limit [1-9]\d*\)$`, out)
	require.Regexp(t, `(?m)^  Policy:\s+allowed$`, out)
	m := regexp.MustCompile(`(?m)^Transaction:\s+(tx_\S+)$`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	txID := m[1]
	require.Regexp(t, `(?m)^Status:\s+confirmed$`, out)
	require.Regexp(t, `(?m)^Amount:\s+5 USDC \(5\.00 USD\)$`, out)
	hash := regexp.MustCompile(`(?m)^Hash:\s+(0x[0-9a-f]{64})$`).FindStringSubmatch(out)
	require.NotNil(t, hash, out)
	require.Regexp(t, `(?m)^Nonce:\s+0$`, out)
	require.Equal(t, "5", usdc(to.ID), "confirmed: the balances moved")
	require.Equal(t, "995", usdc(from.ID))
	r = svc(append(send, "--amount", "2.5", "--yes", "--no-wait")...)
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Regexp(t, `(?m)^Status:\s+(queued|broadcast|confirmed)$`, r.stdout, "--no-wait prints the transaction as sent")
	second := regexp.MustCompile(`(?m)^Transaction:\s+(tx_\S+)$`).FindStringSubmatch(r.stdout)
	require.NotNil(t, second, r.stdout)
	require.Eventually(t, func() bool { return usdc(to.ID) == "7.5" }, 60*time.Second, 50*time.Millisecond)
	require.Equal(t, "992.5", usdc(from.ID))

	// A send that needs an approval shows the verdict and waits for the approval it names (--no-wait:
	// printed as pending); a rejection ends it rejected.
	ok(svc("wallets", "policy", from.ID, "--approval-above", "1"))
	r = svc(append(send, "--amount", "3", "--yes", "--no-wait")...)
	require.Equal(t, exitOK, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	require.Regexp(t, `(?m)^  Policy:\s+needs approval: approvalAboveUsd \(.+\)$`, r.stdout)
	require.Regexp(t, `(?m)^Status:\s+pending_approval$`, r.stdout)
	approval := regexp.MustCompile(`(?m)^Approval:\s+(apr_\S+)$`).FindStringSubmatch(r.stdout)
	require.NotNil(t, approval, r.stdout)
	require.Contains(t, r.stderr, "svc approvals approve "+approval[1])
	pending := regexp.MustCompile(`(?m)^Transaction:\s+(tx_\S+)$`).FindStringSubmatch(r.stdout)
	require.NotNil(t, pending, r.stdout)
	ok(svc("approvals", "reject", approval[1]))
	require.Eventually(t, func() bool {
		return strings.Contains(ok(svc("wallets", "transaction", from.ID, pending[1])), "rejected")
	}, 30*time.Second, 50*time.Millisecond)

	// The list shows both sends, newest first; the transaction shows the whole hash.
	out = ok(svc("wallets", "transactions", from.ID))
	require.Regexp(t, `(?m)^ID\s+STATUS\s+TO\s+AMOUNT\s+ASSET\s+HASH\s+CREATED$`, out)
	require.Regexp(t, `(?m)^`+txID+`\s+confirmed\s+`+to.Address+`\s+5\s+usdc\s+`+regexp.QuoteMeta(hash[1][:10]+"..."+hash[1][62:])+`\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`, out)
	require.Less(t, strings.Index(out, second[1]), strings.Index(out, txID), "newest first")
	out = ok(svc("wallets", "transactions", from.ID, "--limit", "1"))
	require.Contains(t, out, "More transactions: svc wallets transactions "+from.ID+" --limit 1 --cursor ")
	require.NotContains(t, out, txID)
	out = ok(svc("wallets", "transaction", from.ID, txID))
	require.Regexp(t, `(?m)^Transaction:\s+`+txID+`$`, out)
	require.Regexp(t, `(?m)^Hash:\s+`+hash[1]+`$`, out)
	require.Regexp(t, `(?m)^Workflow:\s+wallettx/`+txID+`$`, out)
	require.Regexp(t, `(?m)^Confirmed:\s+\S+Z$`, out)
}

// fakeTo is the recipient of the fake wallet transaction API.
const fakeTo = "0x1111111111111111111111111111111111111111"

// fakeWalletTxAPI answers a quote of 5 USDC, a send (queued) and the transaction, which is broadcast
// at the first read and then has the final status.
type fakeWalletTxAPI struct {
	url   string
	mu    sync.Mutex
	sent  int
	reads int
}

// sends is how many sends the fake API received.
func (f *fakeWalletTxAPI) sends() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sent
}

func newFakeWalletTxAPI(t *testing.T, final string) *fakeWalletTxAPI {
	t.Helper()
	f := &fakeWalletTxAPI{}
	tx := func(status, extra string) string {
		return `{"ok":true,"transaction":{"id":"tx_1","walletId":"wal_1","status":"` + status + `","to":"` + fakeTo +
			`","asset":"usdc","amount":"5","atomic":"5000000","usdValue":5,"hash":null,"nonce":null,"approvalId":null,
			"quoteId":"quo_1","verdict":{"decision":"allowed"},"error":null,"workflowId":"wallettx/tx_1",
			"createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:04:05Z","confirmedAt":null` + extra + `}}`
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		f.mu.Lock()
		defer f.mu.Unlock()
		switch r.Method + " " + r.URL.Path {
		case "POST /v1/wallets/wal_1/transactions/quote":
			_, _ = io.WriteString(w, `{"ok":true,"quote":{"quoteId":"quo_1","walletId":"wal_1","to":"`+fakeTo+`","asset":"usdc",
				"amount":"5","atomic":"5000000","decimals":6,"usdValue":5,"contractCall":false,"fee":{"gasLimit":60000,
				"maxFeePerGasWei":"2","estimateWei":"120000","estimate":"0.00000000000012"},"spentLast24hUsd":0,
				"verdict":{"decision":"allowed"},"expiresAt":"2026-01-02T03:05:05Z"}}`)
		case "POST /v1/wallets/wal_1/transactions":
			f.sent++
			w.WriteHeader(http.StatusAccepted)
			_, _ = io.WriteString(w, tx("queued", ""))
		case "GET /v1/wallets/wal_1/transactions/tx_1":
			f.reads++
			if f.reads == 1 {
				_, _ = io.WriteString(w, tx("broadcast", ""))
				return
			}
			extra := ""
			if final == client.WalletTxFailed {
				extra = `,"error":{"code":"reverted","message":"the transaction reverted on chain"}`
			}
			_, _ = io.WriteString(w, strings.Replace(tx(final, extra), `"error":null,`, "", 1))
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"ok":false,"error":{"code":"not_found","message":"no route"}}`)
		}
	}))
	t.Cleanup(srv.Close)
	f.url = srv.URL
	return f
}

// TestWalletsSendFollows: the status changes go to stderr in order; a failed transaction exits 1 with
// its error code and message.
func TestWalletsSendFollows(t *testing.T) {
	t.Parallel()
	for _, final := range []string{client.WalletTxConfirmed, client.WalletTxFailed} {
		f := newFakeWalletTxAPI(t, final)
		vars := testEnv(t, nil)
		vars["SVC_API_KEY"], vars["SVC_BASE_URL"] = "svc_sk_unused", f.url
		r := cli(t, vars, "", "wallets", "send", "wal_1", "--to", fakeTo, "--amount", "5", "--asset", "usdc", "--yes", "--interval", "10ms")
		require.Regexp(t, `^tx_1  queued\ntx_1  broadcast  \(\S+\)\ntx_1  `+final+`  \(\S+\)\n`, r.stderr)
		require.Regexp(t, `(?m)^Status:\s+`+final+`$`, r.stdout)
		require.Equal(t, 1, f.sends())
		if final == client.WalletTxConfirmed {
			require.Equal(t, exitOK, r.code, r.stderr)
			continue
		}
		require.Equal(t, exitAPI, r.code, r.stderr)
		require.Regexp(t, `(?m)^Error:\s+reverted: the transaction reverted on chain$`, r.stdout)
		require.Contains(t, r.stderr, "error: transaction tx_1 failed: reverted: the transaction reverted on chain\n")
	}

	// --json: stdout holds only the final transaction's envelope; the quote goes to stderr.
	f := newFakeWalletTxAPI(t, client.WalletTxConfirmed)
	vars := testEnv(t, nil)
	vars["SVC_API_KEY"], vars["SVC_BASE_URL"] = "svc_sk_unused", f.url
	r := cli(t, vars, "", "--json", "wallets", "send", "wal_1", "--to", fakeTo, "--amount", "5", "--asset", "usdc", "--yes", "--interval", "10ms")
	require.Equal(t, exitOK, r.code, r.stderr)
	var tx client.WalletTransactionEnvelope
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &tx), r.stdout)
	require.Equal(t, client.WalletTxConfirmed, tx.Transaction.Status)
	require.Regexp(t, `(?m)^  Policy:\s+allowed$`, r.stderr)
}
