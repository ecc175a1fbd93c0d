package api

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/gin-gonic/gin"
)

// Deprecation marks a route as deprecated: it is still served until Sunset, and every answer says so
// in the headers of RFC 9745 (Deprecation: @<unix time>) and RFC 8594 (Sunset: <HTTP date>), with a
// Link to its successor when there is one. The OpenAPI document marks its operation deprecated.
type Deprecation struct {
	// Since is when the route was deprecated.
	Since time.Time
	// Sunset is when the route stops being served.
	Sunset time.Time
	// Successor is the path of the route that replaces it ("" when none does).
	Successor string
}

// Seed 002's four legacy claim endpoints are deprecated since LegacyClaimSince and served until
// LegacyClaimSunset (docs/API.md lists their paths and successors).
var (
	LegacyClaimSince  = time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	LegacyClaimSunset = time.Date(2027, 5, 31, 0, 0, 0, 0, time.UTC)
)

// legacyClaim is the deprecation of a legacy claim endpoint replaced by successor.
func legacyClaim(successor string) *Deprecation {
	return &Deprecation{Since: LegacyClaimSince, Sunset: LegacyClaimSunset, Successor: successor}
}

// headers sets the deprecation headers of an answer of a deprecated route.
func (d *Deprecation) headers(h http.Header) {
	h.Set("Deprecation", "@"+strconv.FormatInt(d.Since.Unix(), 10))
	h.Set("Sunset", d.Sunset.UTC().Format(http.TimeFormat))
	if d.Successor != "" {
		h.Add("Link", "<"+d.Successor+`>; rel="successor-version"`)
	}
}

// document marks op deprecated, with the sunset date in its description and in x-svc-sunset.
func (d *Deprecation) document(op *huma.Operation) {
	op.Deprecated = true
	op.Extensions["x-svc-sunset"] = d.Sunset.UTC().Format(time.RFC3339)
	note := fmt.Sprintf(" Deprecated since %s; served until %s.", d.Since.UTC().Format(time.DateOnly), d.Sunset.UTC().Format(time.DateOnly))
	if d.Successor != "" {
		note += " Use `" + d.Successor + "` instead."
	}
	op.Description += note
}

// deprecationHeaders adds the deprecation headers to every answer of a deprecated route, errors
// included (it runs before any check can answer).
func (s *Server) deprecationHeaders(c *gin.Context) {
	if r := s.route(c); r != nil && r.Deprecated != nil {
		r.Deprecated.headers(c.Writer.Header())
	}
	c.Next()
}
