-- Auto top-up rounds (issue 25): each time workflow autotopup/<accountId> finds the balance under the
-- account's threshold it records a round (run_key names the workflow's check, so a retried step finds
-- it), the fee claims it started (ids derived from account, token and round) and, once they ended, the
-- native amount they released and the credits it posted (ledger reference autotopup:<claimId>).
CREATE TABLE autotopup_rounds (
    account_id             text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    round                  integer NOT NULL CHECK (round > 0),
    run_key                text NOT NULL,
    available_millicredits bigint NOT NULL,
    claim_ids              text[] NOT NULL DEFAULT '{}',
    claimed_wei            numeric(78, 0) NOT NULL DEFAULT 0,
    credited_millicredits  bigint NOT NULL DEFAULT 0,
    started_at             timestamptz NOT NULL DEFAULT now(),
    finished_at            timestamptz,
    PRIMARY KEY (account_id, round),
    UNIQUE (account_id, run_key)
);
