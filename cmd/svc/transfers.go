package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/vault"
)

// Environment variables of the transfers commands.
const (
	envVault     = "SVC_VAULT"
	envMachineID = "SVC_MACHINE_ID"
)

// transfersHelp is the help of "svc transfers".
const transfersHelp = `Usage: svc transfers <send|inbox|ack> [flags]

File transfers between machines, runtimes and agents through a synced vault folder (seed 001): the
sender writes <vault>/.svc-transfers/<transfer-id>/ (payload files first, the manifest last), a sync
provider replicates it, the receiver lists its inbox, checks the files and acknowledges. No API key is
needed: everything happens in the local vault copy. Transfers are not for secrets: notes, file names and
files holding API keys, private keys or wallet seed phrases are refused.

The vault is --syncPath, else $` + envVault + `, else "vault" in the config file.

  transfers send    leave local files for a machine, runtime or agent
  transfers inbox   list the whole transfers for this identity, as JSON
  transfers ack     acknowledge a transfer after checking its files

Run "svc transfers <command> --help" for details.`

// transfersCommands are the commands of transfers, "svc transfers ...".
func transfersCommands() []command {
	return []command{
		{name: "transfers", help: transfersHelp},
		{name: "transfers send", args: "FILE...", run: (*app).transfersSend, help: transfersSendHelp,
			brief: "leave local files in the vault for a machine, runtime or agent"},
		{name: "transfers inbox", run: (*app).transfersInbox, help: transfersInboxHelp,
			brief: "list the vault transfers for this machine, runtime or agent (JSON)"},
		{name: "transfers ack", args: "TRANSFER_ID", run: (*app).transfersAck, help: transfersAckHelp,
			brief: "acknowledge a vault transfer after verifying its files"},
	}
}

const transfersSendHelp = `Usage: svc transfers send FILE... (--toMachine ID | --toHost HOST) [--toRuntime R] [--toAgent A]
       [--fromMachine ID] [--fromRuntime R] [--fromAgent A] [--note TEXT] [--syncPath DIR]

Copies the files into a new transfer in the vault and prints its id. --toMachine wins over --toHost
when both are given. Each file is scanned for secrets first; a finding refuses the send and names its
kind and the file. Progress is shown on stderr for large sends when stderr is a terminal.

  --toMachine ID    target machine id (durable; preferred)
  --toHost HOST     target host name, when no machine id is known
  --toRuntime R     narrow to one runtime
  --toAgent A       narrow to one agent
  --fromMachine ID  sender machine id (default $` + envMachineID + `)
  --fromRuntime R   sender runtime
  --fromAgent A     sender agent
  --note TEXT       context for the receiver (never a secret)
  --syncPath DIR    the vault directory

` + globalFlagsHelp

const transfersInboxHelp = `Usage: svc transfers inbox [--machine ID] [--runtime R] [--agent A] [--all] [--syncPath DIR]

Prints, as JSON {"ok":true,"transfers":[...]}, the transfers targeted at this identity whose files have
all arrived and match their manifest, with the absolute path of every file. Acknowledged transfers are
left out unless --all. This machine's host name is part of the identity (for --toHost transfers).

  --machine ID     this machine's id (default $` + envMachineID + `)
  --runtime R      this runtime: also shows the runtime's agent-specific transfers
  --agent A        this agent: shows runtime-wide transfers and this agent's own
  --all            include transfers already acknowledged
  --syncPath DIR   the vault directory

` + globalFlagsHelp

const transfersAckHelp = `Usage: svc transfers ack TRANSFER_ID [--machine ID] [--runtime R] [--agent A] [--syncPath DIR]

Verifies every file of the transfer against the manifest's bytes and sha256 and then writes this
identity's ack file, acks/<machine>--<runtime>--<agent>.json. It refuses while a file is missing or
differs (exit 1).

  --machine ID     this machine's id (default $` + envMachineID + `)
  --runtime R      this runtime
  --agent A        this agent
  --syncPath DIR   the vault directory

` + globalFlagsHelp

// transfersSend runs "svc transfers send".
func (a *app) transfersSend(args []string) int {
	const cmd = "transfers send"
	fs := a.commandFlags(cmd, nil)
	var to, from vault.Identity
	var note, syncPath string
	fs.StringVar(&to.MachineID, "toMachine", "", "target machine id")
	fs.StringVar(&to.Host, "toHost", "", "target host name")
	fs.StringVar(&to.Runtime, "toRuntime", "", "target runtime")
	fs.StringVar(&to.AgentID, "toAgent", "", "target agent")
	fs.StringVar(&from.MachineID, "fromMachine", a.getenv(envMachineID), "sender machine id")
	fs.StringVar(&from.Runtime, "fromRuntime", "", "sender runtime")
	fs.StringVar(&from.AgentID, "fromAgent", "", "sender agent")
	fs.StringVar(&note, "note", "", "context for the receiver")
	fs.StringVar(&syncPath, "syncPath", "", "the vault directory")
	files, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	if len(files) == 0 {
		return a.usageError(cmd, "name at least one file to send")
	}
	if to.MachineID == "" && to.Host == "" {
		return a.usageError(cmd, "name the target machine: --toMachine ID or --toHost HOST")
	}
	v, code, ok := a.openVault(cmd, syncPath)
	if !ok {
		return code
	}
	abs, total := absFiles(files)
	var sender *vault.Identity
	if from != (vault.Identity{}) {
		sender = &from
	}
	bar := a.progressFor(total)
	m, err := v.Send(a.ctx, vault.SendRequest{Files: abs, Note: note, From: sender, To: to, Progress: bar.update})
	bar.finish()
	if err != nil {
		return a.vaultFailure(err)
	}
	if a.g.json {
		a.printJSON(map[string]any{"ok": true, "transfer": m})
		return exitOK
	}
	fmt.Fprintf(a.stdout, "Sent transfer %s: %d file(s) to %s.\n", m.ID, len(m.Payloads), describeTarget(to))
	return exitOK
}

// absFiles makes the paths absolute and sums twice their sizes (the scan and the copy), for progress.
func absFiles(files []string) ([]string, int64) {
	out := make([]string, len(files))
	var total int64
	for i, f := range files {
		out[i] = f
		if p, err := filepath.Abs(f); err == nil {
			out[i] = p
		}
		if fi, err := os.Stat(out[i]); err == nil {
			total += 2 * fi.Size()
		}
	}
	return out, total
}

// describeTarget names a target for people: machine m-b, runtime codex, agent a1.
func describeTarget(to vault.Identity) string {
	parts := []string{}
	if to.MachineID != "" {
		parts = append(parts, "machine "+to.MachineID)
	} else {
		parts = append(parts, "host "+to.Host)
	}
	if to.Runtime != "" {
		parts = append(parts, "runtime "+to.Runtime)
	}
	if to.AgentID != "" {
		parts = append(parts, "agent "+to.AgentID)
	}
	return strings.Join(parts, ", ")
}

// receiverFlags binds --machine, --runtime, --agent and --syncPath.
func (a *app) receiverFlags(fs *flag.FlagSet, id *vault.Identity, syncPath *string) {
	fs.StringVar(&id.MachineID, "machine", a.getenv(envMachineID), "this machine's id")
	fs.StringVar(&id.Runtime, "runtime", "", "this runtime")
	fs.StringVar(&id.AgentID, "agent", "", "this agent")
	fs.StringVar(syncPath, "syncPath", "", "the vault directory")
}

// transfersInbox runs "svc transfers inbox".
func (a *app) transfersInbox(args []string) int {
	const cmd = "transfers inbox"
	fs := a.commandFlags(cmd, nil)
	var receiver vault.Identity
	var syncPath string
	var all bool
	a.receiverFlags(fs, &receiver, &syncPath)
	fs.BoolVar(&all, "all", false, "include acknowledged transfers")
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	v, code, ok := a.openVault(cmd, syncPath)
	if !ok {
		return code
	}
	receiver.Host, _ = os.Hostname()
	transfers, err := v.Inbox(a.ctx, vault.InboxQuery{Receiver: receiver, All: all})
	if err != nil {
		return a.vaultFailure(err)
	}
	a.printJSON(map[string]any{"ok": true, "transfers": transfers})
	return exitOK
}

// transfersAck runs "svc transfers ack".
func (a *app) transfersAck(args []string) int {
	const cmd = "transfers ack"
	fs := a.commandFlags(cmd, nil)
	var receiver vault.Identity
	var syncPath string
	a.receiverFlags(fs, &receiver, &syncPath)
	id, code, ok := a.parseID(idSpec{cmd: cmd, what: "transfer"}, fs, args)
	if !ok {
		return code
	}
	v, code, ok := a.openVault(cmd, syncPath)
	if !ok {
		return code
	}
	receiver.Host, _ = os.Hostname()
	ack, err := v.Ack(a.ctx, id, receiver)
	if err != nil {
		return a.vaultFailure(err)
	}
	if a.g.json {
		a.printJSON(map[string]any{"ok": true, "ack": ack})
		return exitOK
	}
	fmt.Fprintf(a.stdout, "Acknowledged %s (%d file(s) verified).\n", id, len(ack.Verified))
	return exitOK
}

// openVault opens the vault: --syncPath, else $SVC_VAULT, else the config file's "vault". None is a
// usage error.
func (a *app) openVault(cmd, syncPath string) (*vault.Vault, int, bool) {
	dir := first(syncPath, a.getenv(envVault))
	if dir == "" {
		if path, err := configPath(a.getenv); err == nil {
			if cfg, err := loadConfig(path); err == nil {
				dir = cfg.Vault
			}
		}
	}
	if dir == "" {
		return nil, a.usageError(cmd, "no vault: pass --syncPath DIR, set %s, or set \"vault\" in the config file", envVault), false
	}
	v, err := vault.Open(dir, vault.Options{})
	if err != nil {
		return nil, a.localError("vault_unavailable", err.Error()), false
	}
	return v, 0, true
}

// vaultFailure reports a vault error: the package's coded errors as they are, anything else as
// transfer_failed.
func (a *app) vaultFailure(err error) int {
	e := &client.Error{Code: "transfer_failed", Message: err.Error()}
	if se, ok := svcerr.As(err); ok {
		e = &client.Error{Code: se.Code, Message: se.Message, Param: se.Param}
	} else if errors.Is(err, a.ctx.Err()) && a.ctx.Err() != nil {
		e.Message = "interrupted"
	}
	if a.g.json {
		a.printJSON(client.ErrorEnvelope{OK: false, Error: *e})
	}
	a.printErrorLine(e)
	return exitAPI
}
