-- Sign-in by email with a one-time code (issue 27).
--
-- POST /auth/email/start records an attempt (otp_…) for a normalised address: the code's HMAC (never the
-- code), its expiry (10 minutes) and the wrong answers counted so far; the fifth wrong answer locks the
-- attempt. POST /auth/email/verify judges the address's latest attempt with the row locked (FOR UPDATE),
-- so one code signs in once whatever the number of API processes. A new start for an address whose latest
-- attempt is younger than the resend interval is refused, so the index serves "latest attempt of email".
CREATE TABLE email_signin_attempts (
    id          text PRIMARY KEY,
    email       text NOT NULL,
    code_hash   bytea NOT NULL,
    expires_at  timestamptz NOT NULL,
    attempts    integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    consumed_at timestamptz,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX email_signin_attempts_email ON email_signin_attempts (email, created_at DESC);
CREATE INDEX email_signin_attempts_created ON email_signin_attempts (created_at);

-- The address an account signs in with: one account per address and one address per account, recorded
-- by the first sign-in, which creates the account once its terms were accepted.
CREATE TABLE account_emails (
    email             text PRIMARY KEY,
    account_id        text NOT NULL UNIQUE REFERENCES accounts (id) ON DELETE CASCADE,
    terms_accepted_at timestamptz NOT NULL,
    created_at        timestamptz NOT NULL DEFAULT now()
);

-- The dev mailbox: where the messages go when no SMTP server is configured (SVC_SMTP_URL unset; svcd dev).
-- `svcd dev mail` prints them from any terminal. A deployment that sends mail leaves it empty.
CREATE TABLE dev_mailbox (
    id         bigserial PRIMARY KEY,
    to_address text NOT NULL,
    subject    text NOT NULL,
    body       text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX dev_mailbox_to ON dev_mailbox (to_address, id DESC);
