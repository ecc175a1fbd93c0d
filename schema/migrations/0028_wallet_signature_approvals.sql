-- Approvals of wallet signatures (issue 19). A signature whose policy verdict is needs_approval (a token
-- permit above approvalAboveUsd, a signed transaction over the threshold) waits in pending_approval for an
-- approval of kind wallet_signature, linked both ways (approvals.signature_id,
-- wallet_signatures.approval_id); its workflow walletsig/<id> signs once the approval is granted, or
-- records it rejected (its reserved spend released) when it is rejected, expires or is cancelled.
ALTER TABLE approvals DROP CONSTRAINT approvals_kind_check;
ALTER TABLE approvals ADD CONSTRAINT approvals_kind_check
    CHECK (kind IN ('run', 'service_action', 'wallet_transaction', 'wallet_signature'));
ALTER TABLE approvals ADD COLUMN signature_id text;

ALTER TABLE wallet_signatures ADD COLUMN approval_id text;
ALTER TABLE wallet_signatures DROP CONSTRAINT wallet_signatures_status_check;
ALTER TABLE wallet_signatures ADD CONSTRAINT wallet_signatures_status_check
    CHECK (status IN ('pending_approval', 'queued', 'signed', 'failed', 'rejected'));

-- The sweep looks for signatures a dying request left unstarted.
CREATE INDEX wallet_signatures_unsigned ON wallet_signatures (created_at) WHERE status IN ('queued', 'pending_approval');
