package client

// Price is what one operation costs.
type Price struct {
	ServiceID   string  `json:"serviceId"`
	OperationID string  `json:"operationId"`
	Credits     float64 `json:"credits" doc:"Credits charged per call or run."`
	Unit        string  `json:"unit" doc:"What one charge buys, e.g. request or run."`
	Available   bool    `json:"available" doc:"Whether the operation can be used now."`
}

// Pricing answers /v1/pricing.
type Pricing struct {
	OK            bool    `json:"ok"`
	CreditsPerUSD int64   `json:"creditsPerUsd" doc:"Credits bought by one USD."`
	Prices        []Price `json:"prices"`
}

// Operation is one operation of a managed service.
type Operation struct {
	ID               string `json:"id"`
	Description      string `json:"description"`
	Kind             string `json:"kind" enum:"run,route" doc:"run: started with POST /v1/runs; route: served by its own API route."`
	RequiresApproval bool   `json:"requiresApproval"`
	Available        bool   `json:"available"`
}

// Service is one managed service of the catalog.
type Service struct {
	ID          string      `json:"id"`
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Available   bool        `json:"available"`
	Operations  []Operation `json:"operations"`
}

// ServiceList answers GET /v1/services and GET /v1/capabilities.
type ServiceList struct {
	OK       bool      `json:"ok"`
	Services []Service `json:"services"`
}

// ServiceEnvelope answers GET /v1/capabilities/{serviceId}.
type ServiceEnvelope struct {
	OK      bool    `json:"ok"`
	Service Service `json:"service"`
	// Preflight is set for external services that follow the generation-service contract: the answers
	// of their /health and /v1/models, checked with the caller's connection.
	Preflight *Preflight `json:"preflight,omitempty"`
}

// Preflight is the result of checking a generation-style service.
type Preflight struct {
	OK       bool           `json:"ok" doc:"Both /health and /v1/models answered 2xx."`
	Health   PreflightCheck `json:"health"`
	Models   PreflightCheck `json:"models"`
	ModelIDs []string       `json:"modelIds" doc:"Models /v1/models listed, when it listed any."`
}

// PreflightCheck is one preflight call.
type PreflightCheck struct {
	Path      string `json:"path"`
	OK        bool   `json:"ok"`
	Status    int    `json:"status" doc:"The HTTP status, 0 when there was no answer."`
	ErrorCode string `json:"errorCode,omitempty"`
	LatencyMs int64  `json:"latencyMs"`
}

// Action is one service operation a key may start, flattened for agents and MCP tools.
type Action struct {
	ServiceID        string  `json:"serviceId"`
	OperationID      string  `json:"operationId"`
	Description      string  `json:"description"`
	Kind             string  `json:"kind"`
	RequiresApproval bool    `json:"requiresApproval"`
	Credits          float64 `json:"credits"`
}

// ActionList answers GET /v1/actions.
type ActionList struct {
	OK      bool     `json:"ok"`
	Actions []Action `json:"actions"`
}
