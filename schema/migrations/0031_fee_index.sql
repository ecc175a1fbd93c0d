-- Fee index (issue 20, seed 002's token-fee reads): what the fee indexer (internal/feeindex) has read from
-- the FeesManager and its launch pools. Addresses, pool ids and hashes are lower-case 0x hex; amounts are
-- integers of the token's atomic units (wei for WETH and launch tokens).

-- The cursor: the last block of manager's chain whose events are all in fee_events. It moves in the same
-- transaction as the events it covers, so a restart resumes at last_block + 1 with no gap and no double.
CREATE TABLE fee_index_cursors (
    manager    text PRIMARY KEY,
    chain_id   bigint NOT NULL,
    last_block bigint NOT NULL CHECK (last_block >= -1),
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- A pool discovered from the FeesManager's Launch event. creator is the launch's creator;
-- creator_beneficiary follows UpdateBeneficiary events away from it (whose snapshot the token routes show).
CREATE TABLE fee_pools (
    pool_id             text PRIMARY KEY,
    manager             text NOT NULL,
    token               text NOT NULL UNIQUE,
    pool                text NOT NULL UNIQUE,
    token0              text NOT NULL,
    token1              text NOT NULL,
    creator             text NOT NULL,
    creator_beneficiary text NOT NULL,
    name                text NOT NULL,
    symbol              text NOT NULL,
    launch_block        bigint NOT NULL,
    launch_tx           text NOT NULL,
    launched_at         timestamptz NOT NULL
);
CREATE INDEX fee_pools_creator_beneficiary ON fee_pools (creator_beneficiary);

-- Every address that has held shares of a pool (the launch's four beneficiaries and every
-- UpdateBeneficiary recipient); its current shares are read from the chain.
CREATE TABLE fee_beneficiaries (
    pool_id     text NOT NULL REFERENCES fee_pools (pool_id),
    beneficiary text NOT NULL,
    PRIMARY KEY (pool_id, beneficiary)
);
CREATE INDEX fee_beneficiaries_beneficiary ON fee_beneficiaries (beneficiary);

-- The indexed events, each once: (block_number, tx_hash, log_index) is unique, so a replay of a block
-- range inserts nothing twice. amount0/amount1: Collect's and Release's amounts, a Swap's fee on the
-- side of its input token; beneficiary: Release's, UpdateBeneficiary's new one (old_beneficiary the old).
CREATE TABLE fee_events (
    block_number    bigint NOT NULL,
    block_hash      text NOT NULL,
    tx_hash         text NOT NULL,
    log_index       integer NOT NULL,
    kind            text NOT NULL CHECK (kind IN ('launch', 'collect', 'release', 'update_beneficiary', 'swap')),
    pool_id         text NOT NULL,
    beneficiary     text,
    old_beneficiary text,
    amount0         numeric(78, 0) NOT NULL DEFAULT 0,
    amount1         numeric(78, 0) NOT NULL DEFAULT 0,
    shares          numeric(78, 0),
    block_time      timestamptz NOT NULL,
    PRIMARY KEY (block_number, tx_hash, log_index)
);
CREATE INDEX fee_events_pool_kind ON fee_events (pool_id, kind, beneficiary);
CREATE INDEX fee_events_beneficiary ON fee_events (beneficiary, kind) WHERE beneficiary IS NOT NULL;
