// Package temporal wires the service platform to Temporal.
//
// It offers three things:
//
//   - Dial, which connects an SDK client to any Temporal cluster (a local
//     dev server, a self-hosted cluster or Temporal Cloud) with optional
//     mTLS and API-key credentials, logging through log/slog.
//   - The platform's custom search attributes (AttrAccountID and friends,
//     with typed SDK keys) plus EnsureNamespace and EnsureSearchAttributes,
//     which idempotently prepare a namespace on any cluster.
//   - StartDevServer, an embedded single-process Temporal server backed by a
//     SQLite file, with the Temporal Web UI, for local development and
//     tests. Workflow histories survive restarts because the SQLite file is
//     kept in DevServerConfig.DataDir.
package temporal
