package main

import (
	"context"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/svcplatform/svc/client"
)

// toolServer holds the API client the tools call.
type toolServer struct {
	c      *client.Client
	hasKey bool
}

// errNoKey is every tool's answer when the CLI has no key.
var errNoKey = errors.New(`no API key: run "svc login", set ` + envAPIKey + ` or pass --api-key to svc mcp-tools`)

// The tools' inputs: their json tags name the arguments (omitempty ones are optional) and their
// jsonschema tags describe them in the input schemas.
type (
	noInput struct{}

	planInput struct {
		Target string `json:"target" jsonschema:"The machine to hand off to: its machine id, its host, a prefix of either, or a near miss."`
		Task   string `json:"task,omitempty" jsonschema:"The task the receiving agent would get; it decides which agent (by worker class) is selected."`
	}

	sendCommon struct {
		Target            string `json:"target" jsonschema:"The machine to hand off to: its machine id, its host, a prefix of either, or a near miss. An ambiguous name fails listing the candidates."`
		Note              string `json:"note,omitempty" jsonschema:"Context for the receiver, written to the transfer's manifest. Never a secret."`
		AckTimeoutSeconds int    `json:"ackTimeoutSeconds,omitempty" jsonschema:"How long the handoff waits for the receiver's ack before it expires, 1 to 604800 seconds (default 86400)."`
		IdempotencyKey    string `json:"idempotencyKey,omitempty" jsonschema:"Send the same key again to retry a send without sending twice (default: a new key, a new handoff)."`
	}

	fileInput struct {
		sendCommon
		Files []string `json:"files" jsonschema:"Absolute paths of the files, on the machine that holds the platform's vault. No secrets: they are scanned and refused."`
	}

	fileTaskInput struct {
		sendCommon
		Files []string `json:"files" jsonschema:"Absolute paths of the files, on the machine that holds the platform's vault."`
		Task  string   `json:"task" jsonschema:"The task for the receiving agent; it travels as HANDOFF-TASK.md beside the files."`
	}

	taskInput struct {
		sendCommon
		Task string `json:"task" jsonschema:"The task for the best agent of the machine; it travels as the transfer's HANDOFF-TASK.md."`
	}

	railInput struct {
		AmountUSD float64 `json:"amountUsd" jsonschema:"The amount in US dollars (more than 0, at most two decimal places)."`
		Purpose   string  `json:"purpose,omitempty" jsonschema:"platform (pay for the platform's services), topup (add credits) or transfer (pay the address in to). Default: transfer when to is set, else platform."`
		To        string  `json:"to,omitempty" jsonschema:"The recipient address (0x…) of a transfer."`
		WalletID  string  `json:"walletId,omitempty" jsonschema:"The managed wallet to send from (default: the first usable one whose limit fits)."`
	}

	prepareInput struct {
		railInput
		Rail string `json:"rail,omitempty" jsonschema:"credits, x402-topup or wallet-send: prepare this rail instead of the one select_crypto_rail would pick."`
	}
)

// readOnly marks a tool that changes nothing.
var readOnly = &mcp.ToolAnnotations{ReadOnlyHint: true}

// register adds the tools to srv.
func (ts *toolServer) register(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{Name: "list_svc_machines", Annotations: readOnly,
		Description: "List the machines the platform's vault knows (their machine cards): machine id, host, runtimes, agents with their worker classes, and when each was last seen."},
		ts.listMachines)
	mcp.AddTool(srv, &mcp.Tool{Name: "plan_handoff", Annotations: readOnly,
		Description: "Resolve a machine name and select the receiving agent for a task, sending nothing: the resolved machine (and how the name matched), the agent, its worker class and a preview of the task file."},
		ts.plan)
	mcp.AddTool(srv, &mcp.Tool{Name: "handoff_file",
		Description: "Send files to a machine through the platform's vault (any receiver on it may acknowledge). Returns the plan and the handoff: its id, status and, once written, the transfer id."},
		ts.handoffFile)
	mcp.AddTool(srv, &mcp.Tool{Name: "handoff_file_task",
		Description: "Send files and a task to the best agent of a machine (selected by worker class); the task travels as HANDOFF-TASK.md with inbox and ack instructions."},
		ts.handoffFileTask)
	mcp.AddTool(srv, &mcp.Tool{Name: "handoff_task",
		Description: "Send a task, without files, to the best agent of a machine (selected by worker class)."},
		ts.handoffTask)
	mcp.AddTool(srv, &mcp.Tool{Name: "crypto_capabilities", Annotations: readOnly,
		Description: "List the payment rails the platform offers (account credits, x402 credit top-up, managed wallet send): what each needs, its limits, and whether this key can use it now."},
		ts.cryptoCapabilities)
	mcp.AddTool(srv, &mcp.Tool{Name: "select_crypto_rail", Annotations: readOnly,
		Description: "Pick the payment rail for an amount and a purpose, with the reason and every rail's verdict. Spends nothing."},
		ts.selectRail)
	mcp.AddTool(srv, &mcp.Tool{Name: "prepare_crypto_action", Annotations: readOnly,
		Description: "Return the exact HTTP request (method, URL, headers, body) that would pay on the selected (or named) rail, plus a checking request first where useful. Never executes it: nothing is spent."},
		ts.prepare)
}

// toolResult is a tool's answer: the API's envelope as structured content (and JSON text), or the
// failure as a tool error carrying the API's message.
func toolResult[T any](ts *toolServer, call func() client.Response[T]) (*mcp.CallToolResult, any, error) {
	if !ts.hasKey {
		return nil, nil, errNoKey
	}
	r := call()
	if !r.OK {
		return nil, nil, apiError(r)
	}
	return nil, r.Body, nil
}

func (ts *toolServer) listMachines(ctx context.Context, _ *mcp.CallToolRequest, _ noInput) (*mcp.CallToolResult, any, error) {
	return toolResult(ts, func() client.Response[client.HandoffMachines] { return ts.c.HandoffMachineCards(ctx) })
}

func (ts *toolServer) plan(ctx context.Context, _ *mcp.CallToolRequest, in planInput) (*mcp.CallToolResult, any, error) {
	return toolResult(ts, func() client.Response[client.HandoffEnvelope] {
		return ts.c.Handoff(ctx, client.HandoffRequest{Action: client.HandoffPlan, Target: in.Target, Task: in.Task})
	})
}

// transferWait bounds how long a send tool waits for the handoff's transfer to be written.
const transferWait = 30 * time.Second

// send makes a send handoff and waits (at most transferWait) until its workflow has written the
// transfer, so the answer carries the transfer id.
func (ts *toolServer) send(ctx context.Context, in sendCommon, action, task string, files []string) (*mcp.CallToolResult, any, error) {
	req := client.HandoffRequest{Action: action, Target: in.Target, Files: files, Task: task, Note: in.Note,
		AckTimeoutSeconds: in.AckTimeoutSeconds}
	return toolResult(ts, func() client.Response[client.HandoffEnvelope] {
		r := ts.c.Handoff(ctx, req, idemOpts(in.IdempotencyKey)...)
		if r.OK && r.Body.Handoff != nil {
			h := ts.awaitTransfer(ctx, *r.Body.Handoff)
			r.Body.Handoff, r.Body.Plan.TransferID = &h, h.TransferID
		}
		return r
	})
}

// awaitTransfer polls the handoff until its transfer is written or it ended, for at most transferWait;
// it answers the latest state it read (a failed read keeps the previous one).
func (ts *toolServer) awaitTransfer(ctx context.Context, h client.Handoff) client.Handoff {
	deadline := time.NewTimer(transferWait)
	defer deadline.Stop()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for h.TransferID == nil && h.Status == client.HandoffSending {
		select {
		case <-ctx.Done():
			return h
		case <-deadline.C:
			return h
		case <-tick.C:
		}
		if r := ts.c.GetHandoff(ctx, h.ID); r.OK {
			h = r.Body.Handoff
		}
	}
	return h
}

func (ts *toolServer) handoffFile(ctx context.Context, _ *mcp.CallToolRequest, in fileInput) (*mcp.CallToolResult, any, error) {
	return ts.send(ctx, in.sendCommon, client.HandoffSendFile, "", in.Files)
}

func (ts *toolServer) handoffFileTask(ctx context.Context, _ *mcp.CallToolRequest, in fileTaskInput) (*mcp.CallToolResult, any, error) {
	return ts.send(ctx, in.sendCommon, client.HandoffSendFileTask, in.Task, in.Files)
}

func (ts *toolServer) handoffTask(ctx context.Context, _ *mcp.CallToolRequest, in taskInput) (*mcp.CallToolResult, any, error) {
	return ts.send(ctx, in.sendCommon, client.HandoffSendTask, in.Task, nil)
}

func (ts *toolServer) cryptoCapabilities(ctx context.Context, _ *mcp.CallToolRequest, _ noInput) (*mcp.CallToolResult, any, error) {
	return toolResult(ts, func() client.Response[client.CryptoCapabilities] { return ts.c.CryptoCapabilities(ctx) })
}

// railRequest is the API body of a rail tool's input.
func railRequest(action string, in railInput, rail string) client.CryptoActionRequest {
	return client.CryptoActionRequest{Action: action, AmountUSD: in.AmountUSD, Purpose: in.Purpose, Rail: rail, To: in.To, WalletID: in.WalletID}
}

func (ts *toolServer) selectRail(ctx context.Context, _ *mcp.CallToolRequest, in railInput) (*mcp.CallToolResult, any, error) {
	return toolResult(ts, func() client.Response[client.CryptoActionEnvelope] {
		return ts.c.CryptoAction(ctx, railRequest(client.CryptoSelect, in, ""))
	})
}

func (ts *toolServer) prepare(ctx context.Context, _ *mcp.CallToolRequest, in prepareInput) (*mcp.CallToolResult, any, error) {
	return toolResult(ts, func() client.Response[client.CryptoActionEnvelope] {
		return ts.c.CryptoAction(ctx, railRequest(client.CryptoPrepare, in.railInput, in.Rail))
	})
}
