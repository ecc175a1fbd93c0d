// Package catalog is the server-owned list of managed services, their operations and prices, and the
// rules for per-key limit selectors built from them. Clients read it; they never supply prices.
package catalog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/svcplatform/svc/client"
)

// Operation kinds.
const (
	// KindRun operations are started with POST /v1/runs and execute as durable workflows.
	KindRun = "run"
	// KindRoute operations are served by their own API route (wallets, trading, databases).
	KindRoute = "route"
	// KindInvoke operations belong to external services (services.yaml) called through
	// POST /v1/services/{serviceId}/invoke.
	KindInvoke = "invoke"
)

// MillicreditsPerCredit is the integer unit credits are kept in.
const MillicreditsPerCredit = 1000

// Credits converts millicredits to the credits of the wire.
func Credits(millicredits int64) float64 {
	return float64(millicredits) / MillicreditsPerCredit
}

// CreditsPerUSD is what one USD buys.
const CreditsPerUSD = 100

// Operation is one operation of a service.
type Operation struct {
	ID               string
	Description      string
	Kind             string
	RequiresApproval bool
	// Available is false for operations listed in the catalog whose capability has not shipped yet.
	Available bool
	// Millicredits is the price per call or run.
	Millicredits int64
	// Unit names what one charge buys.
	Unit string
}

// Service is one managed service.
type Service struct {
	ID          string
	Name        string
	Description string
	Operations  []Operation
}

// Available reports whether any operation of the service can be used now.
func (s Service) Available() bool {
	return slices.ContainsFunc(s.Operations, func(o Operation) bool { return o.Available })
}

// ServiceToWire converts a service and its operations to the API's shape.
func ServiceToWire(svc Service) client.Service {
	out := client.Service{ID: svc.ID, Name: svc.Name, Description: svc.Description, Available: svc.Available(),
		Operations: make([]client.Operation, 0, len(svc.Operations))}
	for _, op := range svc.Operations {
		out.Operations = append(out.Operations, client.Operation{ID: op.ID, Description: op.Description,
			Kind: op.Kind, RequiresApproval: op.RequiresApproval, Available: op.Available})
	}
	return out
}

// PriceToWire converts an operation of svc to its entry in the API's price list.
func PriceToWire(svc Service, op Operation) client.Price {
	return client.Price{ServiceID: svc.ID, OperationID: op.ID, Credits: Credits(op.Millicredits), Unit: op.Unit, Available: op.Available}
}

// ActionToWire converts an operation of svc to the API's shape of an action a key may start.
func ActionToWire(svc Service, op Operation) client.Action {
	return client.Action{ServiceID: svc.ID, OperationID: op.ID, Description: op.Description,
		Kind: op.Kind, RequiresApproval: op.RequiresApproval, Credits: Credits(op.Millicredits)}
}

// Operation returns the operation with the id, if the service has it.
func (s Service) Operation(id string) (Operation, bool) {
	i := slices.IndexFunc(s.Operations, func(o Operation) bool { return o.ID == id })
	if i < 0 {
		return Operation{}, false
	}
	return s.Operations[i], true
}

func route(id, description string, millicredits int64) Operation {
	return Operation{ID: id, Description: description, Kind: KindRoute, Millicredits: millicredits, Unit: "request"}
}

var services = []Service{
	{
		ID: client.ServiceManagedWorkflows, Name: "Managed workflows",
		Description: "Durable runs executed as Temporal workflows.",
		Operations: []Operation{
			{ID: client.OperationEcho, Description: "Completes with its input as output.", Kind: KindRun, Available: true, Unit: "run"},
			{ID: client.OperationSleep, Description: `Waits {"seconds": n} (0..86400) on a durable timer; cancellable.`, Kind: KindRun, Available: true, Unit: "run"},
		},
	},
	{
		ID: client.ServiceDatabase, Name: "Managed database",
		Description: "A managed PostgreSQL database per account with portable copies.",
		Operations: []Operation{
			route(client.OpDatabasesAccountRead, "Read database status and structure.", 0),
			route(client.OpDatabasesAccountProvision, "Provision the account database.", 0),
			route(client.OpDatabasesAccountDeprovision, "Remove the account database.", 0),
			route(client.OpDatabasesQuery, "Run a read query.", 100),
			route(client.OpDatabasesActions, "Change records.", 100),
			route(client.OpDatabasesTransfersCreate, "Start a portable copy transfer.", 0),
		},
	},
	{
		ID: client.ServiceManagedWallets, Name: "Managed wallets",
		Description: "Custodial EVM wallets with policies, quotes, sends, swaps and signatures.",
		Operations: []Operation{
			route(client.OpWalletsCreate, "Create a managed wallet.", 0),
			route(client.OpWalletsTransactionsQuote, "Quote a send or swap.", 0),
			route(client.OpWalletsTransactionsCreate, "Execute a send or swap.", 1000),
			route(client.OpWalletsSignaturesQuote, "Quote a message signature.", 0),
			route(client.OpWalletsSignaturesCreate, "Sign an approved message.", 500),
		},
	},
	{
		ID: client.ServiceManagedTrading, Name: "Managed trading",
		Description: "Managed spot trading: quotes, orders and positions.",
		Operations: []Operation{
			route(client.OpTradingQuotesCreate, "Quote a spot trade.", 0),
			route(client.OpTradingOrdersCreate, "Submit a spot order.", 1000),
		},
	},
	{
		ID: client.ServiceManagedAgents, Name: "Managed agents",
		Description: "Agent jobs and automations.",
		Operations: []Operation{
			{ID: "agents.prompt", Description: "Submit a prompt as an agent job.", Kind: KindRun, Millicredits: 1000, Unit: "run"},
		},
	},
}

// Catalog is a set of services: the built-in ones, plus external services a deployment registers.
type Catalog struct {
	services []Service
}

var builtin = &Catalog{services: services}

// Builtin is the catalog of the platform's own services.
func Builtin() *Catalog { return builtin }

// With returns a catalog that also holds extra services; an id already present is an error.
func (c *Catalog) With(extra ...Service) (*Catalog, error) {
	out := &Catalog{services: slices.Clone(c.services)}
	for _, s := range extra {
		if out.Known(s.ID) || s.ID == client.ServicePlatformAPI {
			return nil, fmt.Errorf("service id %q is taken", s.ID)
		}
		out.services = append(out.services, s)
	}
	return out, nil
}

// Services returns the catalog in a stable order.
func (c *Catalog) Services() []Service { return c.services }

// Lookup returns the service with the id.
func (c *Catalog) Lookup(serviceID string) (Service, bool) {
	i := slices.IndexFunc(c.services, func(s Service) bool { return s.ID == serviceID })
	if i < 0 {
		return Service{}, false
	}
	return c.services[i], true
}

// Known reports whether serviceID names a service of the catalog.
func (c *Catalog) Known(serviceID string) bool {
	_, ok := c.Lookup(serviceID)
	return ok
}

// Services returns the built-in services.
func Services() []Service { return builtin.Services() }

// Lookup finds a built-in service.
func Lookup(serviceID string) (Service, bool) { return builtin.Lookup(serviceID) }

// Known reports whether serviceID names a built-in service.
func Known(serviceID string) bool { return builtin.Known(serviceID) }

// CreditMetered reports whether a selector accepts a creditsPerDay limit: the four credit-metered
// operations and their per-service and per-operation forms.
func CreditMetered(selector string) bool {
	for _, op := range client.CreditMeteredOperations {
		if selector == op || strings.HasPrefix(selector, op+".") {
			return true
		}
	}
	return false
}

// ValidSelector checks a per-key limit selector: *, a route's limit operation, or
// services.invoke|runs.create followed by .<serviceId> and optionally .<operationId>.
func (c *Catalog) ValidSelector(selector string) error {
	if selector == client.LimitAll || slices.Contains(client.LimitOperations, selector) {
		return nil
	}
	for _, base := range []string{client.OpServicesInvoke, client.OpRunsCreate} {
		rest, ok := strings.CutPrefix(selector, base+".")
		if !ok {
			continue
		}
		return c.validQualified(base, rest)
	}
	return fmt.Errorf("unknown limit selector %q", selector)
}

func (c *Catalog) validQualified(base, rest string) error {
	for _, s := range c.services {
		if rest == s.ID {
			return nil
		}
		opID, ok := strings.CutPrefix(rest, s.ID+".")
		if !ok {
			continue
		}
		op, found := s.Operation(opID)
		if !found {
			return fmt.Errorf("service %q has no operation %q", s.ID, opID)
		}
		if base == client.OpRunsCreate && op.Kind != KindRun {
			return fmt.Errorf("operation %q of %q is not started as a run", opID, s.ID)
		}
		return nil
	}
	return fmt.Errorf("unknown service in limit selector %q.%s", base, rest)
}
