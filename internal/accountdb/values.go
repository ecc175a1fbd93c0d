package accountdb

import (
	"bytes"
	"context"
	"database/sql/driver"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/svcplatform/svc/internal/svcerr"
)

// Type OIDs of the built-in types whose values are rendered specially, and the names of the common ones.
const (
	oidBool        = 16
	oidBytea       = 17
	oidInt8        = 20
	oidInt2        = 21
	oidInt4        = 23
	oidText        = 25
	oidOID         = 26
	oidJSON        = 114
	oidFloat4      = 700
	oidFloat8      = 701
	oidDate        = 1082
	oidTimestamp   = 1114
	oidVarchar     = 1043
	oidTimestamptz = 1184
	oidNumeric     = 1700
	oidJSONB       = 3802
)

// typeNames are the names of the built-in types a result column most often has; others are looked up
// in pg_type (typeNamesOf).
var typeNames = map[uint32]string{
	oidBool: "boolean", oidBytea: "bytea", 18: "char", 19: "name", oidInt8: "bigint", oidInt2: "smallint",
	oidInt4: "integer", 25: "text", oidOID: "oid", oidJSON: "json", 142: "xml", oidFloat4: "real",
	oidFloat8: "double precision", 869: "inet", 650: "cidr", 829: "macaddr", 1042: "character", 1043: "character varying",
	oidDate: "date", 1083: "time without time zone", oidTimestamp: "timestamp without time zone",
	oidTimestamptz: "timestamp with time zone", 1186: "interval", 1266: "time with time zone", oidNumeric: "numeric",
	2950: "uuid", oidJSONB: "jsonb", 705: "unknown", 1000: "boolean[]", 1005: "smallint[]", 1007: "integer[]",
	1016: "bigint[]", 1009: "text[]", 1015: "character varying[]", 1021: "real[]", 1022: "double precision[]",
	1231: "numeric[]", 2951: "uuid[]", 3807: "jsonb[]",
}

// renderValue is the JSON of one value pgdriver decoded from a column of type oid: numbers for the
// integer and floating types (NaN and infinities as strings), booleans, strings for text, numeric
// (kept exact), dates, uuids and every other type's text form, RFC 3339 for timestamps (with time zone
// in UTC; without, no offset), base64 for bytea, and json/jsonb embedded as JSON.
func renderValue(oid uint32, v driver.Value) (json.RawMessage, error) {
	switch v := v.(type) {
	case nil:
		return json.RawMessage("null"), nil
	case bool:
		return json.Marshal(v)
	case int64:
		return strconv.AppendInt(nil, v, 10), nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return json.Marshal(strconv.FormatFloat(v, 'g', -1, 64))
		}
		return json.Marshal(v)
	case time.Time:
		if oid == oidTimestamp {
			return json.Marshal(v.Format("2006-01-02T15:04:05.999999999"))
		}
		return json.Marshal(v.UTC().Format(time.RFC3339Nano))
	case string:
		return json.Marshal(v)
	case []byte:
		switch oid {
		case oidBytea:
			return json.Marshal(base64.StdEncoding.EncodeToString(v))
		case oidJSON, oidJSONB:
			if json.Valid(v) {
				var buf bytes.Buffer
				if err := json.Compact(&buf, v); err == nil {
					return buf.Bytes(), nil
				}
			}
		}
		return json.Marshal(string(v))
	}
	return json.Marshal(fmt.Sprint(v))
}

// bindValue is the text a JSON value binds to a parameter: strings as they are, numbers as written
// (so numeric keeps its precision), booleans, null as NULL, and arrays and objects as their JSON text
// (for json and jsonb parameters). PostgreSQL converts the text to the parameter's type.
func bindValue(raw json.RawMessage) (driver.Value, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("a string value: %w", err)
		}
		return s, nil
	case 't', 'f':
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, fmt.Errorf("a boolean value: %w", err)
		}
		return b, nil
	case '{', '[':
		if !json.Valid(raw) {
			return nil, errors.New("invalid JSON")
		}
		return string(raw), nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return nil, fmt.Errorf("a number: %w", err)
	}
	return n.String(), nil
}

// bindAll converts JSON values to arguments, naming the first bad one with param and its index.
func bindAll(raws []json.RawMessage, param string) ([]driver.NamedValue, error) {
	args := make([]driver.NamedValue, len(raws))
	for i, raw := range raws {
		v, err := bindValue(raw)
		if err != nil {
			return nil, svcerr.Invalid(fmt.Sprintf("%s[%d]", param, i), "%s[%d]: %v", param, i, err)
		}
		args[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return args, nil
}

// sqlError turns a failure of caller SQL (or of an action) into the caller's error: the statement
// cancelled at its deadline is 504 upstream_timeout; PostgreSQL refusing the statement (syntax,
// privileges, read-only transaction, constraint) is 400 naming param, with the SQLSTATE in the details;
// an unreachable database is 503.
func sqlError(ctx context.Context, s *session, err error, param string, timeout time.Duration) error {
	if err == nil {
		return nil
	}
	if se, ok := svcerr.As(err); ok {
		return se
	}
	var named *paramError
	if errors.As(err, &named) {
		param = named.param
	}
	var pe interface{ Field(k byte) string } // pgdriver.Error, or the pipeline's serverError
	switch {
	case s != nil && s.wasTimedOut():
		return svcerr.New(svcerr.UpstreamTimeout,
			"the statement ran past its deadline of %s and was cancelled", timeout).WithDetails("timeoutMs", timeout.Milliseconds())
	case errors.As(err, &pe) && pe.Field('C') == "57014": // query_canceled: statement_timeout
		return svcerr.New(svcerr.UpstreamTimeout, "the statement ran past the database's statement_timeout and was cancelled")
	case isTimeout(err):
		return svcerr.New(svcerr.UpstreamTimeout, "the database sent nothing for longer than the connection's read timeout; the statement was cancelled")
	}
	if errors.As(err, &pe) {
		code := pe.Field('C')
		if strings.HasPrefix(code, "08") || strings.HasPrefix(code, "53") || strings.HasPrefix(code, "57") || strings.HasPrefix(code, "58") {
			return svcerr.New(svcerr.Unavailable, "the database cannot run the statement now: %s", pe.Field('M')).WithDetails("sqlstate", code)
		}
		return svcerr.Invalid(param, "PostgreSQL refused the statement: %s", pe.Field('M')).WithDetails("sqlstate", code)
	}
	return unavailable(ctx, err)
}

// isTimeout reports a socket timeout (pgdriver's read timeout).
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// unavailable wraps a failure to reach the database as 503 (the cause stays in the chain for logs).
func unavailable(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return svcerr.New(svcerr.UpstreamTimeout, "the database did not answer before the deadline")
	}
	return fmt.Errorf("%w: %w", svcerr.New(svcerr.Unavailable, "the account's database is unreachable"), err)
}
