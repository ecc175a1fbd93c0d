package main

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/skillshelf"
)

// skillsHelp is the help of "svc skills".
const skillsHelp = `Usage: svc skills <create|list|get|delete|public|install|install-shelf> [flags]

Skills (seed 002): a SKILL.md (YAML frontmatter, then markdown) with optional references/*.md and
resource files, stored under /skills/<name>/ in the files capability. The agent sees every skill's name
and description and loads one when it decides to. See README.md "Skills" for the rules.

  skills create         create or replace a skill from a SKILL.md or a folder (zipped and uploaded)
  skills list           list the account's skills
  skills get            show a skill: frontmatter, body and files
  skills delete         delete a skill with its files
  skills public         list the approved public skills of every account
  skills install        install a copy of another account's approved public skill
  skills install-shelf  copy the bundled generation skills into <vault>/Skills/ when absent (seed 001)

Run "svc skills <command> --help" for details.`

// skillsCommands are the commands of skills, "svc skills ...".
func skillsCommands() []command {
	return []command{
		{name: "skills", help: skillsHelp},
		{name: "skills create", args: "PATH", run: (*app).skillsCreate, help: skillsCreateHelp,
			brief: "create or replace a skill from a SKILL.md or a folder"},
		{name: "skills list", run: (*app).skillsList, help: skillsListHelp, brief: "list the account's skills"},
		{name: "skills get", args: "NAME", run: (*app).skillsGet, help: skillsGetHelp, brief: "show a skill: frontmatter, body and files"},
		{name: "skills delete", args: "NAME", run: (*app).skillsDelete, help: skillsDeleteHelp, brief: "delete a skill with its files"},
		{name: "skills public", run: (*app).skillsPublic, help: skillsPublicHelp, brief: "list the approved public skills of every account"},
		{name: "skills install", args: "OWNER NAME", run: (*app).skillsInstall, help: skillsInstallHelp,
			brief: "install a copy of another account's approved public skill"},
		{name: "skills install-shelf", run: (*app).skillsInstallShelf, help: skillsInstallShelfHelp,
			brief: "copy the bundled generation skills into the vault's Skills/ folder (keeps existing files)"},
	}
}

const skillsInstallShelfHelp = `Usage: svc skills install-shelf [--vault DIR]

Copies the three bundled skills (generation-skill-authoring, image-generation, localtts) into
<vault>/Skills/<skill>/ when absent. Existing files are never overwritten; a skill installed by this
command gets a .svc-skill-source.json marking its bundled origin. The index <vault>/Skills/README.md is
written (an index not written by svc is kept). The templates hold placeholders only.

The vault is --vault, else $` + envVault + `, else "vault" in the config file. No API key is needed.

  --vault DIR   the vault directory

` + globalFlagsHelp

// skillsInstallShelf runs "svc skills install-shelf".
func (a *app) skillsInstallShelf(args []string) int {
	const cmd = "skills install-shelf"
	fs := a.commandFlags(cmd, nil)
	var dir string
	fs.StringVar(&dir, "vault", "", "the vault directory")
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	if dir == "" && a.getenv(envVault) == "" && a.configVault() == "" {
		return a.usageError(cmd, "no vault: pass --vault DIR, set %s, or set \"vault\" in the config file", envVault)
	}
	v, code, ok := a.openVault(cmd, dir)
	if !ok {
		return code
	}
	res, err := skillshelf.Install(v.Root(), client.SDKVersion, time.Now())
	if err != nil {
		return a.localError("skill_shelf_failed", err.Error())
	}
	if a.g.json {
		a.printJSON(map[string]any{"ok": true, "shelf": res})
		return exitOK
	}
	for _, f := range res.Installed {
		fmt.Fprintf(a.stdout, "installed %s\n", f)
	}
	for _, f := range res.Kept {
		fmt.Fprintf(a.stdout, "kept      %s (exists)\n", f)
	}
	fmt.Fprintf(a.stdout, "index     %s (%s)\n", filepath.ToSlash(filepath.Join(skillshelf.Dir, skillshelf.IndexFile)), res.Index)
	return exitOK
}

// configVault is the "vault" of the config file, or "".
func (a *app) configVault() string {
	path, err := configPath(a.getenv)
	if err != nil {
		return ""
	}
	cfg, err := loadConfig(path)
	if err != nil {
		return ""
	}
	return cfg.Vault
}
