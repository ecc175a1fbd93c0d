package workflows

import "go.temporal.io/sdk/temporal"

// Typed keys of the platform's search attributes (Keyword attributes, registered per namespace by
// package temporal), so operators filter workflows by account, project, service and operation.
var (
	KeyAccountID   = temporal.NewSearchAttributeKeyKeyword("SvcAccountId")
	KeyProjectID   = temporal.NewSearchAttributeKeyKeyword("SvcProjectId")
	KeyServiceID   = temporal.NewSearchAttributeKeyKeyword("SvcServiceId")
	KeyOperationID = temporal.NewSearchAttributeKeyKeyword("SvcOperationId")
)

// ResourceAttributes are the search attributes of a workflow acting for a resource of an account (a
// run, an approval): its account, project (when it has one), service and operation.
func ResourceAttributes(accountID string, projectID *string, serviceID, operationID string) temporal.SearchAttributes {
	updates := []temporal.SearchAttributeUpdate{
		KeyAccountID.ValueSet(accountID),
		KeyServiceID.ValueSet(serviceID),
		KeyOperationID.ValueSet(operationID),
	}
	if projectID != nil {
		updates = append(updates, KeyProjectID.ValueSet(*projectID))
	}
	return temporal.NewSearchAttributes(updates...)
}
