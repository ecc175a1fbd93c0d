package gateway

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/catalog"
)

// ContractGeneration marks a service that follows the generation-service contract.
const ContractGeneration = "generation"

// Timeouts of a service.
const (
	DefaultTimeout = 30 * time.Second
	MaxTimeout     = 10 * time.Minute
)

// Catalog is the validated content of a services.yaml file.
type Catalog struct {
	Services []Service
}

// Service is one external managed service.
type Service struct {
	ID           string
	Name         string
	BaseURL      *url.URL
	Contract     string
	AllowPrivate bool
	Timeout      time.Duration
	// Connection is the name of the connection whose credential is injected; "" for none. Each account
	// stores its own credential for the service under this name (POST /v1/connections).
	Connection string
	Operations []Operation
}

// Operation is one operation of a service.
type Operation struct {
	ID     string
	Method string
	Path   string
	// Millicredits is the listed price per call (credits × 1000).
	Millicredits     int64
	RequiresApproval bool
}

// KindInvoke is the catalog kind of external operations: called with POST /v1/services/{id}/invoke.
const KindInvoke = "invoke"

// ForCatalog returns the services as catalog entries, for catalog.Builtin().With(...): every operation
// available, of kind KindInvoke, priced at its listed credits per call. Base URLs and paths stay out.
func (c *Catalog) ForCatalog() []catalog.Service {
	out := make([]catalog.Service, 0, len(c.Services))
	for _, s := range c.Services {
		entry := catalog.Service{ID: s.ID, Name: s.Name, Description: s.Name + " (external service)"}
		for _, op := range s.Operations {
			entry.Operations = append(entry.Operations, catalog.Operation{
				ID: op.ID, Kind: KindInvoke, RequiresApproval: op.RequiresApproval, Available: true,
				Millicredits: op.Millicredits, Unit: "call",
			})
		}
		out = append(out, entry)
	}
	return out
}

// Lookup returns the service with the id.
func (c *Catalog) Lookup(id string) (Service, bool) {
	i := slices.IndexFunc(c.Services, func(s Service) bool { return s.ID == id })
	if i < 0 {
		return Service{}, false
	}
	return c.Services[i], true
}

// Operation returns the operation with the id, if the service has it.
func (s Service) Operation(id string) (Operation, bool) {
	i := slices.IndexFunc(s.Operations, func(o Operation) bool { return o.ID == id })
	if i < 0 {
		return Operation{}, false
	}
	return s.Operations[i], true
}

// ConfigError is a services.yaml problem at one field path.
type ConfigError struct {
	// File is the path of the file, when loaded from one.
	File string
	// Field is the path of the field, for example services[0].operations[1].method.
	Field   string
	Line    int
	Message string
}

// Error implements error.
func (e *ConfigError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File + ": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Message)
	if e.Line > 0 {
		fmt.Fprintf(&b, " (line %d)", e.Line)
	}
	return b.String()
}

// Load reads and validates the services file at path.
func Load(path string) (*Catalog, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read services file: %w", err)
	}
	c, err := Parse(data)
	var ce *ConfigError
	if errors.As(err, &ce) {
		ce.File = path
	}
	return c, err
}

// Parse validates the content of a services file.
func Parse(data []byte) (*Catalog, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &ConfigError{Message: "not valid YAML: " + err.Error()}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &ConfigError{Field: "services", Message: "is required"}
	}
	root := resolve(doc.Content[0])
	var raw []*yaml.Node
	seen, err := fields(root, "", map[string]func(*yaml.Node, string) error{
		"services": func(n *yaml.Node, p string) (err error) { raw, err = sequence(n, p); return err },
	})
	if err != nil {
		return nil, err
	}
	if seen["services"] == nil {
		return nil, &ConfigError{Field: "services", Message: "is required", Line: root.Line}
	}
	return parseServices(raw)
}

func parseServices(raw []*yaml.Node) (*Catalog, error) {
	c := &Catalog{}
	for i, n := range raw {
		path := fmt.Sprintf("services[%d]", i)
		svc, err := parseService(n, path)
		if err != nil {
			return nil, err
		}
		if _, dup := c.Lookup(svc.ID); dup {
			return nil, &ConfigError{Field: path + ".id", Line: n.Line, Message: fmt.Sprintf("service id %q is used twice", svc.ID)}
		}
		c.Services = append(c.Services, svc)
	}
	return c, nil
}

var (
	serviceIDPattern   = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)
	operationIDPattern = regexp.MustCompile(`^[a-z0-9][a-zA-Z0-9._-]{0,63}$`)
	methods            = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}
)

// reserved reports whether id is a built-in service id or a pricing-catalog filter value.
func reserved(id string) bool {
	return catalog.Known(id) || id == client.ServicePlatformAPI
}

func parseService(n *yaml.Node, path string) (Service, error) {
	svc := Service{Timeout: DefaultTimeout}
	var base string
	var ops []*yaml.Node
	at, err := fields(n, path, map[string]func(*yaml.Node, string) error{
		"id":           stringField(&svc.ID),
		"name":         stringField(&svc.Name),
		"baseUrl":      stringField(&base),
		"contract":     stringField(&svc.Contract),
		"allowPrivate": boolField(&svc.AllowPrivate),
		"timeout":      durationField(&svc.Timeout),
		"connection":   stringField(&svc.Connection),
		"operations":   func(n *yaml.Node, p string) (err error) { ops, err = sequence(n, p); return err },
	})
	if err != nil {
		return Service{}, err
	}
	if err := checkService(&svc, at, path); err != nil {
		return Service{}, err
	}
	if svc.BaseURL, err = parseBaseURL(base, at.node("baseUrl"), path+".baseUrl"); err != nil {
		return Service{}, err
	}
	svc.Operations, err = parseOperations(ops, at.node("operations"), path)
	return svc, err
}

// checkService validates the service's scalar fields.
func checkService(svc *Service, at seenFields, path string) error {
	switch {
	case svc.ID == "":
		return fieldErr(at.node("id"), path+".id", "is required")
	case !serviceIDPattern.MatchString(svc.ID):
		return fieldErr(at.node("id"), path+".id", "must match [a-z0-9][a-z0-9-]* and be at most 63 characters")
	case reserved(svc.ID):
		return fieldErr(at.node("id"), path+".id", fmt.Sprintf("%q is a built-in service id", svc.ID))
	case svc.Contract != "" && svc.Contract != ContractGeneration:
		return fieldErr(at.node("contract"), path+".contract", "must be generation or absent")
	case svc.Connection != "" && !connectionNamePattern.MatchString(svc.Connection):
		return fieldErr(at.node("connection"), path+".connection", "must be a connection name: letters, digits, . _ - (at most 100)")
	case svc.Timeout <= 0 || svc.Timeout > MaxTimeout:
		return fieldErr(at.node("timeout"), path+".timeout", fmt.Sprintf("must be between 1ms and %s", MaxTimeout))
	}
	if svc.Name == "" {
		svc.Name = svc.ID
	}
	return nil
}

// connectionNamePattern is what a services.yaml connection name may look like.
var connectionNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)

func parseBaseURL(s string, n *yaml.Node, path string) (*url.URL, error) {
	if s == "" {
		return nil, fieldErr(n, path, "is required")
	}
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return nil, fieldErr(n, path, "is not a URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fieldErr(n, path, "must be an http or https URL")
	case u.Host == "" || u.Hostname() == "":
		return nil, fieldErr(n, path, "must name a host")
	case u.User != nil:
		return nil, fieldErr(n, path, "must not carry user info: put credentials in a connection")
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return nil, fieldErr(n, path, "must not have a query or fragment")
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

func parseOperations(raw []*yaml.Node, opsNode *yaml.Node, path string) ([]Operation, error) {
	if len(raw) == 0 {
		return nil, fieldErr(opsNode, path+".operations", "needs at least one operation")
	}
	var ops []Operation
	for i, n := range raw {
		opPath := fmt.Sprintf("%s.operations[%d]", path, i)
		op, err := parseOperation(n, opPath)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(ops, func(o Operation) bool { return o.ID == op.ID }) {
			return nil, fieldErr(n, opPath+".id", fmt.Sprintf("operation id %q is used twice", op.ID))
		}
		ops = append(ops, op)
	}
	return ops, nil
}

func parseOperation(n *yaml.Node, path string) (Operation, error) {
	var op Operation
	at, err := fields(n, path, map[string]func(*yaml.Node, string) error{
		"id":               stringField(&op.ID),
		"method":           stringField(&op.Method),
		"path":             stringField(&op.Path),
		"credits":          creditsField(&op.Millicredits),
		"requiresApproval": boolField(&op.RequiresApproval),
	})
	if err != nil {
		return Operation{}, err
	}
	op.Method = strings.ToUpper(op.Method)
	switch {
	case op.ID == "":
		return Operation{}, fieldErr(at.node("id"), path+".id", "is required")
	case !operationIDPattern.MatchString(op.ID):
		return Operation{}, fieldErr(at.node("id"), path+".id", "must match [a-z0-9][a-zA-Z0-9._-]* and be at most 64 characters")
	case !slices.Contains(methods, op.Method):
		return Operation{}, fieldErr(at.node("method"), path+".method", "must be one of GET, POST, PUT, PATCH, DELETE")
	case !validPath(op.Path):
		return Operation{}, fieldErr(at.node("path"), path+".path", "must start with / and have no query, fragment, .. segment or spaces")
	}
	return op, nil
}

func validPath(p string) bool {
	if !strings.HasPrefix(p, "/") || strings.ContainsAny(p, "?# \t\r\n\\") {
		return false
	}
	if slices.Contains(strings.Split(p, "/"), "..") {
		return false
	}
	_, err := url.Parse(p)
	return err == nil
}

// fieldErr is a ConfigError at node n (which may be nil for a missing field).
func fieldErr(n *yaml.Node, path, msg string) error {
	e := &ConfigError{Field: path, Message: msg}
	if n != nil {
		e.Line = n.Line
	}
	return e
}

// seenFields are the value nodes of a mapping's keys; node falls back to the mapping itself.
type seenFields map[string]*yaml.Node

func (s seenFields) node(key string) *yaml.Node {
	if n := s[key]; n != nil {
		return n
	}
	return s[""]
}

// resolve follows an alias to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// fields walks a mapping, handing each known key's value to its setter with the key's path, and returns
// the value nodes by key (the mapping itself under ""). Unknown and duplicate keys are errors.
func fields(n *yaml.Node, path string, known map[string]func(*yaml.Node, string) error) (seenFields, error) {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		return nil, fieldErr(n, orRoot(path), "must be a mapping")
	}
	seen := seenFields{"": n}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i].Value, resolve(n.Content[i+1])
		p := join(path, key)
		set, ok := known[key]
		if !ok {
			return nil, fieldErr(n.Content[i], p, "unknown field")
		}
		if seen[key] != nil {
			return nil, fieldErr(n.Content[i], p, "appears twice")
		}
		seen[key] = val
		if err := set(val, p); err != nil {
			return nil, err
		}
	}
	return seen, nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func orRoot(path string) string {
	if path == "" {
		return "(document)"
	}
	return path
}

// sequence returns the items of a sequence node (null is an empty one).
func sequence(n *yaml.Node, path string) ([]*yaml.Node, error) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, fieldErr(n, path, "must be a list")
	}
	out := make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		out[i] = resolve(c)
	}
	return out, nil
}

// scalar returns a scalar node's text; mappings, lists and null are errors.
func scalar(n *yaml.Node, path string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		return "", fieldErr(n, path, "must be a single value")
	}
	return n.Value, nil
}

func stringField(dst *string) func(*yaml.Node, string) error {
	return func(n *yaml.Node, path string) error {
		s, err := scalar(n, path)
		if err == nil && n.ShortTag() != "!!str" {
			err = fieldErr(n, path, "must be a string")
		}
		*dst = s
		return err
	}
}

func boolField(dst *bool) func(*yaml.Node, string) error {
	return func(n *yaml.Node, path string) error {
		if _, err := scalar(n, path); err != nil {
			return err
		}
		if n.ShortTag() != "!!bool" {
			return fieldErr(n, path, "must be true or false")
		}
		return n.Decode(dst)
	}
}

func durationField(dst *time.Duration) func(*yaml.Node, string) error {
	return func(n *yaml.Node, path string) error {
		s, err := scalar(n, path)
		if err != nil {
			return err
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return fieldErr(n, path, "must be a duration such as 30s or 2m")
		}
		*dst = d
		return nil
	}
}

func creditsField(dst *int64) func(*yaml.Node, string) error {
	return func(n *yaml.Node, path string) error {
		s, err := scalar(n, path)
		if err != nil {
			return err
		}
		if tag := n.ShortTag(); tag != "!!int" && tag != "!!float" {
			return fieldErr(n, path, "must be a number")
		}
		m, err := ParseCredits(s)
		if err != nil {
			return fieldErr(n, path, err.Error())
		}
		*dst = m
		return nil
	}
}
