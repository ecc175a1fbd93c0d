package api

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/codeprojects"
	"github.com/svcplatform/svc/internal/codeproof"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/svcerr"
)

// codeProofAPI serves seed 001's code-proof and code-project dashboard routes (issue 22) at the host
// root, like /api/handoff: safe structured answers whatever the state of the code-proof tooling. The
// identity and every project are the caller's account's own.
type codeProofAPI struct {
	codeproof *codeproof.Service
	projects  *codeprojects.Registry
}

// errNoCodeProof answers a process built without the code-proof services (never the case in svcd).
var errNoCodeProof = svcerr.New(svcerr.Unavailable, "the code-proof routes are not configured in this process")

func (ca *codeProofAPI) account(ctx context.Context) string {
	return principalFrom(ctx).Scope.AccountID
}

// status reports the CLI, the account's identity and the node; never an error.
func (ca *codeProofAPI) status(ctx context.Context, _ *struct{}) (*Out[client.CodeProofStatus], error) {
	if ca.codeproof == nil {
		return nil, errNoCodeProof
	}
	return reply(ca.codeproof.Status(ctx, ca.account(ctx)))
}

// setupCLI reports the CLI and how to install or repair it; it downloads nothing.
func (ca *codeProofAPI) setupCLI(ctx context.Context, _ *struct{}) (*Out[client.CodeProofSetupCLI], error) {
	if ca.codeproof == nil {
		return nil, errNoCodeProof
	}
	return reply(ca.codeproof.SetupCLI(ctx))
}

type identityInput struct {
	Body *client.CodeProofIdentityRequest `required:"false"`
}

// identity makes (or with refresh replaces) the account's did:key identity and answers its public part.
func (ca *codeProofAPI) identity(ctx context.Context, in *identityInput) (*Out[client.CodeProofIdentityAnswer], error) {
	if ca.codeproof == nil {
		return nil, errNoCodeProof
	}
	refresh := in.Body != nil && in.Body.Refresh
	out, err := ca.codeproof.Identity(ca.account(ctx), refresh)
	if err != nil {
		return nil, err
	}
	return reply(out)
}

// nodeSetup reports the node and the steps that would make it usable.
func (ca *codeProofAPI) nodeSetup(ctx context.Context, _ *struct{}) (*Out[client.CodeProofNodeSetup], error) {
	if ca.codeproof == nil {
		return nil, errNoCodeProof
	}
	return reply(ca.codeproof.NodeSetup(ctx))
}

// listProjects reads the account's projects of the registry.
func (ca *codeProofAPI) listProjects(ctx context.Context, _ *struct{}) (*Out[client.CodeProjectList], error) {
	if ca.projects == nil {
		return nil, errNoCodeProof
	}
	ps, err := ca.projects.List(ca.account(ctx))
	if err != nil {
		return nil, err
	}
	return reply(client.CodeProjectList{OK: true, Registry: ca.projects.Source(), Projects: ps})
}

type saveProjectInput struct {
	Body client.CodeProjectRequest
}

// saveProject creates a project (no id) or replaces one of the account's, its proofs sanitised.
func (ca *codeProofAPI) saveProject(ctx context.Context, in *saveProjectInput) (*Out[client.CodeProjectEnvelope], error) {
	if ca.projects == nil {
		return nil, errNoCodeProof
	}
	if err := checkProofs(in.Body.Proofs); err != nil {
		return nil, err
	}
	p, created, err := ca.projects.Save(ca.account(ctx), newID(ctx, ids.CodeProject), in.Body)
	if err != nil {
		return nil, err
	}
	return reply(client.CodeProjectEnvelope{OK: true, Registry: ca.projects.Source(), Created: created, Project: p})
}

// checkProofs refuses metadata keys or values beyond their bounds, naming the field.
func checkProofs(proofs []client.CodeProofRecord) error {
	for i, p := range proofs {
		for k, v := range p.Metadata {
			if k == "" || len(k) > 64 {
				return svcerr.Invalid("proofs["+strconv.Itoa(i)+"].metadata", "metadata keys are 1 to 64 characters")
			}
			if len(v) > 1000 {
				return svcerr.Invalid("proofs["+strconv.Itoa(i)+"].metadata."+k, "metadata values are at most 1000 characters")
			}
		}
	}
	return nil
}

type linkProjectInput struct {
	Body client.CodeProjectLinkRequest
}

// linkProject links one of the account's projects to a code-proof repository: linked with the node's
// metadata when the node knows it, else pending (node offline, not configured or repository unknown),
// 200 either way.
func (ca *codeProofAPI) linkProject(ctx context.Context, in *linkProjectInput) (*Out[client.CodeProjectEnvelope], error) {
	if ca.projects == nil || ca.codeproof == nil {
		return nil, errNoCodeProof
	}
	account := ca.account(ctx)
	if _, err := ca.projects.Get(account, in.Body.ProjectID); err != nil {
		return nil, err
	}
	link := client.CodeProofLink{Repo: in.Body.Repo, Status: client.LinkPending, CheckedAt: time.Now().UTC()}
	meta, found, err := ca.codeproof.RepoMetadata(ctx, in.Body.Repo)
	switch {
	case err != nil:
		link.Message = err.Error() + "; the link is pending"
	case !found:
		link.Message = "the code-proof node does not know this repository yet; the link is pending"
	default:
		link.Status, link.Metadata = client.LinkLinked, meta
	}
	p, err := ca.projects.Link(account, in.Body.ProjectID, link)
	if err != nil {
		return nil, err
	}
	return reply(client.CodeProjectEnvelope{OK: true, Registry: ca.projects.Source(), Project: p})
}

// routes are the code-proof and code-project routes.
func (ca *codeProofAPI) routes() []Route {
	const tag = "Code proof"
	return []Route{
		handle(Route{Op: client.OpCodeProofStatus, Method: http.MethodGet, Path: "/api/codeproof/status", Tag: tag, Auth: authKey,
			Scope: client.ScopeProjectsRead, Summary: "Code-proof status: CLI, the account's identity, node, repo and peer counts, MCP (never fails on missing tooling)"},
			ca.status),
		handle(Route{Op: client.OpCodeProofSetupCLI, Method: http.MethodPost, Path: "/api/codeproof/setup-cli", Tag: tag, Auth: authKey,
			Scope: client.ScopeProjectsRead, Reads: true, Summary: "Detect the code-proof CLI and answer install or repair guidance (downloads nothing)"},
			ca.setupCLI),
		handle(Route{Op: client.OpCodeProofIdentity, Method: http.MethodPost, Path: "/api/codeproof/identity", Tag: tag, Auth: authKey,
			Scope: client.ScopeProjectsWrite, Idem: true, Summary: "Create (or with refresh replace) the account's local did:key identity; the private key never leaves the server"},
			ca.identity),
		handle(Route{Op: client.OpCodeProofNodeSetup, Method: http.MethodPost, Path: "/api/codeproof/node/setup", Tag: tag, Auth: authKey,
			Scope: client.ScopeProjectsRead, Reads: true, Summary: "Code-proof node status and setup guidance"},
			ca.nodeSetup),
		handle(Route{Op: client.OpCodeProjectsList, Method: http.MethodGet, Path: "/api/projects", Tag: tag, Auth: authKey,
			Scope: client.ScopeProjectsRead, Summary: "Read the account's code projects from the registry (shared vault, or the per-user fallback)"},
			ca.listProjects),
		handle(Route{Op: client.OpCodeProjectsSave, Method: http.MethodPost, Path: "/api/projects", Tag: tag, Auth: authKey,
			Scope: client.ScopeProjectsWrite, Idem: true, FreeText: []string{"proofs"},
			Summary: "Create a code project, or replace one of the account's (id); proof metadata is sanitised before storage"},
			ca.saveProject),
		handle(Route{Op: client.OpCodeProjectsLinkNode, Method: http.MethodPost, Path: "/api/projects/link-codeproof", Tag: tag, Auth: authKey,
			Scope: client.ScopeProjectsWrite, Idem: true,
			Summary: "Link a code project to a code-proof repository: linked, or pending while the node is offline (200 either way)"},
			ca.linkProject),
	}
}
