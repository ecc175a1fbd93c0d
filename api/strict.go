package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"
	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/internal/strictjson"
	"github.com/svcplatform/svc/internal/svcerr"
)

// freeTextFields are the top-level body fields of free text: they, and everything inside an operation's
// input (the caller's own data), may hold tab, line feed and carriage return. No other string may.
var freeTextFields = map[string]bool{"description": true, "reason": true, "comment": true}

func freeText(p strictjson.Path) bool {
	if len(p) == 0 || p[0].IsIndex {
		return false
	}
	return p[0].Key == "input" && len(p) > 1 || len(p) == 1 && freeTextFields[p[0].Key]
}

// freeTextOf is the free-text rule of a route's body: the common one, and the route's own fields.
func freeTextOf(r *Route) func(strictjson.Path) bool {
	if r == nil || len(r.FreeText) == 0 {
		return freeText
	}
	return func(p strictjson.Path) bool {
		return freeText(p) || len(p) > 0 && !p[0].IsIndex && slices.Contains(r.FreeText, p[0].Key)
	}
}

// strictHeaders is the first half of the API's edge: before authentication reads any of them, every
// header value must be text (valid UTF-8 without control characters). A refusal is a 400
// invalid_request naming the header.
func (s *Server) strictHeaders(c *gin.Context) {
	if err := checkHeaders(c.Request.Header); err != nil {
		s.fail(c, err)
		return
	}
	c.Next()
}

// strictInput is the second half of the edge, after authentication and auditing (so a caller's refused
// requests stay in its audit trail) and before authorization, any handler or any SQL: every path and
// query parameter must be text, and a body must be JSON (415 otherwise) that the strict decoder admits,
// with integer fields holding integers Go can decode. Each refusal is a 400 invalid_request naming the
// field.
func (s *Server) strictInput(c *gin.Context) {
	if err := s.checkInput(c); err != nil {
		s.fail(c, err)
		return
	}
	c.Next()
}

func (s *Server) checkInput(c *gin.Context) error {
	for _, p := range c.Params {
		if err := checkText("path parameter", p.Key, p.Value); err != nil {
			return err
		}
	}
	if err := checkQuery(c.Request.URL.RawQuery); err != nil {
		return err
	}
	return s.checkBody(c)
}

// checkText refuses a parameter or header value that is not text; name is the parameter at fault.
func checkText(kind, name, value string) error {
	if err := strictjson.CheckText(value); err != nil {
		return svcerr.Invalid(name, "%s %s: %s", kind, name, problem(err))
	}
	return nil
}

func problem(err error) string {
	return strings.TrimPrefix(err.Error(), strictjson.ErrText.Error()+": ")
}

// checkQuery refuses a query that does not decode, or whose names or values are not text.
func checkQuery(raw string) error {
	if raw == "" {
		return nil
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		return svcerr.Invalid("", "the query string is malformed (bad percent-encoding or separator)")
	}
	names := make([]string, 0, len(q))
	for name := range q {
		names = append(names, name)
	}
	sort.Strings(names) // the first bad parameter is the same on every try
	for _, name := range names {
		if err := strictjson.CheckText(name); err != nil {
			return svcerr.Invalid(strconv.QuoteToASCII(name), "a query parameter name %s", problem(err))
		}
		for _, v := range q[name] {
			if err := checkText("query parameter", name, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkHeaders refuses header values that are not text (Go's HTTP server has already refused most
// control characters; tab and bytes that are not UTF-8 remain).
func checkHeaders(h http.Header) error {
	if headersAreText(h) { // the common case, without sorting on every request
		return nil
	}
	names := make([]string, 0, len(h))
	for name := range h {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, v := range h[name] {
			if err := checkText("header", name, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// headersAreText reports whether every header value is text.
func headersAreText(h http.Header) bool {
	for _, vs := range h {
		for _, v := range vs {
			if strictjson.CheckText(v) != nil {
				return false
			}
		}
	}
	return true
}

// checkBody refuses a body that is not JSON, or that the strict decoder or the route's integer fields
// refuse. An empty body passes (the handler decides whether it needs one).
func (s *Server) checkBody(c *gin.Context) error {
	if r := s.route(c); r != nil && r.RawBody {
		// A raw upload streams to its handler unread: never buffered, never decoded as JSON.
		st := stateFrom(c.Request.Context())
		st.rawBody, st.rawLength = c.Request.Body, c.Request.ContentLength
		return nil
	}
	if c.Request.Body == nil || c.Request.Body == http.NoBody {
		return nil
	}
	body, err := readBody(c)
	if err != nil || len(body) == 0 {
		return err
	}
	if !jsonMediaType(c.GetHeader("Content-Type")) {
		return &svcerr.Error{Code: svcerr.UnsupportedMediaType, Param: "Content-Type",
			Message: "a request body must be JSON: send Content-Type: application/json"}
	}
	doc, err := strictjson.Decode(body, strictjson.Options{FreeText: freeTextOf(s.route(c))})
	var se *strictjson.Error
	if errors.As(err, &se) {
		return svcerr.Invalid(se.Param(), "%s", se.Error())
	}
	if err != nil {
		return fmt.Errorf("decode body: %w", err)
	}
	if sch := s.bodySchema(c); sch != nil {
		return checkIntegers(s.huma.OpenAPI().Components.Schemas, sch, doc, nil)
	}
	return nil
}

// jsonMediaType accepts application/json and application/*+json, in UTF-8 if a charset is named.
func jsonMediaType(contentType string) bool {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return false
	}
	return mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")
}

// bodySchema is the request body schema the route documents, or nil.
func (s *Server) bodySchema(c *gin.Context) *huma.Schema {
	r := s.route(c)
	if r == nil {
		return nil
	}
	op := operationOf(s.huma.OpenAPI(), r.Method, r.Path)
	if op == nil || op.RequestBody == nil || op.RequestBody.Content["application/json"] == nil {
		return nil
	}
	return op.RequestBody.Content["application/json"].Schema
}

// checkIntegers refuses a number in an integer field that Go cannot decode into it: written with a
// fraction or exponent (1e3, 3.0), or out of the field's range. Huma's schema validation admits these,
// and its decoding then failed with Go's type names in the message.
func checkIntegers(reg huma.Registry, sch *huma.Schema, v any, path strictjson.Path) error {
	if sch != nil && sch.Ref != "" {
		sch = reg.SchemaFromRef(sch.Ref)
	}
	if sch == nil {
		return nil
	}
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			sub := sch.Properties[k]
			if sub == nil {
				sub, _ = sch.AdditionalProperties.(*huma.Schema)
			}
			if err := checkIntegers(reg, sub, e, append(path[:len(path):len(path)], strictjson.Step{Key: k})); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range v {
			if err := checkIntegers(reg, sch.Items, e, append(path[:len(path):len(path)], strictjson.Step{Index: i, IsIndex: true})); err != nil {
				return err
			}
		}
	case json.Number:
		if sch.Type == "integer" {
			return checkInteger(sch, v.String(), path.String())
		}
	}
	return nil
}

func checkInteger(sch *huma.Schema, text, param string) error {
	// strictjson has refused integers beyond ±MaxSafeInteger already, so that is the range of 64-bit fields.
	bits, lo, hi := 64, -int64(strictjson.MaxSafeInteger), int64(strictjson.MaxSafeInteger)
	if sch.Format == "int32" {
		bits, lo, hi = 32, -1<<31, 1<<31-1
	}
	if _, err := strconv.ParseInt(text, 10, bits); err != nil {
		return svcerr.Invalid(param, "%s: expected a whole number from %d to %d, written without fraction or exponent; got %s",
			param, lo, hi, text)
	}
	return nil
}
