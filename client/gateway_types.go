package client

import "encoding/json"

// InvokeRequest is the body of POST /v1/services/{serviceId}/invoke.
type InvokeRequest struct {
	OperationID string         `json:"operationId" minLength:"1"`
	Input       map[string]any `json:"input,omitempty" doc:"Sent to the service: the JSON body, or query parameters for GET and DELETE."`
}

// InvokeResult answers an invocation: the owning service's status and result, and what it charged.
type InvokeResult struct {
	OK             bool            `json:"ok"`
	ServiceID      string          `json:"serviceId"`
	OperationID    string          `json:"operationId"`
	Status         int             `json:"status" doc:"The HTTP status the owning service answered."`
	Result         json.RawMessage `json:"result" doc:"What the owning service answered (JSON, or a string)."`
	ChargedCredits float64         `json:"chargedCredits" doc:"Exactly what the owning service reported charging."`
}
