package codeproof

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/svcplatform/svc/client"
)

// Defaults of Config.
const (
	// DefaultCLI is the code-proof command looked for on PATH.
	DefaultCLI = "codeproof"
	// DefaultTimeout bounds every call to the CLI or the node.
	DefaultTimeout = 2 * time.Second
	// maxNodeAnswer bounds what is read of a node's answer.
	maxNodeAnswer = 64 << 10
)

// Config configures the code-proof routes (SVC_CODEPROOF_CLI, SVC_CODEPROOF_NODE_URL, SVC_CODEPROOF_DIR).
type Config struct {
	// CLI is the code-proof command: a name looked up on PATH or a path (default DefaultCLI).
	CLI string
	// NodeURL is the code-proof node's base URL ("": no node configured).
	NodeURL string
	// DataDir is the private folder of the accounts' identities (DefaultDataDir when empty).
	DataDir string
	// Timeout bounds each CLI or node call (default DefaultTimeout).
	Timeout time.Duration
}

// DefaultDataDir is the per-user data folder of code-proof identities: $XDG_CONFIG_HOME/svc/codeproof
// (os.UserConfigDir), else .data/codeproof.
func DefaultDataDir() string {
	if dir, err := os.UserConfigDir(); err == nil {
		return filepath.Join(dir, "svc", "codeproof")
	}
	return filepath.Join(".data", "codeproof")
}

// Service answers the code-proof routes. Its zero value is not ready: use New.
type Service struct {
	cfg  Config
	http *http.Client
	now  func() time.Time
}

// New returns the service of cfg, filling its defaults.
func New(cfg Config) *Service {
	cfg.CLI = cmp.Or(cfg.CLI, DefaultCLI)
	cfg.DataDir = cmp.Or(cfg.DataDir, DefaultDataDir())
	cfg.Timeout = cmp.Or(cfg.Timeout, DefaultTimeout)
	cfg.NodeURL = strings.TrimRight(cfg.NodeURL, "/")
	return &Service{cfg: cfg, http: &http.Client{Timeout: cfg.Timeout}, now: time.Now}
}

// Status is the safe status of the CLI, the account's identity and the node.
func (s *Service) Status(ctx context.Context, accountID string) client.CodeProofStatus {
	out := client.CodeProofStatus{OK: true, CLI: s.DetectCLI(ctx), CheckedAt: s.now().UTC()}
	if id, err := s.loadIdentity(accountID); err == nil && id != nil {
		out.Identity = &client.CodeProofIdentity{DID: id.DID, CreatedAt: id.CreatedAt}
	}
	node, st := s.nodeStatus(ctx)
	out.Node = node
	out.RepoCount, out.PeerCount, out.MCPAvailable = st.RepoCount, st.PeerCount, st.MCP
	return out
}

// Identity answers the account's identity, making one when there is none or refresh is set.
func (s *Service) Identity(accountID string, refresh bool) (client.CodeProofIdentityAnswer, error) {
	id, err := s.loadIdentity(accountID)
	if err != nil {
		return client.CodeProofIdentityAnswer{}, err
	}
	created := false
	if id == nil || refresh {
		if id, err = s.newIdentity(accountID); err != nil {
			return client.CodeProofIdentityAnswer{}, err
		}
		created = true
	}
	return client.CodeProofIdentityAnswer{OK: true, Created: created,
		Identity: client.CodeProofIdentity{DID: id.DID, CreatedAt: id.CreatedAt}}, nil
}

// DetectCLI looks for the CLI and asks its version, within the timeout.
func (s *Service) DetectCLI(ctx context.Context) client.CodeProofCLI {
	out := client.CodeProofCLI{Name: s.cfg.CLI}
	path, err := exec.LookPath(s.cfg.CLI)
	if err != nil {
		out.Problem = fmt.Sprintf("%s was not found on PATH", s.cfg.CLI)
		return out
	}
	out.Installed, out.Path = true, path
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.WaitDelay = s.cfg.Timeout
	raw, err := cmd.Output()
	if err != nil {
		out.Problem = fmt.Sprintf("%s --version did not answer: %v", s.cfg.CLI, err)
		return out
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(raw)), "\n")
	out.Version = strings.TrimSpace(line)
	return out
}

// SetupCLI reports the CLI and, when it is missing or broken, how to install it. It downloads nothing.
func (s *Service) SetupCLI(ctx context.Context) client.CodeProofSetupCLI {
	cli := s.DetectCLI(ctx)
	out := client.CodeProofSetupCLI{OK: true, CLI: cli, Action: "none", Guidance: []string{}}
	if cli.Installed && cli.Problem == "" {
		return out
	}
	out.Action = "install_manually"
	out.Guidance = []string{
		"Install the code-proof CLI from its publisher's release page with your package manager; svc downloads nothing.",
		"Put it on the PATH of the svc API process, or set SVC_CODEPROOF_CLI to its absolute path.",
		"Check it with `" + s.cfg.CLI + " --version`, then call POST /api/codeproof/setup-cli again.",
	}
	if cli.Installed {
		out.Guidance[0] = "The CLI was found but " + cli.Problem + "; reinstall or repair it."
	}
	return out
}

// NodeSetup reports the node and the steps that would make it usable.
func (s *Service) NodeSetup(ctx context.Context) client.CodeProofNodeSetup {
	node, _ := s.nodeStatus(ctx)
	out := client.CodeProofNodeSetup{OK: true, Node: node, Guidance: []string{}}
	switch {
	case !node.Configured:
		out.Guidance = append(out.Guidance,
			"No node is configured: set SVC_CODEPROOF_NODE_URL (e.g. http://127.0.0.1:<port>) for the API process.",
			"The node is optional: projects and tasks work without it, links wait as pending.")
	case !node.Reachable:
		out.Guidance = append(out.Guidance,
			"Start the code-proof node on the configured address, or correct SVC_CODEPROOF_NODE_URL.",
			"Pending project links are checked again by POST /api/projects/link-codeproof.")
	}
	return out
}

// nodeFacts is what a node's GET /status reports (our reading of it: absent fields are zero).
type nodeFacts struct {
	RepoCount int  `json:"repoCount"`
	PeerCount int  `json:"peerCount"`
	MCP       bool `json:"mcp"`
}

// nodeStatus asks the node for GET /status.
func (s *Service) nodeStatus(ctx context.Context) (client.CodeProofNode, nodeFacts) {
	node := client.CodeProofNode{URL: s.cfg.NodeURL, Configured: s.cfg.NodeURL != ""}
	var facts nodeFacts
	if !node.Configured {
		node.Problem = "no node configured (SVC_CODEPROOF_NODE_URL)"
		return node, facts
	}
	raw, status, err := s.nodeGet(ctx, "/status")
	switch {
	case err != nil:
		node.Problem = err.Error()
	case status != http.StatusOK:
		node.Problem = fmt.Sprintf("the node answered %d", status)
	default:
		node.Reachable = true
		_ = json.Unmarshal(raw, &facts) // an answer without the counts still means reachable
	}
	return node, facts
}

// RepoMetadata asks the node for a repository's metadata: found false when the node does not know it;
// an error when the node is not configured or not reachable.
func (s *Service) RepoMetadata(ctx context.Context, repo string) (meta map[string]string, found bool, err error) {
	if s.cfg.NodeURL == "" {
		return nil, false, fmt.Errorf("no code-proof node configured (SVC_CODEPROOF_NODE_URL)")
	}
	raw, status, err := s.nodeGet(ctx, "/repos/"+url.PathEscape(repo))
	if err != nil {
		return nil, false, err
	}
	if status == http.StatusNotFound {
		return nil, false, nil
	}
	if status != http.StatusOK {
		return nil, false, fmt.Errorf("the code-proof node answered %d", status)
	}
	var fields map[string]any
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, false, fmt.Errorf("the code-proof node's repository answer is not a JSON object")
	}
	return flatten(fields), true, nil
}

// flatten keeps the scalar fields of a node's answer as strings.
func flatten(fields map[string]any) map[string]string {
	out := map[string]string{}
	for k, v := range fields {
		switch v := v.(type) {
		case string:
			out[k] = v
		case float64, bool:
			out[k] = fmt.Sprint(v)
		}
	}
	return out
}

// nodeGet GETs path of the node within the timeout and reads a bounded answer.
func (s *Service) nodeGet(ctx context.Context, path string) ([]byte, int, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.cfg.NodeURL+path, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("node request: %w", err)
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("the code-proof node is not reachable: %w", unwrapURLError(err))
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(bufio.NewReader(io.LimitReader(resp.Body, maxNodeAnswer)))
	if err != nil {
		return nil, 0, fmt.Errorf("read the node's answer: %w", err)
	}
	return bytes.TrimSpace(raw), resp.StatusCode, nil
}

// unwrapURLError drops url.Error's method and URL from a transport error.
func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}
