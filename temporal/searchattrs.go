package temporal

import (
	"context"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	sdktemporal "go.temporal.io/sdk/temporal"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/svcplatform/svc/workflows"
)

// Names of the platform's custom search attributes. All are Keyword
// attributes, registered per namespace by EnsureSearchAttributes (and by the
// dev server at start).
const (
	// AttrAccountID holds the ID of the account a workflow works for.
	AttrAccountID = "SvcAccountId"
	// AttrProjectID holds the ID of the project a workflow works on.
	AttrProjectID = "SvcProjectId"
	// AttrServiceID holds the ID of the service a workflow acts on.
	AttrServiceID = "SvcServiceId"
	// AttrOperationID holds the ID of the platform operation a workflow runs.
	AttrOperationID = "SvcOperationId"
)

// Typed SDK keys for the platform's search attributes, for use with
// workflow.UpsertTypedSearchAttributes and client.StartWorkflowOptions (defined with the workflows,
// which set them on the workflows they start).
var (
	// KeyAccountID is the typed key for AttrAccountID.
	KeyAccountID = workflows.KeyAccountID
	// KeyProjectID is the typed key for AttrProjectID.
	KeyProjectID = workflows.KeyProjectID
	// KeyServiceID is the typed key for AttrServiceID.
	KeyServiceID = workflows.KeyServiceID
	// KeyOperationID is the typed key for AttrOperationID.
	KeyOperationID = workflows.KeyOperationID
)

// ResourceAttributes are the search attributes of a workflow acting for a resource of an account (a
// run, an approval): its account, project (when it has one), service and operation.
func ResourceAttributes(accountID string, projectID *string, serviceID, operationID string) sdktemporal.SearchAttributes {
	return workflows.ResourceAttributes(accountID, projectID, serviceID, operationID)
}

func searchAttributes() map[string]enumspb.IndexedValueType {
	kw := enumspb.INDEXED_VALUE_TYPE_KEYWORD
	return map[string]enumspb.IndexedValueType{
		AttrAccountID:   kw,
		AttrProjectID:   kw,
		AttrServiceID:   kw,
		AttrOperationID: kw,
	}
}

// namespacePollInterval is how often calls are retried while a namespace
// registered moments ago is not yet visible to the frontend.
const namespacePollInterval = 100 * time.Millisecond

// EnsureNamespace registers namespace with the given workflow history
// retention unless it already exists. An existing namespace is left as it is
// (its retention is not changed). After registering, it waits (bounded by
// ctx) until the frontend serves the namespace, which takes up to a few
// seconds because the server caches namespaces.
func EnsureNamespace(ctx context.Context, c client.Client, namespace string, retention time.Duration) error {
	svc := c.WorkflowService()
	_, err := svc.DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: namespace})
	if err == nil {
		return nil
	}
	if !isNamespaceNotFound(err) {
		return fmt.Errorf("describe namespace %q: %w", namespace, err)
	}
	_, err = svc.RegisterNamespace(ctx, &workflowservice.RegisterNamespaceRequest{
		Namespace:                        namespace,
		WorkflowExecutionRetentionPeriod: durationpb.New(retention),
	})
	var exists *serviceerror.NamespaceAlreadyExists
	if err != nil && !errors.As(err, &exists) {
		return fmt.Errorf("register namespace %q: %w", namespace, err)
	}
	return retryWhileNamespaceNotFound(ctx, func() error {
		_, err := svc.CountWorkflowExecutions(ctx, &workflowservice.CountWorkflowExecutionsRequest{Namespace: namespace})
		if err != nil {
			return fmt.Errorf("wait for namespace %q: %w", namespace, err)
		}
		return nil
	})
}

// retryWhileNamespaceNotFound calls fn until it returns anything but a
// NamespaceNotFound error, or ctx ends.
func retryWhileNamespaceNotFound(ctx context.Context, fn func() error) error {
	for {
		err := fn()
		if !isNamespaceNotFound(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(namespacePollInterval):
		}
	}
}

// isNamespaceNotFound reports whether err says the namespace does not exist.
func isNamespaceNotFound(err error) bool {
	var notFound *serviceerror.NamespaceNotFound
	return errors.As(err, &notFound)
}

// EnsureSearchAttributes adds the platform's Keyword search attributes
// (AttrAccountID, AttrProjectID, AttrServiceID, AttrOperationID) to namespace
// through the OperatorService. Attributes that already exist are skipped, so
// calling it repeatedly is safe. A namespace registered moments ago that the
// frontend does not serve yet is waited for, bounded by ctx.
func EnsureSearchAttributes(ctx context.Context, c client.Client, namespace string) error {
	missing, err := missingSearchAttributes(ctx, c, namespace)
	if err != nil || len(missing) == 0 {
		return err
	}
	_, err = c.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		SearchAttributes: missing,
		Namespace:        namespace,
	})
	var exists *serviceerror.AlreadyExists
	if err != nil && !errors.As(err, &exists) {
		return fmt.Errorf("add search attributes to namespace %q: %w", namespace, err)
	}
	return nil
}

// missingSearchAttributes lists the platform search attributes that
// namespace does not have yet.
func missingSearchAttributes(ctx context.Context, c client.Client, namespace string) (map[string]enumspb.IndexedValueType, error) {
	var resp *operatorservice.ListSearchAttributesResponse
	err := retryWhileNamespaceNotFound(ctx, func() (err error) {
		req := &operatorservice.ListSearchAttributesRequest{Namespace: namespace}
		resp, err = c.OperatorService().ListSearchAttributes(ctx, req)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list search attributes of namespace %q: %w", namespace, err)
	}
	missing := searchAttributes()
	for name, typ := range missing {
		existing, ok := resp.GetCustomAttributes()[name]
		if !ok {
			continue
		}
		if existing != typ {
			return nil, fmt.Errorf("search attribute %s in namespace %q has type %s, want %s", name, namespace, existing, typ)
		}
		delete(missing, name)
	}
	return missing, nil
}
