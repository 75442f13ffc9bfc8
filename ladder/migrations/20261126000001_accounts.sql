-- The contest server's tables (schema version 2): the entrants' tokens and the bots they
-- submitted. Only additions: a ladder without a server never reads them.

-- An entrant's secret token, as the SHA-256 of its text (the token itself is shown once,
-- when created, and never stored). admin = 1: the host's token, which may retire any bot.
CREATE TABLE tokens (
    entrant_id BIGINT PRIMARY KEY REFERENCES entrants (id),
    token_sha256 TEXT NOT NULL UNIQUE,
    admin BIGINT NOT NULL
);

-- Every bot submitted through the server, accepted or not: who, which entry (game and
-- name), the file's SHA-256, size and kind, and the check's one-line result. status:
-- 'accepted' (it plays), 'rejected' (the check failed: message says why), 'replaced'
-- (a later submission of the same entry was accepted), 'retired' (taken out of the
-- ladder by its entrant or the host). created: seconds since 1970.
CREATE TABLE submissions (
    id BIGINT PRIMARY KEY,
    entrant_id BIGINT NOT NULL REFERENCES entrants (id),
    game TEXT NOT NULL,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    size BIGINT NOT NULL,
    status TEXT NOT NULL,
    message TEXT NOT NULL,
    created BIGINT NOT NULL
);
CREATE INDEX submissions_by_entry ON submissions (game, name, id);
CREATE INDEX submissions_by_entrant ON submissions (entrant_id, id);
