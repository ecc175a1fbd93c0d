package apikey

import (
	"fmt"
	"slices"
	"strings"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/catalog"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
)

// AllServices in a key's service list grants every service, present and future.
const AllServices = "*"

// Grants is what a key may do: its scopes, services and limits, and seed 002's key flags.
type Grants struct {
	Scopes   []string
	Services []string
	Limits   []schema.Limit
	// ReadOnly keys are answered 403 on every request that is not a GET.
	ReadOnly bool
	// IPAllowlist lists the addresses and ranges the key may be used from; nil allows any.
	IPAllowlist []string
	// Recipients restricts the recipients of the key's wallet sends; nil allows any.
	Recipients *schema.RecipientAllowlist
}

// FullGrants is what a first key gets: every scope, every service, no limits.
func FullGrants() Grants {
	return Grants{Scopes: slices.Clone(client.AllScopes), Services: []string{AllServices}, Limits: []schema.Limit{}}
}

// HasScope reports whether the grants include scope.
func (g Grants) HasScope(scope string) bool { return slices.Contains(g.Scopes, scope) }

// HasService reports whether the grants allow serviceID.
func (g Grants) HasService(serviceID string) bool {
	return slices.Contains(g.Services, AllServices) || slices.Contains(g.Services, serviceID)
}

// Request is what a caller asks a new key to hold; nil fields are inherited from the parent.
type Request struct {
	Scopes      []string
	Services    []string
	Limits      []schema.Limit
	ReadOnly    *bool
	IPAllowlist []string
	Recipients  *schema.RecipientAllowlist
}

// LimitsFromWire converts the limits of a request to their stored shape; nil stays nil (inherited).
func LimitsFromWire(in []client.Limit) []schema.Limit {
	if in == nil {
		return nil
	}
	out := make([]schema.Limit, len(in))
	for i, l := range in {
		out[i] = schema.Limit(l)
	}
	return out
}

// Narrow returns the grants of a child of parent for the request, or a 400 for a malformed request or a
// 403 when the child would be wider than its parent in scopes, services, limits or key flags.
func Narrow(cat *catalog.Catalog, parent Grants, req Request) (Grants, error) {
	child := Grants{Scopes: parent.Scopes, Services: parent.Services}
	if req.Scopes != nil {
		if err := validateScopes(req.Scopes); err != nil {
			return Grants{}, err
		}
		for i, s := range req.Scopes {
			if !parent.HasScope(s) {
				return Grants{}, (&svcerr.Error{Code: svcerr.ScopeMissing, Param: fmt.Sprintf("scopes[%d]", i),
					Message: fmt.Sprintf("the parent key does not hold scope %q, so a child cannot", s)}).
					WithDetails("requiredScope", s)
			}
		}
		child.Scopes = dedupe(req.Scopes)
	}
	if req.Services != nil {
		services, err := narrowServices(cat, parent, req.Services)
		if err != nil {
			return Grants{}, err
		}
		child.Services = services
	}
	limits, err := narrowLimits(cat, parent.Limits, req.Limits)
	if err != nil {
		return Grants{}, err
	}
	child.Limits = limits
	if child.ReadOnly, err = narrowReadOnly(parent.ReadOnly, req.ReadOnly); err != nil {
		return Grants{}, err
	}
	if child.IPAllowlist, err = narrowIPs(parent.IPAllowlist, req.IPAllowlist); err != nil {
		return Grants{}, err
	}
	if child.Recipients, err = narrowRecipients(parent.Recipients, req.Recipients); err != nil {
		return Grants{}, err
	}
	return child, nil
}

func validateScopes(scopes []string) error {
	for i, s := range scopes {
		if !slices.Contains(client.AllScopes, s) {
			return svcerr.Invalid(fmt.Sprintf("scopes[%d]", i), "unknown scope %q", s)
		}
	}
	return nil
}

func narrowServices(cat *catalog.Catalog, parent Grants, services []string) ([]string, error) {
	for i, s := range services {
		param := fmt.Sprintf("services[%d]", i)
		if s == AllServices {
			if !slices.Contains(parent.Services, AllServices) {
				return nil, (&svcerr.Error{Code: svcerr.ServiceAccessDenied, Param: param,
					Message: "the parent key is limited to some services, so a child cannot have every service"}).
					WithDetails("serviceId", s)
			}
			continue
		}
		if !cat.Known(s) {
			return nil, svcerr.Invalid(param, "unknown service %q", s)
		}
		if !parent.HasService(s) {
			return nil, (&svcerr.Error{Code: svcerr.ServiceAccessDenied, Param: param,
				Message: fmt.Sprintf("the parent key may not use service %q, so a child cannot", s)}).
				WithDetails("serviceId", s)
		}
	}
	return dedupe(services), nil
}

// narrowLimits validates the requested limits and keeps every parent limit: a child may tighten a parent
// limit or add its own, never loosen or drop one.
func narrowLimits(cat *catalog.Catalog, parent, requested []schema.Limit) ([]schema.Limit, error) {
	if err := ValidateLimits(cat, requested); err != nil {
		return nil, err
	}
	out := slices.Clone(requested)
	for _, p := range parent {
		i := slices.IndexFunc(requested, func(l schema.Limit) bool { return sameLimit(l, p) })
		if i < 0 {
			out = append(out, p)
			continue
		}
		if limitValue(requested[i]) > limitValue(p) {
			return nil, (&svcerr.Error{Code: svcerr.LimitWiderThanParent, Param: fmt.Sprintf("limits[%d]", i),
				Message: fmt.Sprintf("limit on %q is wider than the parent's (%d)", p.Operation, limitValue(p))}).
				WithDetails("parentLimit", p)
		}
	}
	if out == nil {
		out = []schema.Limit{}
	}
	return out, nil
}

func sameLimit(a, b schema.Limit) bool {
	return a.Operation == b.Operation && (a.RequestsPerMinute > 0) == (b.RequestsPerMinute > 0)
}

func limitValue(l schema.Limit) int64 { return l.RequestsPerMinute + l.CreditsPerDay }

// ValidateLimits checks each limit's selector and value; at most one limit per selector and kind.
func ValidateLimits(cat *catalog.Catalog, limits []schema.Limit) error {
	for i, l := range limits {
		param := fmt.Sprintf("limits[%d]", i)
		if err := cat.ValidSelector(l.Operation); err != nil {
			return svcerr.Invalid(param+".operation", "%s", err.Error())
		}
		switch {
		case l.RequestsPerMinute < 0 || l.CreditsPerDay < 0:
			return svcerr.Invalid(param, "a limit must be a positive whole number")
		case (l.RequestsPerMinute > 0) == (l.CreditsPerDay > 0):
			return svcerr.Invalid(param, "set exactly one of requestsPerMinute and creditsPerDay, above zero")
		case l.CreditsPerDay > 0 && !catalog.CreditMetered(l.Operation):
			return svcerr.Invalid(param+".creditsPerDay", "creditsPerDay applies only to %s",
				strings.Join(client.CreditMeteredOperations, ", "))
		}
		for j := 0; j < i; j++ {
			if sameLimit(limits[j], l) {
				return svcerr.Invalid(param, "duplicate limit for %q", l.Operation)
			}
		}
	}
	return nil
}

func dedupe(in []string) []string {
	out := make([]string, 0, len(in))
	for _, s := range in {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
