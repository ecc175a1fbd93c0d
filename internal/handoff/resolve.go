// Package handoff is seed 001's handoff planner on the platform: it resolves a fuzzy machine name
// against the machine cards of the configured vault, selects the receiving agent by worker class, and
// for a send records the handoff and starts workflow handoff/<id>, whose activities (Worker) write the
// vault transfer and watch its acks.
package handoff

import (
	"sort"
	"strings"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/textdist"
	"github.com/svcplatform/svc/internal/vault"
)

// Resolved is a machine card a target matched, and how.
type Resolved struct {
	Card      vault.MachineCard
	MatchedBy string
}

// Resolve finds the one machine card target names, trying in turn: the exact machine id; the host
// (case-insensitive); a case-insensitive prefix of the machine id or host; the smallest edit distance
// to either, within maxDistance(target). A step that matches several machines is a conflict listing
// them (details.candidates); no match at all is not_found.
func Resolve(cards []vault.MachineCard, target string) (*Resolved, error) {
	target = strings.TrimSpace(target)
	if target == "" {
		return nil, svcerr.Invalid("target", "target: name the machine to hand off to")
	}
	lower := strings.ToLower(target)
	steps := []struct {
		by    string
		match func(vault.MachineCard) bool
	}{
		{client.MatchMachineID, func(c vault.MachineCard) bool { return c.MachineID == target }},
		{client.MatchHost, func(c vault.MachineCard) bool { return c.Host != "" && strings.EqualFold(c.Host, target) }},
		{client.MatchPrefix, func(c vault.MachineCard) bool {
			return strings.HasPrefix(strings.ToLower(c.MachineID), lower) ||
				c.Host != "" && strings.HasPrefix(strings.ToLower(c.Host), lower)
		}},
	}
	for _, step := range steps {
		if found := filter(cards, step.match); len(found) > 0 {
			return one(found, target, step.by)
		}
	}
	return nearest(cards, target)
}

// nearest is the edit-distance step of Resolve.
func nearest(cards []vault.MachineCard, target string) (*Resolved, error) {
	limit := maxDistance(target)
	best, found := limit+1, []vault.MachineCard{}
	for _, c := range cards {
		d := min(editDistance(target, c.MachineID), editDistance(target, c.Host))
		switch {
		case d < best:
			best, found = d, []vault.MachineCard{c}
		case d == best:
			found = append(found, c)
		}
	}
	if best > limit {
		return nil, svcerr.NotFoundf("no machine matches %q: %d machine card(s) in the vault, none with that id or host, a prefix of it, or within %d edit(s)",
			target, len(cards), limit)
	}
	return one(found, target, client.MatchEditDistance)
}

// maxDistance is how many edits a near miss may need: a quarter of the name, at least one, at most 3.
func maxDistance(target string) int { return max(1, min(3, len([]rune(target))/4)) }

func filter(cards []vault.MachineCard, keep func(vault.MachineCard) bool) []vault.MachineCard {
	var out []vault.MachineCard
	for _, c := range cards {
		if keep(c) {
			out = append(out, c)
		}
	}
	return out
}

// one answers the single match, or a conflict naming every candidate.
func one(found []vault.MachineCard, target, by string) (*Resolved, error) {
	if len(found) == 1 {
		return &Resolved{Card: found[0], MatchedBy: by}, nil
	}
	names := make([]string, 0, len(found))
	candidates := make([]map[string]string, 0, len(found))
	for _, c := range found {
		names = append(names, c.MachineID)
		candidates = append(candidates, map[string]string{"machineId": c.MachineID, "host": c.Host})
	}
	sort.Strings(names)
	return nil, svcerr.New(svcerr.Conflict, "target %q is ambiguous (%s): it matches %s; name one of them",
		target, strings.ReplaceAll(by, "_", " "), strings.Join(names, ", ")).WithDetails("candidates", candidates)
}

// editDistance is the Levenshtein distance between a and b, case-insensitively ("" is far from all).
func editDistance(a, b string) int {
	if b == "" {
		return len([]rune(a)) + 1<<10
	}
	return textdist.Levenshtein(strings.ToLower(a), strings.ToLower(b))
}
