// Package codeproof serves seed 001's code-proof dashboard routes: it detects the code-proof CLI,
// keeps each account's local did:key (Ed25519) identity in a private data folder, and asks the
// configured code-proof node for its status and repository metadata. Every answer is a safe structured
// status: missing tooling or an offline node is reported, never an error, and every outside call has a
// short timeout. Nothing is ever downloaded.
package codeproof
