package llm

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// DefaultCatalog is the llm.yaml the binary carries, used when no file is configured: one provider
// whose base URL and key come from SVC_LLM_BASE_URL and SVC_LLM_API_KEY. Without a URL the provider is
// unconfigured and completions answer 503 in OpenAI's error shape.
//
//go:embed llm.yaml
var DefaultCatalog []byte

// DefaultTimeout is how long a provider may take to answer a request's headers (or a stream's first
// chunk) before the gateway fails over to the next provider; MaxCallTime bounds a whole call.
const (
	DefaultTimeout = 60 * time.Second
	MaxCallTime    = 10 * time.Minute
)

// Catalog is the validated content of an llm.yaml file.
type Catalog struct {
	Providers []Provider
	Models    []Model
}

// Provider is an OpenAI-compatible upstream.
type Provider struct {
	ID string
	// BaseURL is the OpenAI base URL (…/v1); nil when the provider is unconfigured (its baseUrlEnv
	// variable is empty).
	BaseURL *url.URL
	// APIKeyEnv names the environment variable holding the key; the key itself is never in the file.
	APIKeyEnv string
	// APIKey is the key read from APIKeyEnv when the catalog was loaded ("" for none).
	APIKey string
	// Timeout is how long the provider may take to start answering (default DefaultTimeout).
	Timeout time.Duration
}

// Configured reports whether the provider can be called: it has a base URL. Its key is sent as a bearer
// token when its variable is set (a local server may need none).
func (p Provider) Configured() bool { return p.BaseURL != nil }

// Model is a model clients name, routed to providers in order.
type Model struct {
	ID string
	// Upstream is the model's name at its providers (default ID).
	Upstream  string
	Providers []string
	// InputPerMillion and OutputPerMillion are the prices in millicredits per million tokens (the file
	// says credits, up to three decimals).
	InputPerMillion  int64
	OutputPerMillion int64
	// Premium models are seed 002's Max Mode: when credits cannot cover them the call falls back to
	// the base model unless the request refuses it.
	Premium bool
	// Base marks the one base model.
	Base bool
}

// Model returns the model with the id.
func (c *Catalog) Model(id string) (Model, bool) {
	for _, m := range c.Models {
		if m.ID == id {
			return m, true
		}
	}
	return Model{}, false
}

// Base returns the base model.
func (c *Catalog) Base() Model {
	for _, m := range c.Models {
		if m.Base {
			return m
		}
	}
	return Model{}
}

// Provider returns the provider with the id.
func (c *Catalog) Provider(id string) (Provider, bool) {
	for _, p := range c.Providers {
		if p.ID == id {
			return p, true
		}
	}
	return Provider{}, false
}

// file is llm.yaml as written.
type file struct {
	Providers []struct {
		ID         string `yaml:"id"`
		BaseURL    string `yaml:"baseUrl"`
		BaseURLEnv string `yaml:"baseUrlEnv"`
		APIKeyEnv  string `yaml:"apiKeyEnv"`
		Timeout    string `yaml:"timeout"`
	} `yaml:"providers"`
	Models []struct {
		ID               string    `yaml:"id"`
		Upstream         string    `yaml:"upstream"`
		Providers        []string  `yaml:"providers"`
		InputPerMillion  yaml.Node `yaml:"inputPerMillion"`
		OutputPerMillion yaml.Node `yaml:"outputPerMillion"`
		Premium          bool      `yaml:"premium"`
		Base             bool      `yaml:"base"`
	} `yaml:"models"`
}

// LoadCatalog reads the llm.yaml at path ("" for DefaultCatalog), taking environment variables through
// getenv.
func LoadCatalog(path string, getenv func(string) string) (*Catalog, error) {
	data := DefaultCatalog
	if path != "" {
		var err error
		if data, err = os.ReadFile(path); err != nil {
			return nil, fmt.Errorf("read llm catalog: %w", err)
		}
	}
	c, err := ParseCatalog(data, getenv)
	if err != nil && path != "" {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, err
}

var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$`)
var envPattern = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)

// ParseCatalog validates the content of an llm.yaml; errors name the field (models[1].providers[0]).
func ParseCatalog(data []byte, getenv func(string) string) (*Catalog, error) {
	var f file
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("llm catalog: %w", err)
	}
	fail := func(field, format string, args ...any) error {
		return fmt.Errorf("llm catalog: %s: %s", field, fmt.Sprintf(format, args...))
	}
	c := &Catalog{}
	for i, p := range f.Providers {
		at := fmt.Sprintf("providers[%d]", i)
		switch {
		case !idPattern.MatchString(p.ID):
			return nil, fail(at+".id", "is required: letters, digits, . _ : / -")
		case p.BaseURL != "" && p.BaseURLEnv != "":
			return nil, fail(at+".baseUrl", "give baseUrl or baseUrlEnv, not both")
		case p.BaseURL == "" && p.BaseURLEnv == "":
			return nil, fail(at+".baseUrl", "is required (or baseUrlEnv)")
		case p.BaseURLEnv != "" && !envPattern.MatchString(p.BaseURLEnv):
			return nil, fail(at+".baseUrlEnv", "must be an environment variable name")
		case p.APIKeyEnv != "" && !envPattern.MatchString(p.APIKeyEnv):
			return nil, fail(at+".apiKeyEnv", "must be an environment variable name (the key itself never goes in the file)")
		}
		if _, dup := c.Provider(p.ID); dup {
			return nil, fail(at+".id", "provider %q is listed twice", p.ID)
		}
		prov := Provider{ID: p.ID, APIKeyEnv: p.APIKeyEnv, Timeout: DefaultTimeout}
		if p.APIKeyEnv != "" {
			prov.APIKey = strings.TrimSpace(getenv(p.APIKeyEnv))
		}
		raw, field := p.BaseURL, at+".baseUrl"
		if p.BaseURLEnv != "" {
			raw, field = strings.TrimSpace(getenv(p.BaseURLEnv)), "environment variable "+p.BaseURLEnv
		}
		if raw != "" {
			u, err := url.Parse(raw)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" {
				return nil, fail(field, "must be an http or https URL without credentials or query")
			}
			u.Path = strings.TrimSuffix(u.Path, "/")
			prov.BaseURL = u
		}
		if p.Timeout != "" {
			d, err := time.ParseDuration(p.Timeout)
			if err != nil || d <= 0 || d > MaxCallTime {
				return nil, fail(at+".timeout", "must be a duration between 1ms and %s", MaxCallTime)
			}
			prov.Timeout = d
		}
		c.Providers = append(c.Providers, prov)
	}
	bases := 0
	for i, m := range f.Models {
		at := fmt.Sprintf("models[%d]", i)
		if !idPattern.MatchString(m.ID) {
			return nil, fail(at+".id", "is required: letters, digits, . _ : / -")
		}
		if _, dup := c.Model(m.ID); dup {
			return nil, fail(at+".id", "model %q is listed twice", m.ID)
		}
		if len(m.Providers) == 0 {
			return nil, fail(at+".providers", "must list at least one provider")
		}
		for j, p := range m.Providers {
			if _, ok := c.Provider(p); !ok {
				return nil, fail(fmt.Sprintf("%s.providers[%d]", at, j), "no provider %q in providers", p)
			}
		}
		in, err := millicredits(m.InputPerMillion)
		if err != nil {
			return nil, fail(at+".inputPerMillion", "%v", err)
		}
		out, err := millicredits(m.OutputPerMillion)
		if err != nil {
			return nil, fail(at+".outputPerMillion", "%v", err)
		}
		if m.Base {
			bases++
			if m.Premium {
				return nil, fail(at+".base", "the base model cannot be premium")
			}
		}
		model := Model{ID: m.ID, Upstream: m.Upstream, Providers: m.Providers, InputPerMillion: in, OutputPerMillion: out,
			Premium: m.Premium, Base: m.Base}
		if model.Upstream == "" {
			model.Upstream = m.ID
		}
		c.Models = append(c.Models, model)
	}
	if len(c.Models) == 0 {
		return nil, fail("models", "must list at least one model")
	}
	if bases != 1 {
		return nil, fail("models", "exactly one model must be marked base: true (%d are)", bases)
	}
	return c, nil
}

// millicredits reads a price in credits (a decimal with at most three places) as millicredits.
func millicredits(n yaml.Node) (int64, error) {
	if n.Kind == 0 {
		return 0, errors.New("is required")
	}
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
		return 0, errors.New("must be a number of credits")
	}
	r, ok := new(big.Rat).SetString(n.Value)
	if !ok || r.Sign() < 0 {
		return 0, errors.New("must be a non-negative number of credits")
	}
	r.Mul(r, big.NewRat(1000, 1))
	if !r.IsInt() || !r.Num().IsInt64() {
		return 0, errors.New("must have at most three decimals (millicredits)")
	}
	return r.Num().Int64(), nil
}
