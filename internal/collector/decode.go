package collector

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/internal/strictjson"
	"github.com/svcplatform/svc/internal/svcerr"
)

// decodeBody reads a JSON body the platform's strict way: JSON media type, at most maxBody bytes, the
// strict decoder (no duplicate keys, valid text, control characters only in the freeText top-level
// fields), then into dst refusing unknown fields and wrong types, naming the field at fault.
func decodeBody(ctx *gin.Context, dst any, freeText ...string) error {
	if mt, _, err := mime.ParseMediaType(ctx.GetHeader("Content-Type")); err != nil || mt != "application/json" {
		return &svcerr.Error{Code: svcerr.UnsupportedMediaType, Param: "Content-Type",
			Message: "a request body must be JSON: send Content-Type: application/json"}
	}
	data, err := io.ReadAll(http.MaxBytesReader(ctx.Writer, ctx.Request.Body, maxBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return svcerr.New(svcerr.PayloadTooLarge, "the body is larger than %d bytes", maxBody)
	case err != nil:
		return svcerr.Invalid("", "the body could not be read")
	case len(bytes.TrimSpace(data)) == 0:
		return svcerr.Invalid("", "a JSON object body is required")
	}
	free := func(p strictjson.Path) bool {
		return len(p) == 1 && !p[0].IsIndex && slices.Contains(freeText, p[0].Key)
	}
	if _, err := strictjson.Decode(data, strictjson.Options{FreeText: free}); err != nil {
		var se *strictjson.Error
		if errors.As(err, &se) {
			return svcerr.Invalid(se.Param(), "%s", se.Error())
		}
		return svcerr.Invalid("", "the body is not JSON")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return fieldError(err)
	}
	return nil
}

// fieldError turns encoding/json's refusal into an invalid_request naming the field.
func fieldError(err error) error {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		field := typeErr.Field
		if field == "" {
			field = "body"
		}
		return svcerr.Invalid(field, "%s must be a %s", field, typeErr.Type.String())
	}
	if msg := err.Error(); strings.HasPrefix(msg, "json: unknown field ") {
		field := strings.Trim(strings.TrimPrefix(msg, "json: unknown field "), `"`)
		return svcerr.Invalid(field, "unknown field %q", field)
	}
	return svcerr.Invalid("", "the body is not a valid JSON object")
}
