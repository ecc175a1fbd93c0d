-- Credit leases. A lease is a hold one API process makes on a busy account for many of its paid calls,
-- so they are admitted from the process's memory instead of each locking the account's balance row.
-- Each call's charge is a row of credit_lease_charges, committed with the answer that reports it and
-- carrying the call's reference (a retried charge posts once). When the lease closes, its charges are
-- posted to the ledger in one settle transaction (held -> revenue) and the rest goes back to available.
ALTER TABLE credit_holds ADD COLUMN lease boolean NOT NULL DEFAULT false;

-- No foreign key to credit_holds: every charge would lock its lease's row, and all calls of a lease
-- would queue on it. The charge statement reads the lease instead, under an advisory lock the close
-- takes exclusively (see internal/ledger/lease.go): a charge to a lease that is not open is made 0,
-- which the CHECK refuses, so it fails with its answer rather than being lost.
CREATE TABLE credit_lease_charges (
    hold_id       text NOT NULL,
    reference     text NOT NULL,
    millicredits  bigint NOT NULL CONSTRAINT credit_lease_charges_lease_open CHECK (millicredits > 0),
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (hold_id, reference)
);
