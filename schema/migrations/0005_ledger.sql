-- A double-entry credit ledger in millicredits (1 credit = 1000). Every movement is a transaction whose
-- postings sum to zero across books: an account's "available" and "held" credits, and the platform's
-- "grants", "revenue" and "purchases" books. credit_balances keeps each account's available and held
-- credits in step with the postings; its CHECK constraints make a negative balance impossible.

CREATE TABLE ledger_transactions (
    id          text PRIMARY KEY,
    account_id  text NOT NULL REFERENCES accounts (id),
    kind        text NOT NULL CHECK (kind IN ('grant', 'hold', 'settle', 'release', 'charge', 'refund', 'top_up')),
    reference   text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (account_id, kind, reference)
);

CREATE TABLE ledger_postings (
    transaction_id  text NOT NULL REFERENCES ledger_transactions (id),
    book            text NOT NULL,
    millicredits    bigint NOT NULL CHECK (millicredits <> 0),
    PRIMARY KEY (transaction_id, book)
);

CREATE TABLE credit_balances (
    account_id  text PRIMARY KEY REFERENCES accounts (id),
    available   bigint NOT NULL DEFAULT 0 CHECK (available >= 0),
    held        bigint NOT NULL DEFAULT 0 CHECK (held >= 0),
    updated_at  timestamptz NOT NULL DEFAULT now()
);

-- A hold reserves credits for a call whose exact price is known only afterwards.
CREATE TABLE credit_holds (
    id            text PRIMARY KEY,
    account_id    text NOT NULL REFERENCES accounts (id),
    millicredits  bigint NOT NULL CHECK (millicredits > 0),
    status        text NOT NULL DEFAULT 'held' CHECK (status IN ('held', 'settled', 'released')),
    charged       bigint,
    created_at    timestamptz NOT NULL DEFAULT now(),
    closed_at     timestamptz
);

-- Starting credits granted before the ledger existed move into it.
INSERT INTO ledger_transactions (id, account_id, kind, reference, created_at)
    SELECT id, account_id, 'grant', reference, created_at FROM credit_entries;
INSERT INTO ledger_postings (transaction_id, book, millicredits)
    SELECT id, 'account:available', millicredits FROM credit_entries
    UNION ALL SELECT id, 'platform:grants', -millicredits FROM credit_entries;
INSERT INTO credit_balances (account_id, available)
    SELECT account_id, sum(millicredits) FROM credit_entries GROUP BY account_id;
DROP TABLE credit_entries;
