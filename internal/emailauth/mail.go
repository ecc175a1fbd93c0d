package emailauth

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/mail"
	"net/url"
	"strconv"
	"time"

	"github.com/uptrace/bun"
	gomail "github.com/wneessen/go-mail"
)

// DefaultFrom is the sender of sign-in mail when SVC_MAIL_FROM is unset.
const DefaultFrom = "svc <no-reply@localhost>"

// Message is one plain-text mail.
type Message struct {
	To      string
	Subject string
	Body    string
}

// Mailer sends messages. Implementations never log a message's body (it holds a sign-in code).
type Mailer interface {
	Send(ctx context.Context, m Message) error
}

// SMTP sends mail through an SMTP server with go-mail.
type SMTP struct {
	host     string
	port     int
	ssl      bool
	user     string
	password string
	from     string
	timeout  time.Duration
	rootCAs  *x509.CertPool
}

// WithRootCAs makes s trust the certificates of pool instead of the system's (a test's server, or a
// private mail relay); it returns s.
func (s *SMTP) WithRootCAs(pool *x509.CertPool) *SMTP {
	s.rootCAs = pool
	return s
}

// NewSMTP reads SVC_SMTP_URL's form: smtp://[user:pass@]host[:port] (port 587 by default; STARTTLS when
// the server offers it) or smtps://[user:pass@]host[:port] (implicit TLS, port 465 by default). from is
// the sender (SVC_MAIL_FROM; DefaultFrom when empty). Errors never repeat the URL (it may hold a password).
func NewSMTP(rawURL, from string) (*SMTP, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("SVC_SMTP_URL is not a URL (smtp://user:pass@host:port or smtps://…)")
	}
	s := &SMTP{host: u.Hostname(), from: from, timeout: 30 * time.Second}
	switch u.Scheme {
	case "smtp":
		s.port = 587
	case "smtps":
		s.port, s.ssl = 465, true
	default:
		return nil, fmt.Errorf("SVC_SMTP_URL: scheme %q is not smtp or smtps", u.Scheme)
	}
	if s.host == "" {
		return nil, fmt.Errorf("SVC_SMTP_URL names no host")
	}
	if p := u.Port(); p != "" {
		if s.port, err = strconv.Atoi(p); err != nil || s.port < 1 || s.port > 65535 {
			return nil, fmt.Errorf("SVC_SMTP_URL: port %q is not a port number", p)
		}
	}
	if u.Path != "" && u.Path != "/" || u.RawQuery != "" {
		return nil, fmt.Errorf("SVC_SMTP_URL takes no path or query")
	}
	if u.User != nil {
		s.user = u.User.Username()
		s.password, _ = u.User.Password()
	}
	if s.from == "" {
		s.from = DefaultFrom
	}
	if _, err := mail.ParseAddress(s.from); err != nil {
		return nil, fmt.Errorf("SVC_MAIL_FROM %q is not a mail address: %w", s.from, err)
	}
	return s, nil
}

// Send delivers m through the SMTP server: one connection per message (sign-in mail is rare).
func (s *SMTP) Send(ctx context.Context, m Message) error {
	msg := gomail.NewMsg()
	if err := msg.From(s.from); err != nil {
		return fmt.Errorf("mail sender: %w", err)
	}
	if err := msg.To(m.To); err != nil {
		return fmt.Errorf("mail recipient: %w", err)
	}
	msg.Subject(m.Subject)
	msg.SetBodyString(gomail.TypeTextPlain, m.Body)
	c, err := gomail.NewClient(s.host, s.options()...)
	if err != nil {
		return fmt.Errorf("SMTP client for %s: %w", s.host, err)
	}
	if err := c.DialAndSendWithContext(ctx, msg); err != nil {
		return fmt.Errorf("send mail through %s:%d: %w", s.host, s.port, err)
	}
	return nil
}

func (s *SMTP) options() []gomail.Option {
	opts := []gomail.Option{gomail.WithPort(s.port), gomail.WithTimeout(s.timeout)}
	if s.rootCAs != nil {
		opts = append(opts, gomail.WithTLSConfig(&tls.Config{ServerName: s.host, RootCAs: s.rootCAs, MinVersion: tls.VersionTLS12}))
	}
	if s.ssl {
		opts = append(opts, gomail.WithSSL())
	} else {
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	}
	if s.user != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(s.user), gomail.WithPassword(s.password))
	}
	return opts
}

// DevMailbox keeps messages in PostgreSQL (table dev_mailbox) instead of sending them: the mailer of
// svcd dev and of any deployment without SVC_SMTP_URL. `svcd dev mail` prints them.
type DevMailbox struct {
	db bun.IDB
}

// NewDevMailbox returns the dev mailbox on db.
func NewDevMailbox(db bun.IDB) *DevMailbox { return &DevMailbox{db: db} }

// Send stores m.
func (d *DevMailbox) Send(ctx context.Context, m Message) error {
	_, err := d.db.NewRaw("INSERT INTO dev_mailbox (to_address, subject, body) VALUES (?, ?, ?)", m.To, m.Subject, m.Body).Exec(ctx)
	if err != nil {
		return fmt.Errorf("store a message in the dev mailbox: %w", err)
	}
	return nil
}

// StoredMessage is a message of the dev mailbox.
type StoredMessage struct {
	ID        int64     `bun:"id" json:"id"`
	To        string    `bun:"to_address" json:"to"`
	Subject   string    `bun:"subject" json:"subject"`
	Body      string    `bun:"body" json:"body"`
	CreatedAt time.Time `bun:"created_at" json:"createdAt"`
}

// Last answers the newest n messages (to one address when to is set, compared in lower case), oldest first.
func (d *DevMailbox) Last(ctx context.Context, to string, n int) ([]StoredMessage, error) {
	if n <= 0 {
		n = 10
	}
	q := d.db.NewSelect().Table("dev_mailbox").Column("id", "to_address", "subject", "body", "created_at").
		OrderExpr("id DESC").Limit(int64(n))
	if to != "" {
		norm, err := NormalizeEmail(to)
		if err != nil {
			return nil, err
		}
		q = q.Where("to_address = ?", norm)
	}
	var out []StoredMessage
	if err := q.Scan(ctx, &out); err != nil {
		return nil, fmt.Errorf("read the dev mailbox: %w", err)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}
