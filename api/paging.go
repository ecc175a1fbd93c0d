package api

// PageQuery is the paging of every list route. It is exported because Huma sets query fields promoted
// from an embedded struct only when that struct's type is exported.
type PageQuery struct {
	Limit  int    `query:"limit" minimum:"1" maximum:"200" doc:"Page size, 1..200 (default 50)."`
	Cursor string `query:"cursor" doc:"nextCursor of the previous page."`
}

// listInput is the input of list routes that take only paging.
type listInput struct {
	PageQuery
}
