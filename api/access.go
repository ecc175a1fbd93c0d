package api

import (
	"github.com/svcplatform/svc/internal/apikey"
	"github.com/svcplatform/svc/internal/svcerr"
)

// scopeMissing answers scope_missing for a key without the route's scope.
func scopeMissing(scope string) error {
	return svcerr.New(svcerr.ScopeMissing, "this key lacks scope %s", scope).WithDetails("requiredScope", scope)
}

// serviceAccess answers service_access_denied unless the grants allow the service.
func serviceAccess(g apikey.Grants, serviceID string) error {
	if g.HasService(serviceID) {
		return nil
	}
	return svcerr.New(svcerr.ServiceAccessDenied, "this key may not use service %s", serviceID).
		WithDetails("serviceId", serviceID)
}
