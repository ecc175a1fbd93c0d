// Package smtptest runs a real SMTP server (emersion/go-smtp) on loopback for tests: it accepts every
// message and hands each one, parsed and decoded, to the test that waits for it.
package smtptest

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Received is one message the server accepted.
type Received struct {
	From    string
	To      []string
	Subject string
	// Body is the text body, its transfer encoding (quoted-printable, base64) undone.
	Body string
	// User is the login the client authenticated with ("" without one).
	User string
}

// Server is a running SMTP server.
type Server struct {
	// Addr is host:port on 127.0.0.1.
	Addr string
	// RootCAs trusts the server's certificate (Options.TLS); nil otherwise.
	RootCAs *x509.CertPool
	got     chan Received
	errs    chan error
	opts    Options
}

// Options make a server that speaks TLS and wants a login.
type Options struct {
	// TLS gives the server a self-signed certificate for 127.0.0.1 (see Server.RootCAs): it offers
	// STARTTLS, or, with Implicit, speaks TLS from the first byte (smtps).
	TLS      bool
	Implicit bool
	// User and Password, when set, are the only login (AUTH PLAIN, over TLS only); mail without it is
	// refused.
	User, Password string
}

// Start serves SMTP on a free loopback port until the test ends.
func Start(t testing.TB) *Server { return StartWith(t, Options{}) }

// StartWith is Start with options.
func StartWith(t testing.TB, o Options) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("smtptest: listen: %v", err)
	}
	s := &Server{Addr: ln.Addr().String(), got: make(chan Received, 64), errs: make(chan error, 64), opts: o}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &session{s: s}, nil }))
	srv.Domain = "localhost"
	srv.ReadTimeout, srv.WriteTimeout = 30*time.Second, 30*time.Second
	srv.MaxMessageBytes = 1 << 20
	srv.ErrorLog = discard{}
	if o.TLS {
		cfg, pool, err := selfSigned()
		if err != nil {
			t.Fatalf("smtptest: certificate: %v", err)
		}
		srv.TLSConfig, s.RootCAs = cfg, pool
		if o.Implicit {
			ln = tls.NewListener(ln, cfg)
		}
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return s
}

// URL is SVC_SMTP_URL for the server: smtps:// for implicit TLS, with the login when there is one.
func (s *Server) URL() string {
	u := url.URL{Scheme: "smtp", Host: s.Addr}
	if s.opts.Implicit {
		u.Scheme = "smtps"
	}
	if s.opts.User != "" {
		u.User = url.UserPassword(s.opts.User, s.opts.Password)
	}
	return u.String()
}

// Next waits up to timeout for the next message; it fails the test when none comes or one could not be
// parsed.
func (s *Server) Next(t testing.TB, timeout time.Duration) Received {
	t.Helper()
	select {
	case m := <-s.got:
		return m
	case err := <-s.errs:
		t.Fatalf("smtptest: a message could not be read: %v", err)
	case <-time.After(timeout):
		t.Fatalf("smtptest: no message within %s", timeout)
	}
	return Received{}
}

// Pending is the number of messages received and not yet taken by Next.
func (s *Server) Pending() int { return len(s.got) }

type discard struct{}

func (discard) Printf(string, ...any) {}
func (discard) Println(...any)        {}

// session collects one message's envelope and data.
type session struct {
	s      *Server
	from   string
	to     []string
	authed string
}

// AuthMechanisms offers PLAIN when the server wants a login (go-smtp offers it over TLS only).
func (x *session) AuthMechanisms() []string {
	if x.s.opts.User == "" {
		return nil
	}
	return []string{sasl.Plain}
}

// Auth checks the one login.
func (x *session) Auth(mech string) (sasl.Server, error) {
	if mech != sasl.Plain || x.s.opts.User == "" {
		return nil, smtp.ErrAuthUnknownMechanism
	}
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != x.s.opts.User || pass != x.s.opts.Password {
			return smtp.ErrAuthFailed
		}
		x.authed = user
		return nil
	}), nil
}

func (x *session) Reset()        { x.from, x.to = "", nil }
func (x *session) Logout() error { return nil }

func (x *session) Mail(from string, _ *smtp.MailOptions) error {
	if x.s.opts.User != "" && x.authed == "" {
		return smtp.ErrAuthRequired
	}
	x.from = from
	return nil
}

func (x *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	x.to = append(x.to, to)
	return nil
}

func (x *session) Data(r io.Reader) error {
	m, err := parse(r)
	if err != nil {
		x.s.errs <- err
		return fmt.Errorf("parse the message: %w", err)
	}
	m.From, m.To, m.User = x.from, append([]string(nil), x.to...), x.authed
	x.s.got <- m
	return nil
}

// parse reads a single-part text message and decodes its subject and body.
func parse(r io.Reader) (Received, error) {
	msg, err := mail.ReadMessage(r)
	if err != nil {
		return Received{}, fmt.Errorf("read the message: %w", err)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		return Received{}, fmt.Errorf("decode the subject: %w", err)
	}
	body, err := decodeBody(msg)
	if err != nil {
		return Received{}, err
	}
	return Received{Subject: subject, Body: body}, nil
}

func decodeBody(msg *mail.Message) (string, error) {
	var r io.Reader = msg.Body
	switch strings.ToLower(msg.Header.Get("Content-Transfer-Encoding")) {
	case "quoted-printable":
		r = quotedprintable.NewReader(msg.Body)
	case "base64":
		raw, err := io.ReadAll(msg.Body)
		if err != nil {
			return "", fmt.Errorf("read the body: %w", err)
		}
		return decodeBase64(raw)
	case "", "7bit", "8bit":
	default:
		return "", errors.New("unexpected Content-Transfer-Encoding " + msg.Header.Get("Content-Transfer-Encoding"))
	}
	var b bytes.Buffer
	if _, err := io.Copy(&b, r); err != nil {
		return "", fmt.Errorf("read the body: %w", err)
	}
	return strings.ReplaceAll(b.String(), "\r\n", "\n"), nil
}

func decodeBase64(raw []byte) (string, error) {
	clean := strings.NewReplacer("\r", "", "\n", "").Replace(string(raw))
	out, err := base64.StdEncoding.DecodeString(clean)
	if err != nil {
		return "", fmt.Errorf("decode the base64 body: %w", err)
	}
	return strings.ReplaceAll(string(out), "\r\n", "\n"), nil
}
