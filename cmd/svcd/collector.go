package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/svcplatform/svc/internal/collector"
	"github.com/svcplatform/svc/internal/vault"
)

// Environment variables of `svcd collector`.
const (
	envVault          = "SVC_VAULT"
	envMachineID      = "SVC_MACHINE_ID"
	envCollectorToken = "SVC_COLLECTOR_TOKEN"
)

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// runCollector runs `svcd collector` until ctx ends.
func runCollector(ctx context.Context, args []string, stderr io.Writer) error {
	cfg, err := parseCollectorArgs(args, os.Getenv, os.Hostname)
	if err != nil {
		return err
	}
	cfg.Logger = slog.New(slog.NewTextHandler(stderr, nil))
	c, err := collector.New(cfg)
	if err != nil {
		return err
	}
	return c.Run(ctx)
}

// parseCollectorArgs parses the collector's flags; every flag error is a usageError naming the flag.
func parseCollectorArgs(args []string, getenv func(string) string, hostname func() (string, error)) (collector.Config, error) {
	fs := flag.NewFlagSet("collector", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		vaultDir, machineID, listen, token, host string
		runtimes, agents                         listFlag
		interval                                 time.Duration
	)
	fs.StringVar(&vaultDir, "vault", getenv(envVault), "the vault directory (default $SVC_VAULT)")
	fs.StringVar(&machineID, "machine-id", getenv(envMachineID), "this machine's durable id (default $SVC_MACHINE_ID)")
	fs.StringVar(&listen, "listen", collector.DefaultListen, "listen address")
	fs.StringVar(&token, "token", "", "bearer token (default $SVC_COLLECTOR_TOKEN); required off loopback")
	fs.StringVar(&host, "host", "", "host name on the machine card (default: the system's)")
	fs.Var(&runtimes, "runtime", "a runtime this machine runs (repeatable)")
	fs.Var(&agents, "agent", "an agent: RUNTIME/AGENT_ID[=CLASS,CLASS] (repeatable)")
	fs.DurationVar(&interval, "card-interval", collector.DefaultCardInterval, "how often the machine card is rewritten")
	if err := fs.Parse(args); err != nil {
		return collector.Config{}, usageError{"collector: " + err.Error()}
	}
	if fs.NArg() > 0 {
		return collector.Config{}, usageError{fmt.Sprintf("collector: unexpected argument %q", fs.Arg(0))}
	}
	switch {
	case vaultDir == "":
		return collector.Config{}, usageError{"collector needs --vault DIR (or SVC_VAULT)"}
	case machineID == "":
		return collector.Config{}, usageError{"collector needs --machine-id ID (or SVC_MACHINE_ID)"}
	}
	if host == "" {
		h, err := hostname()
		if err != nil {
			return collector.Config{}, fmt.Errorf("collector: host name: %w (set --host)", err)
		}
		host = h
	}
	cards, err := parseAgents(agents)
	if err != nil {
		return collector.Config{}, err
	}
	v, err := vault.Open(vaultDir, vault.Options{})
	if err != nil {
		return collector.Config{}, fmt.Errorf("collector: %w", err)
	}
	return collector.Config{Vault: v, MachineID: machineID, Host: host, Runtimes: mergeRuntimes(runtimes, cards),
		Agents: cards, Listen: listen, Token: cmp.Or(token, getenv(envCollectorToken)), CardInterval: interval}, nil
}

// parseAgents reads --agent RUNTIME/AGENT_ID[=CLASS,CLASS] values.
func parseAgents(values []string) ([]vault.AgentCard, error) {
	var out []vault.AgentCard
	for _, v := range values {
		spec, classes, _ := strings.Cut(v, "=")
		runtime, id, ok := strings.Cut(spec, "/")
		if !ok || runtime == "" || id == "" {
			return nil, usageError{fmt.Sprintf("collector: --agent %q: want RUNTIME/AGENT_ID[=CLASS,CLASS]", v)}
		}
		card := vault.AgentCard{ID: id, Runtime: runtime, WorkerClasses: []string{}}
		for _, c := range strings.Split(classes, ",") {
			if c = strings.TrimSpace(c); c != "" {
				card.WorkerClasses = append(card.WorkerClasses, c)
			}
		}
		out = append(out, card)
	}
	return out, nil
}

// mergeRuntimes is the --runtime values plus the agents' runtimes, each once, in order of first mention.
func mergeRuntimes(runtimes []string, agents []vault.AgentCard) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, r := range runtimes {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	for _, a := range agents {
		if !seen[a.Runtime] {
			seen[a.Runtime] = true
			out = append(out, a.Runtime)
		}
	}
	return out
}
