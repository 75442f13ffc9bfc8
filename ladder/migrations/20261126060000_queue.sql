-- The ladder's schema, version 4: the queue of scheduled games that workers lease
-- (`arena ladder work`, `ladder/src/queue.rs`).
--
-- A game is scheduled here with the id it keeps (and the seed derived from it), its
-- lineup and the options and rules it is played under; a worker leases it for a while
-- (worker, lease_until: the database's clock, milliseconds since 1970) and renews the
-- lease while it plays. Its commit deletes its row here, only if that worker still holds
-- the lease, in the transaction that stores it in games; a lease that expired (its worker
-- was killed) is leased again by another worker. id is the primary key here and in games:
-- a game is committed once, whoever plays it and however often.
CREATE TABLE queue (
    id BIGINT PRIMARY KEY,
    game TEXT NOT NULL,
    seed BIGINT NOT NULL,
    ladder_seed BIGINT NOT NULL,
    rules_version BIGINT NOT NULL,
    options TEXT NOT NULL,
    pairing BIGINT,
    -- The versions seated, in seat order (JSON array of version ids).
    lineup TEXT NOT NULL,
    worker TEXT,
    lease_until BIGINT,
    -- How often it was leased (more than once: a worker lost it).
    leases BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX queue_by_game ON queue (game, id);
