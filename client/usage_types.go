package client

// UsageEntry is one project's requests and charged credits for one operation on one UTC day.
type UsageEntry struct {
	Date           string  `json:"date" doc:"UTC day, YYYY-MM-DD."`
	ProjectID      *string `json:"projectId" doc:"null for requests made outside any project."`
	Operation      string  `json:"operation"`
	Requests       int64   `json:"requests"`
	ChargedCredits float64 `json:"chargedCredits"`
}

// Usage answers GET /v1/usage.
type Usage struct {
	OK    bool         `json:"ok"`
	From  string       `json:"from" doc:"First UTC day included."`
	To    string       `json:"to" doc:"Last UTC day included."`
	Usage []UsageEntry `json:"usage"`
}
