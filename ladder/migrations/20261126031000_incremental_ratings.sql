-- The ladder's schema, version 2: ratings updated incrementally, and the game's own
-- statistic with its interval.
--
-- Each game gets the number of its commit (per game kind: 1, 2, ...), so that the
-- ratings can be brought up to date from the games committed since they were computed.
-- Games stored before this version are numbered by id.
ALTER TABLE games ADD COLUMN committed BIGINT;
UPDATE games SET committed = id;
CREATE INDEX games_by_commit ON games (game, committed);

-- The whole state of the ratings' fold over the games in id order, so that games with
-- larger ids extend it exactly as a fold from scratch would: per version, beside mu and
-- sigma, the sums behind its mean score and (games of pairs) its rated matches and
-- their points; and the game's own statistic with its 95% interval.
ALTER TABLE ratings ADD COLUMN score_sum DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE ratings ADD COLUMN scored BIGINT NOT NULL DEFAULT 0;
ALTER TABLE ratings ADD COLUMN matches BIGINT NOT NULL DEFAULT 0;
ALTER TABLE ratings ADD COLUMN points DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE ratings ADD COLUMN stat DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE ratings ADD COLUMN stat_low DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE ratings ADD COLUMN stat_high DOUBLE PRECISION NOT NULL DEFAULT 0;

-- Per game kind: the largest game id folded (through), the largest commit number folded
-- (committed), the matches of pairs waiting for their second game (JSON), and what the
-- statistic measures (`median score`, ...).
ALTER TABLE rated ADD COLUMN through BIGINT NOT NULL DEFAULT 0;
ALTER TABLE rated ADD COLUMN committed BIGINT NOT NULL DEFAULT 0;
ALTER TABLE rated ADD COLUMN pending TEXT NOT NULL DEFAULT '[]';
ALTER TABLE rated ADD COLUMN statistic TEXT NOT NULL DEFAULT '';

-- How many played games each pair of versions (smaller id first) sat in together: the
-- matchmaking's input, kept with the ratings instead of counted over every seat.
CREATE TABLE meetings (
    game TEXT NOT NULL,
    a BIGINT NOT NULL,
    b BIGINT NOT NULL,
    n BIGINT NOT NULL,
    PRIMARY KEY (game, a, b)
);

-- The ratings of an older schema are recomputed from scratch at the next read.
DELETE FROM rated;
