package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/svcplatform/svc/client"
)

// webhooksDeliveriesCommands are the commands of webhook deliveries, "svc webhooks deliveries" and "svc
// webhooks replay".
func webhooksDeliveriesCommands() []command {
	return []command{
		{name: "webhooks deliveries", run: (*app).webhooksDeliveries, help: webhooksDeliveriesHelp,
			brief: "list deliveries with their latest attempt"},
		{name: "webhooks replay", run: (*app).webhooksReplay, help: webhooksReplayHelp,
			brief: "deliver a delivery's event again (same webhook-id, new signature)"},
	}
}

// webhooksDeliveriesHelp is the help of "svc webhooks deliveries".
const webhooksDeliveriesHelp = `Usage: svc webhooks deliveries [--webhook ID] [--type TYPE] [--status S] [--limit N] [--cursor C]
                               [--all]

Lists webhook deliveries of the selected project (or of none), newest first (scope webhooks:read): one
line per delivery with its endpoint, event, status and latest attempt (HTTP status, latency or error).
--json prints the API's envelope, with every attempt of every delivery.

  --webhook ID   only the deliveries to the endpoint ID (whk_...)
  --type TYPE    only deliveries of one event type, e.g. run.succeeded
  --status S     pending, succeeded or failed
  --limit N      page size 1..200 (default 50)
  --cursor C     the nextCursor of the previous page
  --all          follow nextCursor through every page

` + globalFlagsHelp

// webhooksDeliveries lists webhook deliveries with their latest attempt.
func (a *app) webhooksDeliveries(args []string) int {
	const cmd = "webhooks deliveries"
	var webhookID, typ, status string
	fs := a.commandFlags(cmd, nil)
	fs.StringVar(&webhookID, "webhook", "", "only deliveries to this endpoint")
	fs.StringVar(&typ, "type", "", "only deliveries of this event type")
	fs.StringVar(&status, "status", "", "pending, succeeded or failed")
	var pf pageFlags
	if code, ok := a.parsePaged(cmd, fs, &pf, args); !ok {
		return code
	}
	switch status {
	case "", client.DeliveryPending, client.DeliverySucceeded, client.DeliveryFailed:
	default:
		return a.usageError(cmd, "--status must be pending, succeeded or failed, not %q", status)
	}
	webhookID, typ = strings.TrimSpace(webhookID), strings.TrimSpace(typ)
	dels, next, code, done := collectPages(a, pf,
		func(c *client.Client, p client.ListParams) client.Response[client.WebhookDeliveryList] {
			return c.ListWebhookDeliveries(a.ctx, client.ListWebhookDeliveriesParams{ListParams: p,
				WebhookID: webhookID, Type: typ, Status: status})
		},
		func(l client.WebhookDeliveryList) ([]client.WebhookDelivery, *string) {
			return l.Deliveries, l.NextCursor
		})
	if done {
		return code
	}
	if a.listShown(client.WebhookDeliveryList{OK: true, Deliveries: orEmpty(dels), NextCursor: next}, len(dels), "No deliveries.") {
		return exitOK
	}
	tw := a.table()
	fmt.Fprintln(tw, "ID\tWEBHOOK\tEVENT\tTYPE\tSTATUS\tATTEMPTS\tLAST ATTEMPT\tCREATED")
	for _, d := range dels {
		status := d.Status
		if d.ReplayOf != nil {
			status += " (replay)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", d.ID, d.WebhookID, d.EventID, d.EventType, status,
			len(d.Attempts), lastAttempt(d.Attempts), d.CreatedAt.UTC().Format(time.RFC3339))
	}
	_ = tw.Flush()
	var filters []string
	for _, f := range []struct{ name, val string }{{"--webhook", webhookID}, {"--type", typ}, {"--status", status}} {
		if f.val != "" {
			filters = append(filters, f.name, shellQuote(f.val))
		}
	}
	if pf.limit != 0 {
		filters = append(filters, "--limit", strconv.Itoa(pf.limit))
	}
	a.moreHint("deliveries", cmd, filters, next)
	return exitOK
}

// lastAttempt summarises the latest attempt: "200 in 12ms", or its error; "-" when none was made.
func lastAttempt(attempts []client.WebhookAttempt) string {
	if len(attempts) == 0 {
		return "-"
	}
	at := attempts[len(attempts)-1]
	s := "no answer"
	if at.HTTPStatus != nil {
		s = strconv.Itoa(*at.HTTPStatus)
	}
	s += " in " + strconv.FormatInt(at.LatencyMs, 10) + "ms"
	if at.Error != nil && *at.Error != "" {
		s += ": " + oneLine(*at.Error, 60)
	}
	return s
}

// webhooksReplayHelp is the help of "svc webhooks replay".
const webhooksReplayHelp = `Usage: svc webhooks replay DELIVERY_ID [--idempotency-key K]

Delivers the event of DELIVERY_ID (dlv_..., from "svc webhooks deliveries") again to its endpoint as a
fresh delivery (scope webhooks:write): the same event id, so the same webhook-id header, with a new
timestamp and signature. Replaying a delivery of a disabled endpoint is a conflict (exit 1).

  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp

// webhooksReplay delivers a delivery's event again as a fresh delivery.
func (a *app) webhooksReplay(args []string) int {
	return oneID(a, idSpec{cmd: "webhooks replay", what: "delivery", idem: true}, args,
		func(c *client.Client, id string, opts []client.CallOption) client.Response[client.WebhookDeliveryEnvelope] {
			return c.ReplayWebhookDelivery(a.ctx, id, opts...)
		},
		func(r client.Response[client.WebhookDeliveryEnvelope]) {
			d := r.Body.Delivery
			title := "Replaying as delivery"
			if d.ReplayOf != nil {
				title = "Replaying " + *d.ReplayOf + " as delivery"
			}
			fmt.Fprintln(a.stdout, titleLine(title, d.ID, "", r.Replayed))
			tw := a.table()
			fmt.Fprintf(tw, "  Webhook:\t%s\n", d.WebhookID)
			fmt.Fprintf(tw, "  Event:\t%s (%s; the webhook-id header)\n", d.EventID, d.EventType)
			fmt.Fprintf(tw, "  Status:\t%s\n", d.Status)
			fmt.Fprintf(tw, "  Created:\t%s\n", d.CreatedAt.UTC().Format(time.RFC3339))
			_ = tw.Flush()
		})
}
