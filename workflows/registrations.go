package workflows

import "go.temporal.io/sdk/workflow"

// Registration is one workflow function and the type name it is registered under.
type Registration struct {
	Name string
	Func any
}

// Registrations lists every workflow once. Workers and the replay tests register exactly these (see
// RegisterWorkflows); a workflow added to names.go but not here fails TestEveryWorkflowIsRegistered.
var Registrations = []Registration{
	{Name: RunWorkflowName, Func: RunWorkflow},
	{Name: ApprovalWorkflowName, Func: ApprovalWorkflow},
	{Name: DeliveryWorkflowName, Func: DeliveryWorkflow},
	{Name: TopUpWorkflowName, Func: TopUpWorkflow},
}

// WorkflowRegistry is where workflows are registered: a worker, a replayer or a test environment.
type WorkflowRegistry interface {
	RegisterWorkflowWithOptions(w interface{}, options workflow.RegisterOptions)
}

// RegisterWorkflows registers every workflow of Registrations on r, each under its name.
func RegisterWorkflows(r WorkflowRegistry) {
	for _, reg := range Registrations {
		r.RegisterWorkflowWithOptions(reg.Func, workflow.RegisterOptions{Name: reg.Name})
	}
}
