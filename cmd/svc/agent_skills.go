package main

// agentSkillsHelp is the help of "svc agent skills".
const agentSkillsHelp = `Usage: svc agent skills

Lists the skills the agent sees (GET /v1/skills; scope runs:read, service managed-agents): every skill
of the account, with its name, version, visibility, review state and description. The agent's system
prompt lists each skill's name, emoji and description; the agent loads a skill's body, references and
resources (inline up to 200 KB) with its load_skill tool when a task matches. Manage skills with
"svc skills". --json prints the API's answer.

` + globalFlagsHelp

// agentSkills lists the skills the agent sees.
func (a *app) agentSkills(args []string) int {
	return a.listSkills("agent skills", `The agent sees no skills: add one with "svc skills create".`, args)
}
