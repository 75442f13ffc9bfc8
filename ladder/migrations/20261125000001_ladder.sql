-- The ladder's schema, version 1. Types and statements are those SQLite and PostgreSQL
-- share (BIGINT, DOUBLE PRECISION, TEXT); the one SQLite spelling is BLOB (BYTEA on
-- PostgreSQL). Unsigned 64-bit values (seeds) are stored as the BIGINT of the same bits.

-- Who enters. Until contests have accounts, an entrant is named after its entry.
CREATE TABLE entrants (
    id BIGINT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);

-- An entry: a bot of one game, by its name in the bot directories.
CREATE TABLE entries (
    id BIGINT PRIMARY KEY,
    entrant_id BIGINT NOT NULL REFERENCES entrants (id),
    game TEXT NOT NULL,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    path TEXT NOT NULL,
    UNIQUE (game, name)
);

-- A version of an entry: the SHA-256 of the file that runs. A changed file is a new
-- version with its own rating; the entry's other versions are retired (active = 0),
-- their games kept.
CREATE TABLE versions (
    id BIGINT PRIMARY KEY,
    entry_id BIGINT NOT NULL REFERENCES entries (id),
    sha256 TEXT NOT NULL,
    size BIGINT NOT NULL,
    active BIGINT NOT NULL,
    retired TEXT,
    UNIQUE (entry_id, sha256)
);

-- Files of the bot directories that did not load, each with its one-line reason (as
-- of the last scan).
CREATE TABLE load_errors (
    game TEXT NOT NULL,
    path TEXT NOT NULL,
    reason TEXT NOT NULL,
    PRIMARY KEY (game, path)
);

-- One game. Its id is given when it is scheduled, and its seed derives from the ladder's
-- seed and that id. status: 'played', or 'lost' (could not be played; reason says why).
-- pairing: in games of pairs (hex), the id of the first game of the match of two (each
-- side once) it belongs to; null otherwise.
CREATE TABLE games (
    id BIGINT PRIMARY KEY,
    game TEXT NOT NULL,
    seed BIGINT NOT NULL,
    ladder_seed BIGINT NOT NULL,
    rules_version BIGINT NOT NULL,
    options TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT,
    turns BIGINT,
    pairing BIGINT,
    replay BLOB
);
CREATE INDEX games_by_game ON games (game, id);

-- The seats of a game, in seat order: the version seated, its score and its calls'
-- verdicts (errors, overruns, disqualification, first messages; JSON).
CREATE TABLE seats (
    game_id BIGINT NOT NULL REFERENCES games (id),
    seat BIGINT NOT NULL,
    version_id BIGINT NOT NULL REFERENCES versions (id),
    score BIGINT,
    stats TEXT,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX seats_by_version ON seats (version_id, game_id);

-- The ratings, as recomputed from the played games in id order: a cache of a function
-- of the games table, with (in rated) how many played games of each game it was
-- computed from, so that a reader sees when it is stale (a ladder killed between a
-- commit and its next rating) and recomputes it.
CREATE TABLE ratings (
    version_id BIGINT PRIMARY KEY REFERENCES versions (id),
    mu DOUBLE PRECISION NOT NULL,
    sigma DOUBLE PRECISION NOT NULL,
    rated_games BIGINT NOT NULL,
    mean_score DOUBLE PRECISION NOT NULL
);

CREATE TABLE rated (
    game TEXT PRIMARY KEY,
    played BIGINT NOT NULL
);
