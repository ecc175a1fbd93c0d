-- Message and transaction signatures of managed wallets (issue 19): personal_sign (EIP-191),
-- eth_signTypedData_v4 (EIP-712) and eth_signTransaction (signed, never broadcast). Each is a row (sig_…)
-- recorded queued with the policy's verdict, then signed once by the workflow walletsig/<id>, whose
-- activity opens the key. request holds what was asked (the message, the typed data, or the resolved
-- unsigned transaction), summary what the quote showed of it. A signature that spends (a token permit, a
-- signed transaction) reserves its USD value in wallet_spends under the wallet's row lock, like a send;
-- a signature that is refused at signing (the wallet was paused meanwhile) releases it.
CREATE TABLE wallet_signatures (
    id             text PRIMARY KEY,
    wallet_id      text NOT NULL REFERENCES wallets (id),
    account_id     text NOT NULL,
    project_id     text,
    key_id         text,
    type           text NOT NULL CHECK (type IN ('personal_sign', 'eth_signTypedData_v4', 'eth_signTransaction')),
    request        jsonb NOT NULL,
    summary        jsonb NOT NULL,
    digest         text NOT NULL,
    usd_cents      bigint,
    verdict        jsonb NOT NULL,
    status         text NOT NULL CHECK (status IN ('queued', 'signed', 'failed')),
    signature      text,
    signed_tx      bytea,
    error_code     text,
    error_message  text,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    signed_at      timestamptz
);

CREATE INDEX wallet_signatures_wallet ON wallet_signatures (wallet_id, created_at DESC, id DESC);
