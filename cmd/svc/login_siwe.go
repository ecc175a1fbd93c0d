package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/siwe"
)

// envPrivateKey is seed 002's environment variable for svc login siwe's key.
const envPrivateKey = "SVC_PRIVATE_KEY"

// loginSIWEHelp is the help of "svc login siwe", the end of "svc login"'s.
const loginSIWEHelp = `Usage: svc login siwe --private-key HEX [--key-name NAME] [--read-write] [--llm] [--agent-api] [--base-url URL]

Signs in with Ethereum (EIP-4361): asks the API for a nonce, signs the sign-in message locally with the
private key (never sent), exchanges it for a short-lived web session, creates an API key through that
session and stores the key like "svc login" does. The key's address must have been linked to the account
(POST /auth/siwe/link with a key of the account's owner).

  --private-key HEX   the secp256k1 key (0x-prefixed or not); default ` + envPrivateKey + `
  --key-name NAME     the new key's name (default SIWE-<date>)
  --read-write        create a key that may write (default: a read-only key, as seed 002's CLI keys)
  --llm               grant the LLM gateway (service access managed-agents; off by default, as seed 002's CLI keys)
  --agent-api         grant the agent API (service access managed-agents; off by default)

` + globalFlagsHelp

// loginSIWE signs in with an Ethereum key and stores a new API key made through the web session.
func (a *app) loginSIWE(args []string) int {
	const cmd = "login siwe"
	var privateKey, keyName string
	var readWrite, llmFlag, agent bool
	fs := a.commandFlags(cmd, nil)
	fs.BoolVar(&llmFlag, "llm", false, "grant the LLM gateway (service access managed-agents)")
	fs.BoolVar(&agent, "agent-api", false, "grant the agent API (service access managed-agents)")
	fs.StringVar(&privateKey, "private-key", "", "the secp256k1 private key, hex")
	fs.StringVar(&keyName, "key-name", "", "the new key's name (default SIWE-<date>)")
	fs.BoolVar(&readWrite, "read-write", false, "create a key that may write")
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	privateKey = first(privateKey, a.getenv(envPrivateKey))
	if privateKey == "" {
		return a.usageError(cmd, "login siwe needs --private-key HEX (or %s)", envPrivateKey)
	}
	key, err := crypto.HexToECDSA(strings.TrimPrefix(strings.TrimSpace(privateKey), "0x"))
	if err != nil {
		return a.usageError(cmd, "--private-key is not a secp256k1 private key in hex")
	}
	if keyName == "" {
		keyName = "SIWE-" + time.Now().UTC().Format("2006-01-02")
	}
	path, err := configPath(a.getenv)
	if err != nil {
		return a.localError("config_error", err.Error())
	}
	existing, err := loadConfig(path)
	if err != nil {
		return a.localError("config_error", err.Error())
	}
	s := settings{baseURL: client.NormalizeBaseURL(first(a.g.baseURL, a.getenv(envBaseURL), existing.BaseURL))}
	anon := a.newClient(s)
	nonce := anon.SIWENonce(a.ctx)
	if !nonce.OK {
		return apiFailure(a, nonce)
	}
	root := strings.TrimSuffix(s.baseURL, "/"+client.APIVersion)
	m := &siwe.Message{Domain: nonce.Body.Domain, Address: crypto.PubkeyToAddress(key.PublicKey), Statement: "Sign in to svc to create an API key.",
		URI: root, Version: "1", ChainID: nonce.Body.ChainID, Nonce: nonce.Body.Nonce, IssuedAt: time.Now().UTC()}
	text := m.String()
	sig, err := siwe.Sign(text, key)
	if err != nil {
		return a.localError("signing_error", err.Error())
	}
	ses := anon.SIWEVerify(a.ctx, client.SIWERequest{Message: text, Signature: sig})
	if !ses.OK {
		return a.notStored(apiFailure(a, ses))
	}
	readOnly := !readWrite
	// Seed 002's CLI key defaults: every service of the catalog but managed-agents unless asked for.
	prices := anon.Pricing(a.ctx, "")
	if !prices.OK {
		return a.notStored(apiFailure(a, prices))
	}
	var catalogIDs []string
	for _, p := range prices.Body.Prices {
		catalogIDs = append(catalogIDs, p.ServiceID)
	}
	services := cliKeyServices(catalogIDs, llmFlag || agent)
	made := a.newClient(s, client.WithSessionToken(ses.Body.Token)).CreateAPIKey(a.ctx, client.CreateAPIKeyRequest{Name: keyName, ReadOnly: &readOnly, Services: services})
	if !made.OK {
		return a.notStored(apiFailure(a, made))
	}
	k := made.Body.APIKey
	if err := saveConfig(path, config{BaseURL: s.baseURL, APIKey: k.Secret}); err != nil {
		return a.localError("config_error", "the key was created but not stored: "+err.Error())
	}
	if a.g.json {
		a.printJSON(map[string]any{"ok": true, "baseUrl": s.baseURL, "address": ses.Body.Address, "accountId": ses.Body.AccountID,
			"keyId": k.ID, "keyName": k.Name, "keyPrefix": maskKey(k.Secret), "readOnly": k.ReadOnly, "configFile": path})
		return exitOK
	}
	fmt.Fprintf(a.stdout, "Signed in as %s (account %s) and created API key %s (%s%s).\n", ses.Body.Address, ses.Body.AccountID,
		k.ID, k.Name, map[bool]string{true: ", read-only", false: ""}[k.ReadOnly])
	fmt.Fprintf(a.stdout, "Credentials saved to %s (mode 0600).\n", path)
	return exitOK
}
