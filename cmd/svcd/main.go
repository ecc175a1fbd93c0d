// Command svcd is the svc daemon: `svcd dev` runs everything in one process on embedded defaults (what
// `make run` starts); `svcd api`, `svcd worker` and `svcd migrate` run the split deployment against an
// external Temporal and PostgreSQL; `svcd accounts` administers accounts and first-key credit tokens;
// `svcd collector` serves a machine's vault transfers (seed 001's collector API).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/internal/account"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

const usage = `svcd — the svc daemon

Usage:
  svcd dev                       everything in one process on embedded defaults (make run)
  svcd dev faucet --to ADDRESS --usdc N [--eth 1] [--rpc URL]
                                 mint dev USDC and send ETH on the running dev chain; prints one JSON line
  svcd dev mail [--to ADDRESS] [--last 5]
                                 print the newest messages of the dev mailbox (sign-in codes mailed while
                                 SVC_SMTP_URL is unset) of the running svcd dev
  svcd api                       the HTTP API (needs DATABASE_URL, TEMPORAL_ADDRESS, SVC_ENCRYPTION_KEY)
  svcd worker                    the Temporal worker (needs DATABASE_URL, TEMPORAL_ADDRESS)
  svcd migrate                   apply database migrations
                                 (admin commands without DATABASE_URL use the running svcd dev, which records
                                 its database and key in ~/.config/svc/dev.json; they never create either)
  svcd accounts create --name NAME [--credits N] [--token-ttl 24h]
                                 create an account; prints {"accountId","creditToken"} as one JSON line
  svcd accounts token --account ACCOUNT_ID [--token-ttl 24h]
                                 sign a new first-key credit token for an account
  svcd accounts set-tier ACCOUNT_ID standard|club
                                 set an account's tier, which selects its storage limits
  svcd partners create --account ACCOUNT_ID --name NAME
                                 make a partner key (X-Partner-Key: deploys token launches for the account);
                                 prints {"partnerId","accountId","name","partnerKey","createdAt"}: the key is shown once
  svcd partners list [--account ACCOUNT_ID]
  svcd partners revoke PARTNER_ID
  svcd skills review             list the public skills pending review, one JSON line each
  svcd skills review --owner ACCOUNT_ID --name NAME --approve|--refuse [--reason TEXT]
                                 approve (the public directory lists it) or refuse a public skill
  svcd dev-db [--database NAME]  find or start the dev PostgreSQL, create NAME (default svc); print its URL
  svcd collector --vault DIR --machine-id ID [--listen 127.0.0.1:8790] [--token T] [--host H]
                 [--runtime R]... [--agent RUNTIME/AGENT_ID[=CLASS,CLASS]]... [--card-interval 1m]
                                 serve the vault-transfer collector API for this machine and publish its
                                 machine card under <vault>/.svc-machines/ (SVC_VAULT, SVC_MACHINE_ID,
                                 SVC_COLLECTOR_TOKEN; off loopback a token of 16+ characters is required)
  svcd version

Configuration comes from environment variables; see README.md.
`

func main() {
	app.TuneGC(os.Getenv)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cfg, err := app.FromEnv(os.Getenv)
	if err != nil {
		fmt.Fprintln(stderr, "svcd:", err)
		return 2
	}
	cfg.Version = version
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = dispatch(ctx, cfg, args, stdout, stderr)
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "svcd: %v\n\n%s", err, usage)
		return 2
	default:
		fmt.Fprintln(stderr, "svcd:", err)
		return 1
	}
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func dispatch(ctx context.Context, cfg app.Config, args []string, stdout, stderr io.Writer) error {
	switch args[0] {
	case "dev":
		if len(args) > 1 && args[1] == "faucet" {
			return devFaucet(ctx, args[2:], stdout, stderr)
		}
		if len(args) > 1 && args[1] == "mail" {
			return devMail(ctx, cfg, args[2:], stdout, stderr)
		}
		return app.Dev(ctx, cfg, stderr)
	case "api":
		return app.API(ctx, cfg)
	case "worker":
		return app.Worker(ctx, cfg)
	case "migrate":
		return app.Migrate(ctx, cfg, stderr)
	case "accounts":
		return accounts(ctx, cfg, args[1:], stdout, stderr)
	case "partners":
		return partners(ctx, cfg, args[1:], stdout, stderr)
	case "skills":
		return skillsAdmin(ctx, cfg, args[1:], stdout, stderr)
	case "dev-db":
		return devDB(ctx, cfg, args[1:], stdout, stderr)
	case "collector":
		return runCollector(ctx, args[1:], stderr)
	case "version":
		fmt.Fprintln(stdout, version)
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	return usageError{fmt.Sprintf("unknown command %q", args[0])}
}

func accounts(ctx context.Context, cfg app.Config, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError{"accounts needs a subcommand: create, token or set-tier"}
	}
	fs := flag.NewFlagSet("accounts "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	name := fs.String("name", "", "account name")
	credits := fs.Int64("credits", 0, "starting credits")
	accountID := fs.String("account", "", "account id (acct_...)")
	ttl := fs.Duration("token-ttl", account.DefaultTokenTTL, "credit token lifetime")
	if err := fs.Parse(args[1:]); err != nil {
		return usageError{err.Error()}
	}
	switch args[0] {
	case "create":
		if *name == "" {
			return usageError{"accounts create needs --name"}
		}
		created, err := app.CreateAccount(ctx, cfg, *name, *credits, *ttl, stderr)
		if err != nil {
			return err
		}
		return json.NewEncoder(stdout).Encode(created)
	case "token":
		if *accountID == "" {
			return usageError{"accounts token needs --account"}
		}
		token, err := app.IssueToken(ctx, cfg, *accountID, *ttl, stderr)
		if err != nil {
			return err
		}
		return json.NewEncoder(stdout).Encode(map[string]any{"accountId": *accountID, "creditToken": token,
			"expiresAt": time.Now().Add(*ttl).UTC().Format(time.RFC3339)})
	case "set-tier":
		return setTier(ctx, cfg, fs.Args(), stdout, stderr)
	}
	return usageError{fmt.Sprintf("unknown accounts subcommand %q", args[0])}
}

// setTier runs `svcd accounts set-tier ACCOUNT_ID standard|club` and prints {"accountId","tier"}.
func setTier(ctx context.Context, cfg app.Config, args []string, stdout, stderr io.Writer) error {
	if len(args) != 2 || (args[1] != "standard" && args[1] != "club") {
		return usageError{"accounts set-tier needs ACCOUNT_ID and a tier, standard or club"}
	}
	if err := app.SetAccountTier(ctx, cfg, args[0], args[1], stderr); err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(map[string]string{"accountId": args[0], "tier": args[1]})
}

func devDB(ctx context.Context, cfg app.Config, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dev-db", flag.ContinueOnError)
	fs.SetOutput(stderr)
	name := fs.String("database", "svc", "database to create if missing")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	url, err := app.DevDatabaseURL(ctx, cfg, *name, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, url)
	return nil
}
