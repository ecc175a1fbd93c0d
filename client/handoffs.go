package client

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// Actions of POST /api/handoff (seed 001's planner).
const (
	// HandoffPlan resolves the machine and the agent without side effects.
	HandoffPlan = "plan"
	// HandoffSendFile sends files to the machine (any receiver on it may acknowledge).
	HandoffSendFile = "send-file"
	// HandoffSendTask sends a task (as a task file) to the selected agent.
	HandoffSendTask = "send-task"
	// HandoffSendFileTask sends files and a task to the selected agent.
	HandoffSendFileTask = "send-file-task"
)

// Statuses of a handoff.
const (
	// HandoffSending: recorded; its workflow is writing the vault transfer.
	HandoffSending = "sending"
	// HandoffAwaitingAck: the transfer is in the vault; the workflow waits for a receiver's ack.
	HandoffAwaitingAck = "awaiting_ack"
	// HandoffAcknowledged: a receiver verified the payloads and acknowledged.
	HandoffAcknowledged = "acknowledged"
	// HandoffExpired: nobody acknowledged before the deadline.
	HandoffExpired = "expired"
	// HandoffFailed: the transfer could not be written (a file vanished or changed, say).
	HandoffFailed = "failed"
)

// How a handoff's target matched a machine card (HandoffMachine.MatchedBy).
const (
	MatchMachineID    = "machine_id"
	MatchHost         = "host"
	MatchPrefix       = "prefix"
	MatchEditDistance = "edit_distance"
)

// HandoffRequest is the body of POST /api/handoff.
type HandoffRequest struct {
	Action string   `json:"action" enum:"plan,send-file,send-task,send-file-task" doc:"plan (no side effects), send-file, send-task or send-file-task."`
	Target string   `json:"target" maxLength:"200" doc:"A machine name: its machine id, its host, a prefix of either, or a near miss (edit distance)."`
	Files  []string `json:"files,omitempty" maxItems:"100" doc:"Absolute paths of files on the machine that holds the platform's vault (required by send-file and send-file-task)."`
	Task   string   `json:"task,omitempty" maxLength:"20000" doc:"The task for the receiving agent (required by send-task and send-file-task); it travels as the transfer's HANDOFF-TASK.md."`
	Note   string   `json:"note,omitempty" maxLength:"2000" doc:"Context for the receiver, written to the manifest's note."`
	// AckTimeoutSeconds bounds the wait for an ack (ours; the seed states none).
	AckTimeoutSeconds int `json:"ackTimeoutSeconds,omitempty" minimum:"0" maximum:"604800" doc:"How long the handoff waits for an ack before it expires (default 86400)."`
}

// HandoffMachine is the machine a target resolved to.
type HandoffMachine struct {
	MachineID string `json:"machineId"`
	Host      string `json:"host,omitempty"`
	// MatchedBy is machine_id, host, prefix or edit_distance.
	MatchedBy string `json:"matchedBy"`
	LastSeen  string `json:"lastSeen"`
}

// HandoffAgent is the receiving agent the planner selected.
type HandoffAgent struct {
	ID            string   `json:"id"`
	Runtime       string   `json:"runtime"`
	WorkerClasses []string `json:"workerClasses"`
}

// HandoffPlanResult is the planner's answer (seed 001's planner fields).
type HandoffPlanResult struct {
	Action  string         `json:"action"`
	Target  string         `json:"target"`
	Machine HandoffMachine `json:"machine" doc:"The resolved machine."`
	Agent   *HandoffAgent  `json:"agent" doc:"The selected agent (null when the machine's card lists none)."`
	// WorkerClass is the class the task asked for, as the selection read it.
	WorkerClass string `json:"workerClass" doc:"The worker class the selection used (general when the task names none the agents have)."`
	// TransferID is the vault transfer once the handoff's workflow has written it.
	TransferID *string `json:"transferId" doc:"The vault transfer, once written (null for plan, and until the workflow has written it)."`
	// RemoteTaskPreview is the beginning of the task file the agent receives.
	RemoteTaskPreview string `json:"remoteTaskPreview,omitempty" doc:"The beginning of the task file the receiving agent gets."`
}

// HandoffAck is one receiver's ack, as its ack file says.
type HandoffAck struct {
	MachineID string    `json:"machineId,omitempty"`
	Host      string    `json:"host,omitempty"`
	Runtime   string    `json:"runtime,omitempty"`
	AgentID   string    `json:"agentId,omitempty"`
	AckedAt   string    `json:"ackedAt"`
	Verified  []AckFile `json:"verified"`
}

// AckFile is one payload a receiver verified.
type AckFile struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
}

// Handoff is a recorded send handoff.
type Handoff struct {
	ID          string       `json:"id"`
	Action      string       `json:"action"`
	Status      string       `json:"status" doc:"sending, awaiting_ack, acknowledged, expired or failed."`
	Target      string       `json:"target"`
	Machine     string       `json:"machineId"`
	Host        string       `json:"host,omitempty"`
	Runtime     string       `json:"runtime,omitempty"`
	AgentID     string       `json:"agentId,omitempty"`
	WorkerClass string       `json:"workerClass,omitempty"`
	Files       []string     `json:"files"`
	HasTask     bool         `json:"hasTask"`
	Note        string       `json:"note,omitempty"`
	TransferID  *string      `json:"transferId"`
	Acks        []HandoffAck `json:"acks"`
	Error       *string      `json:"error,omitempty"`
	AckDeadline time.Time    `json:"ackDeadline"`
	WorkflowID  string       `json:"workflowId"`
	CreatedAt   time.Time    `json:"createdAt"`
	UpdatedAt   time.Time    `json:"updatedAt"`
	EndedAt     *time.Time   `json:"endedAt,omitempty"`
}

// HandoffEnvelope answers POST /api/handoff: the plan, and for a send the handoff recorded (202).
type HandoffEnvelope struct {
	OK      bool              `json:"ok"`
	Plan    HandoffPlanResult `json:"plan"`
	Handoff *Handoff          `json:"handoff,omitempty"`
}

// HandoffReadEnvelope answers GET /v1/handoffs/{handoffId}.
type HandoffReadEnvelope struct {
	OK      bool    `json:"ok"`
	Handoff Handoff `json:"handoff"`
}

// HandoffList answers GET /v1/handoffs.
type HandoffList struct {
	OK         bool      `json:"ok"`
	Handoffs   []Handoff `json:"handoffs"`
	NextCursor *string   `json:"nextCursor"`
}

// Handoff plans or sends a handoff, POST /api/handoff at the host root (scope runs:write).
func (c *Client) Handoff(ctx context.Context, r HandoffRequest, opts ...CallOption) Response[HandoffEnvelope] {
	return send[HandoffEnvelope](ctx, c, call{method: http.MethodPost, path: "/api/handoff", body: r, auth: authKey, idem: true,
		opts: opts, root: true})
}

// GetHandoff reads one of the account's handoffs, GET /v1/handoffs/{handoffId} (scope runs:read).
func (c *Client) GetHandoff(ctx context.Context, id string) Response[HandoffReadEnvelope] {
	if id == "" {
		return invalidArg[HandoffReadEnvelope]("handoffId", "the handoff id is empty")
	}
	return send[HandoffReadEnvelope](ctx, c, call{method: http.MethodGet, path: "/handoffs/" + url.PathEscape(id), auth: authKey})
}

// Handoffs lists the account's handoffs, newest first, GET /v1/handoffs (scope runs:read).
func (c *Client) Handoffs(ctx context.Context, p ListParams) Response[HandoffList] {
	return send[HandoffList](ctx, c, call{method: http.MethodGet, path: "/handoffs", query: p.query(), auth: authKey})
}
