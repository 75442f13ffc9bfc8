-- The ladder's schema, version 3: each version's scores as counts, so that its statistic
-- is recomputed from a few rows (one per distinct score) instead of one per game.
-- Games of pairs count the first seat's scores.
CREATE TABLE score_counts (
    version_id BIGINT NOT NULL REFERENCES versions (id),
    score BIGINT NOT NULL,
    n BIGINT NOT NULL,
    PRIMARY KEY (version_id, score)
);

-- Filled by the next update of the ratings, from scratch.
DELETE FROM rated;
