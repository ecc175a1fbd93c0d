package handoff

import (
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/svcplatform/svc/internal/vault"
)

// GeneralClass is the worker class of a task that names none of the classes the agents have.
const GeneralClass = "general"

// classKeywords are words that ask for a worker class besides the class's own name. Seed 001 leaves the
// selection rules unstated; these are ours (docs/DECISIONS.md).
var classKeywords = map[string][]string{
	"code":     {"code", "coding", "bug", "fix", "implement", "refactor", "test", "tests", "compile", "build", "debug", "repo", "function"},
	"research": {"research", "investigate", "find", "compare", "summarize", "summarise", "survey", "read", "analyze", "analyse"},
	"writing":  {"write", "draft", "docs", "document", "blog", "article", "edit", "proofread"},
	"ops":      {"deploy", "restart", "server", "install", "backup", "monitor", "logs", "upgrade"},
	"image":    {"image", "picture", "photo", "render", "illustration"},
	"speech":   {"speech", "voice", "tts", "audio", "narrate"},
}

// Selection is the agent chosen for a task and the class it was chosen by.
type Selection struct {
	// Agent is nil when the machine's card lists no agent.
	Agent       *vault.AgentCard
	WorkerClass string
}

// SelectAgent chooses the receiving agent on card for task by worker class:
//
//  1. The task's classes are the classes any agent declares whose name, or one of its keywords
//     (classKeywords), appears in the task as a word (case-insensitive).
//  2. The agent declaring most of the task's classes wins; ties go to the class that appears first in
//     the task, then to the agent first by runtime and id.
//  3. A task naming no class (or no task: a plain file handoff) goes to an agent declaring "general",
//     else to the first agent by runtime and id; its class is then "general".
func SelectAgent(card vault.MachineCard, task string) Selection {
	agents := slices.Clone(card.Agents)
	if len(agents) == 0 {
		return Selection{WorkerClass: GeneralClass}
	}
	sort.SliceStable(agents, func(i, j int) bool {
		return agents[i].Runtime+"\x00"+agents[i].ID < agents[j].Runtime+"\x00"+agents[j].ID
	})
	asked := taskClasses(agents, task)
	best, bestScore, bestClass := -1, 0, ""
	for i, a := range agents {
		score, first := 0, ""
		for _, c := range asked {
			if hasClass(a, c) {
				score++
				if first == "" {
					first = c
				}
			}
		}
		if score > bestScore {
			best, bestScore, bestClass = i, score, first
		}
	}
	if best >= 0 {
		return Selection{Agent: &agents[best], WorkerClass: bestClass}
	}
	for i, a := range agents {
		if hasClass(a, GeneralClass) {
			return Selection{Agent: &agents[i], WorkerClass: GeneralClass}
		}
	}
	return Selection{Agent: &agents[0], WorkerClass: GeneralClass}
}

// taskClasses lists, in the order they first appear in task, the agents' classes the task asks for.
func taskClasses(agents []vault.AgentCard, task string) []string {
	words := strings.FieldsFunc(strings.ToLower(task), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	var known []string
	for _, a := range agents {
		for _, c := range a.WorkerClasses {
			if c = strings.ToLower(c); !slices.Contains(known, c) {
				known = append(known, c)
			}
		}
	}
	sort.Strings(known)
	var out []string
	for _, w := range words {
		for _, c := range known {
			if !slices.Contains(out, c) && (w == c || slices.Contains(classKeywords[c], w)) {
				out = append(out, c)
			}
		}
	}
	return out
}

func hasClass(a vault.AgentCard, class string) bool {
	return slices.ContainsFunc(a.WorkerClasses, func(c string) bool { return strings.EqualFold(c, class) })
}
