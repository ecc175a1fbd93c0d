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
