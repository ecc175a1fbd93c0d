// Package siwe implements sign-in with Ethereum (EIP-4361) web sessions: single-use nonces kept in
// PostgreSQL, strict parsing of the signed message, recovery of its EIP-191 signer, the addresses linked to
// an account, and the short-lived session JWT a successful sign-in answers.
package siwe

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/svcplatform/svc/internal/svcerr"
)

// Message is a parsed EIP-4361 message.
type Message struct {
	// Scheme is the optional URI scheme before the domain ("https"); empty when absent.
	Scheme         string
	Domain         string
	Address        common.Address
	Statement      string
	URI            string
	Version        string
	ChainID        int64
	Nonce          string
	IssuedAt       time.Time
	ExpirationTime *time.Time
	NotBefore      *time.Time
	RequestID      string
	Resources      []string
}

const (
	headerSuffix = " wants you to sign in with your Ethereum account:"
	// maxMessageBytes bounds what Parse reads: a sign-in message is a few hundred bytes.
	maxMessageBytes = 8 << 10
)

// invalid is a 401 naming the message field that failed (sign-in errors are authentication failures).
func invalid(field, format string, args ...any) error {
	return &svcerr.Error{Code: svcerr.Unauthenticated, Param: "message." + field,
		Message: fmt.Sprintf("SIWE message %s: %s", field, fmt.Sprintf(format, args...))}
}

// Parse reads an EIP-4361 message strictly: the lines in the specified order, an EIP-55 address, version 1,
// a decimal chain id, an alphanumeric nonce of at least 8 characters and RFC 3339 times. Errors are 401s
// naming the field (param message.<field>).
func Parse(text string) (*Message, error) {
	if len(text) > maxMessageBytes {
		return nil, invalid("length", "at most %d bytes", maxMessageBytes)
	}
	lines := strings.Split(text, "\n")
	m := &Message{}
	if len(lines) < 2 {
		return nil, invalid("domain", "the first line must be \"<domain>%s\"", headerSuffix)
	}
	origin, ok := strings.CutSuffix(lines[0], headerSuffix)
	if !ok || origin == "" {
		return nil, invalid("domain", "the first line must be \"<domain>%s\"", headerSuffix)
	}
	if scheme, rest, found := strings.Cut(origin, "://"); found {
		m.Scheme, origin = scheme, rest
	}
	if strings.ContainsAny(origin, " /?#@") {
		return nil, invalid("domain", "%q is not a host[:port]", origin)
	}
	m.Domain = origin
	if !common.IsHexAddress(lines[1]) || !strings.HasPrefix(lines[1], "0x") || common.HexToAddress(lines[1]).Hex() != lines[1] {
		return nil, invalid("address", "%q is not an EIP-55 checksummed address", lines[1])
	}
	m.Address = common.HexToAddress(lines[1])
	rest := lines[2:]
	if len(rest) == 0 || rest[0] != "" {
		return nil, invalid("statement", "an empty line must follow the address")
	}
	rest = rest[1:]
	// Optional statement, then an empty line (EIP-4361); viem omits that line after a statement, and
	// writes one empty line when there is none: both are accepted, nothing else.
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "URI: ") && rest[0] != "" {
		m.Statement = rest[0]
		rest = rest[1:]
	}
	if len(rest) > 0 && rest[0] == "" {
		rest = rest[1:]
	}
	p := &fieldReader{lines: rest}
	var err error
	if m.URI, err = p.required("URI", "uri"); err != nil {
		return nil, err
	}
	if u, perr := url.Parse(m.URI); perr != nil || u.Scheme == "" {
		return nil, invalid("uri", "%q is not an absolute URI", m.URI)
	}
	if m.Version, err = p.required("Version", "version"); err != nil {
		return nil, err
	}
	if m.Version != "1" {
		return nil, invalid("version", "must be 1, not %q", m.Version)
	}
	chain, err := p.required("Chain ID", "chainId")
	if err != nil {
		return nil, err
	}
	if m.ChainID, err = strconv.ParseInt(chain, 10, 64); err != nil || m.ChainID <= 0 || strconv.FormatInt(m.ChainID, 10) != chain {
		return nil, invalid("chainId", "%q is not a chain id", chain)
	}
	if m.Nonce, err = p.required("Nonce", "nonce"); err != nil {
		return nil, err
	}
	if !alphanumeric(m.Nonce) || len(m.Nonce) < 8 {
		return nil, invalid("nonce", "must be at least 8 letters and digits")
	}
	if m.IssuedAt, err = p.requiredTime("Issued At", "issuedAt"); err != nil {
		return nil, err
	}
	if m.ExpirationTime, err = p.optionalTime("Expiration Time", "expirationTime"); err != nil {
		return nil, err
	}
	if m.NotBefore, err = p.optionalTime("Not Before", "notBefore"); err != nil {
		return nil, err
	}
	if v, ok := p.optional("Request ID"); ok {
		m.RequestID = v
	}
	if p.next() == "Resources:" {
		p.i++
		for p.i < len(p.lines) && strings.HasPrefix(p.lines[p.i], "- ") {
			m.Resources = append(m.Resources, strings.TrimPrefix(p.lines[p.i], "- "))
			p.i++
		}
	}
	if p.i < len(p.lines) {
		return nil, invalid("format", "unexpected line %q", p.lines[p.i])
	}
	return m, nil
}

// fieldReader reads "Name: value" lines in order.
type fieldReader struct {
	lines []string
	i     int
}

func (p *fieldReader) next() string {
	if p.i < len(p.lines) {
		return p.lines[p.i]
	}
	return ""
}

func (p *fieldReader) optional(name string) (string, bool) {
	v, ok := strings.CutPrefix(p.next(), name+": ")
	if ok {
		p.i++
	}
	return v, ok
}

func (p *fieldReader) required(name, field string) (string, error) {
	v, ok := p.optional(name)
	if !ok || v == "" {
		return "", invalid(field, "the line \"%s: ...\" is missing or out of order", name)
	}
	return v, nil
}

func (p *fieldReader) requiredTime(name, field string) (time.Time, error) {
	v, err := p.required(name, field)
	if err != nil {
		return time.Time{}, err
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, invalid(field, "%q is not an RFC 3339 time", v)
	}
	return t, nil
}

func (p *fieldReader) optionalTime(name, field string) (*time.Time, error) {
	v, ok := p.optional(name)
	if !ok {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return nil, invalid(field, "%q is not an RFC 3339 time", v)
	}
	return &t, nil
}

func alphanumeric(s string) bool {
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// String renders the message in EIP-4361's form (a statement, when set, is followed by an empty line).
func (m *Message) String() string {
	var b strings.Builder
	if m.Scheme != "" {
		b.WriteString(m.Scheme + "://")
	}
	b.WriteString(m.Domain + headerSuffix + "\n" + m.Address.Hex() + "\n\n")
	if m.Statement != "" {
		b.WriteString(m.Statement + "\n")
	}
	b.WriteString("\nURI: " + m.URI + "\nVersion: " + m.Version + "\nChain ID: " + strconv.FormatInt(m.ChainID, 10) +
		"\nNonce: " + m.Nonce + "\nIssued At: " + m.IssuedAt.UTC().Format(time.RFC3339))
	if m.ExpirationTime != nil {
		b.WriteString("\nExpiration Time: " + m.ExpirationTime.UTC().Format(time.RFC3339))
	}
	if m.NotBefore != nil {
		b.WriteString("\nNot Before: " + m.NotBefore.UTC().Format(time.RFC3339))
	}
	if m.RequestID != "" {
		b.WriteString("\nRequest ID: " + m.RequestID)
	}
	if len(m.Resources) > 0 {
		b.WriteString("\nResources:")
		for _, r := range m.Resources {
			b.WriteString("\n- " + r)
		}
	}
	return b.String()
}
