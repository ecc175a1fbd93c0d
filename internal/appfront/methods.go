package appfront

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/svcplatform/svc/internal/svcerr"
)

// Where a method is performed: by the server (the host page forwards it to the viewer API) or by the
// host page itself (clipboard, links, its own context), never by the iframe.
const (
	OnServer = "server"
	OnHost   = "host"
)

// Method is one entry of the allowlist of messages the iframe may send.
type Method struct {
	// Where is OnServer or OnHost.
	Where string `json:"where"`
	// Permission is the manifest permission the method needs ("" for none).
	Permission string `json:"permission,omitempty"`
	// Params are the method's params and their JSON types (string, number, boolean, object or any); the
	// host page refuses any other field or type before forwarding, the server again when decoding.
	Params map[string]string `json:"params"`
}

// Methods is the allowlist: every method the SDK's calls become. The host page is rendered with it, and
// Service.Call refuses every other method.
var Methods = map[string]Method{
	"ctx":                  {Where: OnServer, Params: map[string]string{}},
	"wallet":               {Where: OnServer, Permission: "read:wallet", Params: map[string]string{}},
	"appKV.get":            {Where: OnServer, Permission: "read:appdata", Params: map[string]string{"key": "string"}},
	"appKV.list":           {Where: OnServer, Permission: "read:appdata", Params: map[string]string{}},
	"appKV.set":            {Where: OnServer, Permission: "write:appdata", Params: map[string]string{"key": "string", "value": "any"}},
	"appKV.delete":         {Where: OnServer, Permission: "write:appdata", Params: map[string]string{"key": "string"}},
	"scripts.run":          {Where: OnServer, Params: map[string]string{"name": "string", "args": "any"}},
	"x402.fetch":           {Where: OnServer, Permission: "pay:x402", Params: map[string]string{"url": "string", "method": "string", "body": "string", "headers": "object", "maxPaymentUsd": "number"}},
	"secrets.status":       {Where: OnServer, Permission: "read:secrets", Params: map[string]string{}},
	"secrets.requestSetup": {Where: OnServer, Permission: "read:secrets", Params: map[string]string{"key": "string"}},
	"chat.prompt":          {Where: OnServer, Permission: "invoke:agent", Params: map[string]string{"prompt": "string"}},
	"confirmTransaction":   {Where: OnServer, Permission: "prepare:transaction", Params: map[string]string{"tx": "object", "description": "string"}},
	"installSkill":         {Where: OnServer, Params: map[string]string{"name": "string", "owner": "string"}},
	"auth.requireSignIn":   {Where: OnHost, Params: map[string]string{}},
	"setContext":           {Where: OnHost, Params: map[string]string{"context": "object"}},
	"openExternal":         {Where: OnHost, Params: map[string]string{"url": "string"}},
	"copy":                 {Where: OnHost, Params: map[string]string{"text": "string"}},
	"navigate":             {Where: OnHost, Params: map[string]string{"path": "string"}},
	"prefillChat":          {Where: OnHost, Params: map[string]string{"prompt": "string"}},
	"askChat":              {Where: OnHost, Params: map[string]string{"prompt": "string"}},
}

// MethodNames are the allowlist's names, sorted.
func MethodNames() []string {
	out := make([]string, 0, len(Methods))
	for name := range Methods {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// MaxParamsBytes bounds one call's params.
const MaxParamsBytes = 256 << 10

// Call performs a server method the host page forwarded for the viewer of app: the method must be on
// the allowlist and performed by the server, the manifest must declare its permission, and its params
// must decode strictly. Each refusal names what it refuses (method, permission or params field).
func (s *Service) Call(ctx context.Context, app *App, v Viewer, method string, params json.RawMessage) (json.RawMessage, error) {
	m, ok := Methods[method]
	if !ok || m.Where != OnServer {
		return nil, (&svcerr.Error{Code: svcerr.InvalidRequest, Param: "method",
			Message: fmt.Sprintf("%q is not a method of the viewer API (allowed: %s)", method, strings.Join(serverMethods(), ", "))}).WithDetails("method", method)
	}
	if err := permitted(app, method, m); err != nil {
		return nil, err
	}
	if len(params) > MaxParamsBytes {
		return nil, svcerr.Invalid("params", "params has at most %d bytes", MaxParamsBytes)
	}
	h := handlers[method]
	if h == nil {
		return nil, notAvailable(method, "not implemented on this server")
	}
	return h(ctx, s, call{app: app, viewer: v, method: method, params: params})
}

// permitted refuses a method whose permission the app's manifest does not declare, naming it.
func permitted(app *App, method string, m Method) error {
	if m.Permission != "" && !slices.Contains(app.Permissions, m.Permission) {
		return (&svcerr.Error{Code: svcerr.Forbidden, Param: "permission",
			Message: fmt.Sprintf("%s needs the permission %s, which app %s's manifest does not declare", method, m.Permission, app.Slug)}).
			WithDetails("permission", m.Permission)
	}
	return nil
}

func serverMethods() []string {
	var out []string
	for _, name := range MethodNames() {
		if Methods[name].Where == OnServer {
			out = append(out, name)
		}
	}
	return out
}

// call is one forwarded call.
type call struct {
	app    *App
	viewer Viewer
	method string
	params json.RawMessage
}

type handler func(ctx context.Context, s *Service, c call) (json.RawMessage, error)

// handlers perform the server methods; a server method without one answers not available.
var handlers = map[string]handler{
	"ctx":                  ctxMethod,
	"wallet":               walletMethod,
	"appKV.get":            kvMethod("get"),
	"appKV.list":           kvMethod("list"),
	"appKV.set":            kvMethod("set"),
	"appKV.delete":         kvMethod("delete"),
	"scripts.run":          runMethod,
	"x402.fetch":           x402Method,
	"secrets.status":       secretsStatus,
	"secrets.requestSetup": secretsSetup,
	"chat.prompt":          chatPrompt,
	"confirmTransaction":   confirmTransaction,
	"installSkill":         installSkillMethod,
}

// decode strictly decodes params into out ({} when absent): unknown fields and wrong types are
// refused, naming params.<field>.
func decode(params json.RawMessage, out any) error {
	if len(bytes.TrimSpace(params)) == 0 || string(bytes.TrimSpace(params)) == "null" {
		params = json.RawMessage(`{}`)
	}
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.DisallowUnknownFields()
	err := dec.Decode(out)
	if err == nil {
		return nil
	}
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return svcerr.Invalid("params."+typeErr.Field, "params.%s must be a %s", typeErr.Field, jsonKind(typeErr.Type.Kind().String()))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return svcerr.Invalid("params."+field, "params.%s is not a field of this method", field)
	}
	return svcerr.Invalid("params", "params must be a JSON object: %v", err)
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "string"
	case "float64", "int", "int64":
		return "number"
	case "bool":
		return "boolean"
	case "map", "struct":
		return "object"
	}
	return "JSON value"
}

// required refuses an empty string param, naming it.
func required(field, v string) error {
	if strings.TrimSpace(v) == "" {
		return svcerr.Invalid("params."+field, "params.%s is required", field)
	}
	return nil
}

func marshal(v any) (json.RawMessage, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode the answer: %w", err)
	}
	return raw, nil
}
