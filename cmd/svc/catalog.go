package main

import (
	"fmt"
	"strings"

	"github.com/svcplatform/svc/client"
)

// servicesHelp is the help of "svc services".
const servicesHelp = `Usage: svc services <list|invoke> [flags]

  services list     list the managed services the key may use
  services invoke   call an operation of an external managed service

Run "svc services <command> --help" for details.`

// catalogCommands are the commands of the service catalog: "svc services" (whose invoke is in gateway.go),
// "svc services list", "svc capabilities" and "svc pricing".
func catalogCommands() []command {
	return []command{
		{name: "services", help: servicesHelp},
		{name: "services list", run: (*app).servicesList, help: servicesListHelp,
			brief: "list the managed services the key may use"},
		{name: "capabilities", args: "[ID]", run: (*app).capabilities, help: capabilitiesHelp,
			brief: "list the operations of the services the key may use, or of one service"},
		{name: "pricing", run: (*app).pricing, help: pricingHelp,
			brief: "show the public price of every operation in credits"},
	}
}

// servicesListHelp is the help of "svc services list".
const servicesListHelp = `Usage: svc services list

Lists the managed services the key may use (scope services:read): built-in ones and the external ones
services.yaml registers. AVAILABLE says whether any of a service's operations can be used now;
"svc capabilities SERVICE_ID" shows its operations.

` + globalFlagsHelp

// servicesList lists the services the key may use.
func (a *app) servicesList(args []string) int {
	const cmd = "services list"
	if code, ok := a.parseNone(cmd, a.commandFlags(cmd, nil), args); !ok {
		return code
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return answer(a, c.ListServices(a.ctx), func(r client.Response[client.ServiceList]) {
		if len(r.Body.Services) == 0 {
			fmt.Fprintln(a.stdout, "No services.")
			return
		}
		tw := a.table()
		fmt.Fprintln(tw, "ID\tNAME\tAVAILABLE\tOPERATIONS\tDESCRIPTION")
		for _, s := range r.Body.Services {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", s.ID, oneLine(s.Name, 40), yesNo(s.Available), len(s.Operations),
				orDash(oneLine(s.Description, 60)))
		}
		_ = tw.Flush()
		fmt.Fprintln(a.stdout, "Operations of a service: svc capabilities SERVICE_ID")
	})
}

// capabilitiesHelp is the help of "svc capabilities".
const capabilitiesHelp = `Usage: svc capabilities [SERVICE_ID]

Without SERVICE_ID, lists the operations of every service the key may use, one line each (scope
services:read). With it, shows that service and its operations (scope services:read and access to the
service; not_found when the catalog has no such service); for an external generation service it also
shows the preflight, the answers of its /health and /v1/models checked with your connection.

KIND is run (started with "svc runs create"), route (served by its own API route) or invoke ("svc
services invoke"); APPROVAL "required" means a run of it waits for an approval.

` + globalFlagsHelp

// capabilities lists the operations of every visible service, or shows one service with its operations
// (and its preflight, for a generation service).
func (a *app) capabilities(args []string) int {
	const cmd = "capabilities"
	fs := a.commandFlags(cmd, nil)
	pos, code, ok := a.parse(cmd, fs, args)
	switch {
	case !ok:
		return code
	case len(pos) > 1:
		return a.usageError(cmd, "capabilities takes at most one service id")
	case len(pos) == 1 && strings.TrimSpace(pos[0]) == "":
		return a.usageError(cmd, "the service id is empty")
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	if len(pos) == 0 {
		return answer(a, c.ListCapabilities(a.ctx), func(r client.Response[client.ServiceList]) {
			a.printOperations(r.Body.Services)
		})
	}
	return answer(a, c.GetCapabilities(a.ctx, pos[0]), func(r client.Response[client.ServiceEnvelope]) {
		s := r.Body.Service
		tw := a.table()
		name := s.ID
		if s.Name != "" {
			name += " (" + s.Name + ")"
		}
		fmt.Fprintf(tw, "Service:\t%s\n", name)
		if s.Description != "" {
			fmt.Fprintf(tw, "Description:\t%s\n", oneLine(s.Description, 0))
		}
		fmt.Fprintf(tw, "Available:\t%s\n", yesNo(s.Available))
		_ = tw.Flush()
		fmt.Fprintln(a.stdout)
		a.printOperations([]client.Service{s})
		if p := r.Body.Preflight; p != nil {
			a.printPreflight(p)
		}
	})
}

// printOperations shows the operations of services as a table, one line each.
func (a *app) printOperations(services []client.Service) {
	n := 0
	for _, s := range services {
		n += len(s.Operations)
	}
	if n == 0 {
		fmt.Fprintln(a.stdout, "No operations.")
		return
	}
	tw := a.table()
	fmt.Fprintln(tw, "SERVICE\tOPERATION\tKIND\tAPPROVAL\tAVAILABLE\tDESCRIPTION")
	for _, s := range services {
		for _, op := range s.Operations {
			approval := "-"
			if op.RequiresApproval {
				approval = "required"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", s.ID, op.ID, op.Kind, approval, yesNo(op.Available),
				orDash(oneLine(op.Description, 60)))
		}
	}
	_ = tw.Flush()
}

// printPreflight shows the preflight of a generation service: each check and the models it listed.
func (a *app) printPreflight(p *client.Preflight) {
	verdict := "ok"
	if !p.OK {
		verdict = "failed"
	}
	fmt.Fprintf(a.stdout, "\nPreflight: %s\n", verdict)
	tw := a.table()
	for _, c := range []client.PreflightCheck{p.Health, p.Models} {
		answer := "no answer"
		if c.Status != 0 {
			answer = statusLine(c.Status)
		}
		if c.ErrorCode != "" {
			answer += " (" + c.ErrorCode + ")"
		}
		fmt.Fprintf(tw, "  GET %s\t%s\t%d ms\n", c.Path, answer, c.LatencyMs)
	}
	_ = tw.Flush()
	if len(p.ModelIDs) > 0 {
		fmt.Fprintf(a.stdout, "  Models: %s\n", strings.Join(p.ModelIDs, ", "))
	}
}

// pricingHelp is the help of "svc pricing".
const pricingHelp = `Usage: svc pricing [--service ID]

Shows the server-owned price of every operation in credits (1 USD = 100 credits), and whether it can be
used now. Prices are public: no API key is needed.

  --service ID   only this service's prices: platform-api, managed-wallets, managed-trading,
                 managed-agents or managed-workflows

` + globalFlagsHelp

// pricing shows the public price catalog, optionally of one service.
func (a *app) pricing(args []string) int {
	const cmd = "pricing"
	var service string
	fs := a.commandFlags(cmd, nil)
	fs.StringVar(&service, "service", "", "only this service's prices")
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	if flagsGiven(fs)["service"] && strings.TrimSpace(service) == "" {
		return a.usageError(cmd, "--service must not be empty")
	}
	s, err := a.settings()
	if err != nil {
		return a.localError("config_error", err.Error())
	}
	// Prices are public: the request carries no key.
	s.apiKey = ""
	return answer(a, a.newClient(s).Pricing(a.ctx, service), func(r client.Response[client.Pricing]) {
		if len(r.Body.Prices) == 0 {
			fmt.Fprintln(a.stdout, "No prices.")
			return
		}
		tw := a.table()
		fmt.Fprintln(tw, "SERVICE\tOPERATION\tCREDITS\tUNIT\tAVAILABLE")
		for _, p := range r.Body.Prices {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.ServiceID, p.OperationID, formatCredits(p.Credits), p.Unit,
				yesNo(p.Available))
		}
		_ = tw.Flush()
		fmt.Fprintf(a.stdout, "1 USD = %d credits.\n", r.Body.CreditsPerUSD)
	})
}
