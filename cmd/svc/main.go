// Command svc is the command-line client of the svc platform API. It is built on the Go SDK, package
// github.com/svcplatform/svc/client; "svc credits top-up" also signs x402 payments locally with
// internal/x402 (go-ethereum).
//
// Run "svc help" for usage. Settings come from flags, then the environment (SVC_API_KEY, SVC_BASE_URL,
// SVC_PROJECT, SVC_CREDIT_TOKEN, SVC_NOT_INTERACTIVE), then the config file written by "svc login"
// ($XDG_CONFIG_HOME/svc/config.json or ~/.config/svc/config.json), then defaults. Exit codes: 0 success,
// 1 API failure (or a failed run, or an invoked service answering 4xx/5xx), 2 usage error.
package main

import "os"

// main runs the CLI with the process's arguments, streams and environment, and exits with its code.
func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}
