// Package vault implements seed 001's file transfers through a synced vault folder: a sender writes a
// transfer directory (payload files first, the manifest last, each atomically) under
// <vault>/.svc-transfers/<transfer-id>/, a sync provider replicates it in any order, and receivers list
// the transfers targeted at their identity, verify every payload against the manifest's bytes and
// SHA-256, and acknowledge by writing their own ack file. A transfer is visible only once it is whole.
//
// Transfers are not for secrets: notes, file names and payloads are scanned for API keys, PEM private
// keys, hex private keys and BIP-39 mnemonics, and a send holding one is refused before anything is
// written. The package also publishes and reads machine cards under <vault>/.svc-machines/, which the
// collector writes and the handoff planner reads.
package vault
