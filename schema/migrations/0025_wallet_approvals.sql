-- Approvals and screening of wallet sends (issue 19). A send whose policy or screening verdict is
-- needs_approval waits in pending_approval for an approval of kind wallet_transaction, linked both ways
-- (approvals.transaction_id, wallet_transactions.approval_id). screening records the screening step's
-- verdict ({verdict: allow|needs_approval|block, rule, reason}) on every transaction.
ALTER TABLE approvals DROP CONSTRAINT approvals_kind_check;
ALTER TABLE approvals ADD CONSTRAINT approvals_kind_check CHECK (kind IN ('run', 'service_action', 'wallet_transaction'));
ALTER TABLE approvals ADD COLUMN transaction_id text;

ALTER TABLE wallet_transactions ADD COLUMN approval_id text;
ALTER TABLE wallet_transactions ADD COLUMN screening jsonb;

-- Screening counts a wallet's recent sends (bursts) and its past recipients (first-time recipients).
CREATE INDEX wallet_transactions_recipient ON wallet_transactions (wallet_id, to_address);
