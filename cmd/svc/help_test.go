package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHelp(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"help"}, {"--help"}, {"-h"}, {"help", "runs", "create"}, {"keys", "--help"}, {"keys", "create", "--help"},
		{"runs", "create", "-h"}, {"login", "--help"}, {"whoami", "-h"},
		{"projects", "--help"}, {"projects", "list", "--help"}, {"help", "projects", "create"}, {"projects", "get", "-h"},
		{"projects", "update", "--help"}, {"projects", "archive", "--help"}, {"usage", "--help"}, {"help", "usage"},
		{"audit", "-h"}, {"help", "audit"}, {"credits", "--help"}, {"credits", "balance", "--help"}, {"help", "credits", "balance"},
		{"connections", "--help"}, {"connections", "list", "-h"}, {"connections", "create", "--help"}, {"help", "connections", "get"},
		{"connections", "rotate", "--help"}, {"connections", "disable", "-h"}, {"connections", "enable", "--help"},
		{"connections", "rename", "--help"}, {"help", "connections", "delete"}, {"services", "--help"},
		{"services", "invoke", "--help"}, {"help", "services", "invoke"},
	} {
		r := cli(t, testEnv(t, nil), "", args...)
		require.Equal(t, exitOK, r.code, args)
		require.Contains(t, r.stdout, "Usage:", args)
	}
	r := cli(t, testEnv(t, nil), "", "help")
	for _, cmd := range []string{"login", "whoami", "keys create", "keys list", "keys revoke", "runs create", "runs get", "--json", "--not-interactive",
		"projects list", "projects create", "projects get", "projects update", "projects archive", "usage", "audit",
		"credits balance", "connections list", "connections create", "connections get", "connections rotate",
		"connections disable", "connections enable", "connections rename", "connections delete", "services invoke"} {
		require.Contains(t, r.stdout, cmd)
	}
	r = cli(t, testEnv(t, nil), "", "help", "services", "invoke")
	require.Contains(t, r.stdout, "service answered <status>", "the exit status for an upstream 4xx/5xx is documented")
}
