package handoff

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/vault"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// ToWire is a handoff as the API shows it (the task's text is not repeated: hasTask says there is one).
func ToWire(h *schema.Handoff) client.Handoff {
	acks := []client.HandoffAck{}
	_ = json.Unmarshal(h.Acks, &acks)
	files := h.Files
	if files == nil {
		files = []string{}
	}
	return client.Handoff{ID: h.ID, Action: h.Action, Status: h.Status, Target: h.Target, Machine: h.MachineID, Host: deref(h.Host),
		Runtime: deref(h.Runtime), AgentID: deref(h.AgentID), WorkerClass: deref(h.WorkerClass), Files: files, HasTask: h.Task != nil,
		Note: deref(h.Note), TransferID: h.TransferID, Acks: acks, Error: h.ErrorMessage, AckDeadline: h.AckDeadline,
		WorkflowID: workflows.HandoffWorkflowID(h.ID), CreatedAt: h.CreatedAt, UpdatedAt: h.UpdatedAt, EndedAt: h.EndedAt}
}

// taskInfo is what the task file says.
type taskInfo struct {
	handoffID string
	task      string
	machineID string
	agent     *vault.AgentCard
	class     string
	files     []string
}

func infoOf(h *schema.Handoff) taskInfo {
	ti := taskInfo{handoffID: h.ID, task: deref(h.Task), machineID: h.MachineID, class: deref(h.WorkerClass), files: baseNames(h.Files)}
	if h.AgentID != nil {
		ti.agent = &vault.AgentCard{ID: *h.AgentID, Runtime: deref(h.Runtime)}
	}
	return ti
}

// TaskText is the task file a task handoff sends: the task, whom it is for, the files beside it, and
// how to take the transfer from the inbox and acknowledge it.
func TaskText(ti taskInfo) string {
	var b strings.Builder
	title := "Handoff task"
	if ti.handoffID != "" {
		title += " " + ti.handoffID
	}
	fmt.Fprintf(&b, "# %s\n\n%s\n\n---\n\n", title, strings.TrimSpace(ti.task))
	who := "machine " + ti.machineID
	inbox := "--machine " + ti.machineID
	if ti.agent != nil {
		who = fmt.Sprintf("agent %s (runtime %s) on machine %s", ti.agent.ID, ti.agent.Runtime, ti.machineID)
		inbox += fmt.Sprintf(" --runtime %s --agent %s", ti.agent.Runtime, ti.agent.ID)
	}
	fmt.Fprintf(&b, "For: %s, worker class %s.\n", who, ti.class)
	if len(ti.files) > 0 {
		fmt.Fprintf(&b, "Files in this transfer: %s.\n", strings.Join(ti.files, ", "))
	}
	fmt.Fprintf(&b, "\nTake it from the inbox: `svc transfers inbox %s`\n", inbox)
	fmt.Fprintf(&b, "Once the payloads are verified, acknowledge: `svc transfers ack <transfer id> %s`\n", inbox)
	return b.String()
}
