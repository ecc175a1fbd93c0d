package workflows

import "go.temporal.io/sdk/workflow"

// Registration is one workflow function and the type name it is registered under.
type Registration struct {
	Name string
	Func any
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
