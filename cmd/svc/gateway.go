package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/svcplatform/svc/client"
)

// headerUpstreamRequestID is the owning service's request id on an invocation's answer, when it gave one.
const headerUpstreamRequestID = "X-Svc-Upstream-Request-Id"

// gatewayCommands are the invocation of an external service, "svc services invoke".
func gatewayCommands() []command {
	return []command{
		{name: "services invoke", run: (*app).servicesInvoke, help: servicesInvokeHelp,
			brief: "call an operation of an external managed service"},
	}
}

// servicesInvokeHelp is the help of "svc services invoke".
const servicesInvokeHelp = `Usage: svc services invoke SERVICE_ID --operation OP [--input JSON | --input-file F]
                           [--idempotency-key K]

Calls the operation OP of the external managed service SERVICE_ID (scope services:invoke and access to
the service), e.g.
  svc services invoke weather --operation forecast --input '{"city":"Oslo"}'

Prints the status the service answered, the credits it charged, its request id (when it gave one) and
its result as indented JSON; with --json, the API's envelope as received.

  --operation OP        operation id (required)
  --input JSON          the input, a JSON object (default {})
  --input-file F        read the input from file F (- for stdin)
  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

Exit status: 0 when the service answered below 400; 1 when it answered 4xx or 5xx (the call itself
succeeded, the result is still printed and "error: service answered <status>" goes to stderr) or when
the API refused the call; 2 for a usage error.

` + globalFlagsHelp

// servicesInvoke calls an operation of an external managed service. The API call may succeed while the
// service answers 4xx/5xx: that is reported on stderr and exits 1.
func (a *app) servicesInvoke(args []string) int {
	const cmd = "services invoke"
	var (
		operation, idemKey string
		input              inputFlags
	)
	fs := a.commandFlags(cmd, &idemKey)
	fs.StringVar(&operation, "operation", "", "operation id (required)")
	input.register(fs)
	id, code, ok := a.parseID(idSpec{cmd: cmd, what: "service"}, fs, args)
	if !ok {
		return code
	}
	switch {
	case strings.TrimSpace(operation) == "":
		return a.usageError(cmd, "--operation is required")
	case input.both():
		return a.usageError(cmd, msgInputBoth)
	}
	in, code, ok := input.read(a, cmd)
	if !ok {
		return code
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	resp := c.Invoke(a.ctx, id, client.InvokeRequest{OperationID: operation, Input: in}, idemOpts(idemKey)...)
	if !resp.OK {
		return apiFailure(a, resp)
	}
	res := resp.Body
	if a.g.json {
		a.printRaw(resp.Raw)
	} else {
		a.printInvocation(resp)
	}
	if res.Status >= 400 {
		fmt.Fprintf(a.stderr, "error: service answered %s (the invocation itself succeeded; see the result)\n", statusLine(res.Status))
		return exitAPI
	}
	return exitOK
}

// printInvocation shows an invocation's status, charge, ids and result.
func (a *app) printInvocation(resp client.Response[client.InvokeResult]) {
	res := resp.Body
	tw := a.table()
	svc := res.ServiceID
	if resp.Replayed {
		svc += "  [replayed answer]"
	}
	fmt.Fprintf(tw, "Service:\t%s\n", svc)
	fmt.Fprintf(tw, "Operation:\t%s\n", res.OperationID)
	fmt.Fprintf(tw, "Status:\t%s\n", statusLine(res.Status))
	fmt.Fprintf(tw, "Charged:\t%s credits\n", formatCredits(res.ChargedCredits))
	if id := resp.Header.Get(headerUpstreamRequestID); id != "" {
		fmt.Fprintf(tw, "Upstream request:\t%s\n", id)
	}
	if resp.RequestID != "" {
		fmt.Fprintf(tw, "Request:\t%s\n", resp.RequestID)
	}
	_ = tw.Flush()
	fmt.Fprintln(a.stdout, "Result:")
	result := bytes.TrimSpace(res.Result)
	if len(result) == 0 {
		result = []byte("null")
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, result, "", "  "); err != nil {
		buf.Reset()
		buf.Write(result)
	}
	buf.WriteByte('\n')
	_, _ = a.stdout.Write(buf.Bytes())
}
