package client

import "time"

// The code-proof and code-project operations (issue 22: seed 001's dashboard routes at the host root).
const (
	OpCodeProofStatus      = "codeproof.status"
	OpCodeProofSetupCLI    = "codeproof.setupCli"
	OpCodeProofIdentity    = "codeproof.identity"
	OpCodeProofNodeSetup   = "codeproof.nodeSetup"
	OpCodeProjectsList     = "codeProjects.list"
	OpCodeProjectsSave     = "codeProjects.save"
	OpCodeProjectsLinkNode = "codeProjects.linkCodeproof"
)

// CodeProofCLI is what was found of the code-proof command-line tool.
type CodeProofCLI struct {
	Installed bool   `json:"installed" doc:"The CLI was found on the server's PATH (or at its configured path)."`
	Name      string `json:"name" doc:"The command looked for (SVC_CODEPROOF_CLI)."`
	Path      string `json:"path,omitempty" doc:"Where it was found."`
	Version   string `json:"version,omitempty" doc:"The first line of its --version output, when it answered in time."`
	Problem   string `json:"problem,omitempty" doc:"Why it is not usable (not found, no answer, failed), for people."`
}

// CodeProofIdentity is the public part of the account's local did:key identity.
type CodeProofIdentity struct {
	DID       string    `json:"did" doc:"did:key of an Ed25519 key (multicodec 0xed01, base58btc 'z')."`
	CreatedAt time.Time `json:"createdAt"`
}

// CodeProofNode is the code-proof node the server talks to (SVC_CODEPROOF_NODE_URL).
type CodeProofNode struct {
	Configured bool   `json:"configured" doc:"A node URL is configured."`
	Reachable  bool   `json:"reachable" doc:"The node answered its status request in time."`
	URL        string `json:"url,omitempty" doc:"The configured node URL."`
	Problem    string `json:"problem,omitempty" doc:"Why it is not reachable, for people."`
}

// CodeProofStatus is the answer of GET /api/codeproof/status: never an error when tooling is missing.
type CodeProofStatus struct {
	OK           bool               `json:"ok"`
	CLI          CodeProofCLI       `json:"cli"`
	Identity     *CodeProofIdentity `json:"identity" doc:"The account's identity; null until POST /api/codeproof/identity."`
	Node         CodeProofNode      `json:"node"`
	RepoCount    int                `json:"repoCount" doc:"Repositories the node reports (0 when offline)."`
	PeerCount    int                `json:"peerCount" doc:"Peers the node reports (0 when offline)."`
	MCPAvailable bool               `json:"mcpAvailable" doc:"The node reports an MCP endpoint."`
	CheckedAt    time.Time          `json:"checkedAt"`
}

// CodeProofSetupCLI is the answer of POST /api/codeproof/setup-cli: detection and guidance, no download.
type CodeProofSetupCLI struct {
	OK  bool         `json:"ok"`
	CLI CodeProofCLI `json:"cli"`
	// Action is "none" (the CLI works) or "install_manually" (follow Guidance).
	Action   string   `json:"action" enum:"none,install_manually"`
	Guidance []string `json:"guidance" doc:"Steps for people; the server downloads nothing."`
}

// CodeProofIdentityRequest is the body of POST /api/codeproof/identity.
type CodeProofIdentityRequest struct {
	Refresh bool `json:"refresh,omitempty" doc:"Replace an existing identity with a new key."`
}

// CodeProofIdentityAnswer is the answer of POST /api/codeproof/identity.
type CodeProofIdentityAnswer struct {
	OK       bool              `json:"ok"`
	Identity CodeProofIdentity `json:"identity"`
	Created  bool              `json:"created" doc:"A new key was made (false: the existing identity is answered)."`
}

// CodeProofNodeSetup is the answer of POST /api/codeproof/node/setup: status and guidance.
type CodeProofNodeSetup struct {
	OK       bool          `json:"ok"`
	Node     CodeProofNode `json:"node"`
	Guidance []string      `json:"guidance"`
}

// CodeProofRecord is one proof of a code project (metadata only, sanitised before storage).
type CodeProofRecord struct {
	Kind      string            `json:"kind" minLength:"1" maxLength:"64" doc:"What was proven, e.g. commit-signature, build, review."`
	Commit    string            `json:"commit,omitempty" maxLength:"128"`
	Ref       string            `json:"ref,omitempty" maxLength:"256" doc:"Branch, tag or proof reference."`
	Signer    string            `json:"signer,omitempty" maxLength:"256" doc:"The signer's DID."`
	Note      string            `json:"note,omitempty" maxLength:"2000"`
	Metadata  map[string]string `json:"metadata,omitempty" maxProperties:"32"`
	CreatedAt *time.Time        `json:"createdAt,omitempty"`
}

// Code-project link states (CodeProofLink.Status).
const (
	// LinkLinked: the node knows the repository and its metadata is recorded.
	LinkLinked = "linked"
	// LinkPending: the node was offline or did not know the repository; the link is recorded to retry.
	LinkPending = "pending"
)

// CodeProofLink links a code project to a code-proof repository.
type CodeProofLink struct {
	Repo      string            `json:"repo"`
	Status    string            `json:"status" enum:"linked,pending"`
	Message   string            `json:"message,omitempty"`
	Metadata  map[string]string `json:"metadata,omitempty" doc:"The node's repository metadata, sanitised."`
	CheckedAt time.Time         `json:"checkedAt"`
}

// CodeProject is a record of the code-project registry.
type CodeProject struct {
	ID          string            `json:"id"`
	Name        string            `json:"name"`
	Repo        string            `json:"repo,omitempty"`
	Description string            `json:"description,omitempty"`
	Proofs      []CodeProofRecord `json:"proofs"`
	CodeProof   *CodeProofLink    `json:"codeproof"`
	CreatedAt   time.Time         `json:"createdAt"`
	UpdatedAt   time.Time         `json:"updatedAt"`
}

// CodeProjectRequest is the body of POST /api/projects: without id it creates a project, with the id
// of one of the account's projects it replaces its fields.
type CodeProjectRequest struct {
	ID          string            `json:"id,omitempty" maxLength:"64"`
	Name        string            `json:"name" minLength:"1" maxLength:"200"`
	Repo        string            `json:"repo,omitempty" maxLength:"500" doc:"The repository (URL or owner/name)."`
	Description string            `json:"description,omitempty" maxLength:"4000"`
	Proofs      []CodeProofRecord `json:"proofs,omitempty" maxItems:"100"`
}

// CodeProjectList is the answer of GET /api/projects.
type CodeProjectList struct {
	OK       bool          `json:"ok"`
	Registry string        `json:"registry" enum:"vault,local" doc:"Where the registry lives: the shared vault or the per-user fallback."`
	Projects []CodeProject `json:"projects"`
}

// CodeProjectEnvelope is the answer of POST /api/projects.
type CodeProjectEnvelope struct {
	OK       bool        `json:"ok"`
	Registry string      `json:"registry" enum:"vault,local"`
	Created  bool        `json:"created"`
	Project  CodeProject `json:"project"`
}

// CodeProjectLinkRequest is the body of POST /api/projects/link-codeproof.
type CodeProjectLinkRequest struct {
	ProjectID string `json:"projectId" minLength:"1" maxLength:"64"`
	Repo      string `json:"repo" minLength:"1" maxLength:"256" doc:"The repository's name on the code-proof node."`
}
