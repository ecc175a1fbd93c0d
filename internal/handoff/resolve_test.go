package handoff_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/handoff"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/vault"
)

var cards = []vault.MachineCard{
	{MachineID: "studio-mac", Host: "Studio.local"},
	{MachineID: "studio-pc", Host: "gaming-rig"},
	{MachineID: "build-box", Host: "ci01"},
}

// TestResolveTarget covers every step of the resolution: exact id, host, prefix, edit distance,
// ambiguity and no match.
func TestResolveTarget(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		target, want, by, code string
	}{
		{target: "build-box", want: "build-box", by: client.MatchMachineID},
		{target: "studio.LOCAL", want: "studio-mac", by: client.MatchHost},
		{target: "gaming", want: "studio-pc", by: client.MatchPrefix},
		{target: "BUILD", want: "build-box", by: client.MatchPrefix},
		{target: "bulid-box", want: "build-box", by: client.MatchEditDistance},
		{target: "studio-macc", want: "studio-mac", by: client.MatchEditDistance},
		{target: "studio-px", want: "studio-pc", by: client.MatchEditDistance},
		{target: "studio", code: svcerr.Conflict},
		{target: "studio-mc", code: svcerr.Conflict}, // one edit from each
		{target: "laptop", code: svcerr.NotFound},
		{target: " ", code: svcerr.InvalidRequest},
	} {
		got, err := handoff.Resolve(cards, c.target)
		if c.code != "" {
			require.True(t, svcerr.Is(err, c.code), "%q: %v", c.target, err)
			continue
		}
		require.NoError(t, err, c.target)
		require.Equal(t, c.want, got.Card.MachineID, c.target)
		require.Equal(t, c.by, got.MatchedBy, c.target)
	}
	_, err := handoff.Resolve(cards, "studio")
	e, _ := svcerr.As(err)
	require.Len(t, e.Details["candidates"], 2)
	require.Contains(t, e.Message, "studio-mac, studio-pc")
}

// TestSelectAgent: the agent declaring the task's classes wins; no class goes to the general agent.
func TestSelectAgent(t *testing.T) {
	t.Parallel()
	card := vault.MachineCard{MachineID: "m", Agents: []vault.AgentCard{
		{ID: "writer", Runtime: "claude", WorkerClasses: []string{"writing", "general"}},
		{ID: "coder", Runtime: "codex", WorkerClasses: []string{"code"}},
		{ID: "scholar", Runtime: "claude", WorkerClasses: []string{"research", "code"}},
	}}
	for _, c := range []struct{ task, agent, class string }{
		{"Fix the failing test in the parser", "scholar", "code"},
		{"Research and implement a faster parser", "scholar", "research"},
		{"Draft the release blog post", "writer", "writing"},
		{"Look at this", "writer", "general"},
		{"", "writer", "general"},
	} {
		sel := handoff.SelectAgent(card, c.task)
		require.Equal(t, c.agent, sel.Agent.ID, c.task)
		require.Equal(t, c.class, sel.WorkerClass, c.task)
	}
	require.Nil(t, handoff.SelectAgent(vault.MachineCard{MachineID: "bare"}, "code").Agent)
}
