-- Every account has a balance row, so a ledger statement can rely on it being there.
INSERT INTO credit_balances (account_id) SELECT id FROM accounts ON CONFLICT (account_id) DO NOTHING;

-- Held credits are the sum of open holds (credit_holds), so settling a hold at its full price does not
-- touch the account's balance row: the row every paid call of the account must lock.
ALTER TABLE credit_balances DROP COLUMN held;
CREATE INDEX credit_holds_open ON credit_holds (account_id) WHERE status = 'held';
