//! Read-only queries for the contest server's pages, beside those of `store` that the
//! command line shares: the newest game (what a live page polls), the contest's totals,
//! an entry's results against each opponent, and what the server's rating history reads
//! to keep up with the ladder (where the stored ratings stand, the played games in a
//! range of ids, whether a game was committed after its id was rated).
//!
//! Not here: any write, and any statement of the ladder's own loop (`store`). A page's
//! layout is the server's.

use std::collections::BTreeMap;

use sqlx::Row;

use crate::LadderError;
use crate::rating::PlayedGame;
use crate::store::Store;

/// The contest's totals for one game.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Totals {
    /// Games played.
    pub played: u64,
    /// Games lost (could not be played).
    pub lost: u64,
    /// Mean turns of a played game.
    pub mean_turns: f64,
    /// Entries (every one ever seen).
    pub entries: u64,
    /// Versions, and those active.
    pub versions: u64,
    /// Versions still playing.
    pub active_versions: u64,
    /// Played games in which some seat was disqualified (in some call: `CallStats`'
    /// count of them is not 0).
    pub with_disqualification: u64,
}

/// An entry's results against one opponent (per side in games of pairs).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Against {
    /// The opponent entry.
    pub opponent: String,
    /// In games of pairs the entry's seat (0: the first side); `None` in free-for-all
    /// games, where all seats count together.
    pub side: Option<u32>,
    /// Games played together.
    pub games: u64,
    /// Games in which the entry scored more than the opponent.
    pub wins: u64,
    /// As much.
    pub draws: u64,
    /// Less.
    pub losses: u64,
}

/// A version's rating after one of its games.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Point {
    /// The game's id.
    pub game: i64,
    /// mu after it.
    pub mu: f64,
    /// sigma after it.
    pub sigma: f64,
}

impl Store {
    /// The largest game id of `game` (0 when none): what changes whenever a game is
    /// stored, read from the games' index alone.
    pub fn last_game(&self, game: &str) -> Result<i64, LadderError> {
        let max: Option<i64> = self.with_pool(async |pool| {
            sqlx::query_scalar("SELECT MAX(id) FROM games WHERE game = $1").bind(game).fetch_one(pool).await
        })?;
        Ok(max.unwrap_or(0))
    }

    /// The contest's totals for `game`.
    pub fn totals(&self, game: &str) -> Result<Totals, LadderError> {
        self.with_pool(async |pool| {
            let g = sqlx::query(
                "SELECT CAST(COALESCE(SUM(CASE WHEN status = 'played' THEN 1 ELSE 0 END), 0) AS BIGINT), \
                 CAST(COALESCE(SUM(CASE WHEN status = 'lost' THEN 1 ELSE 0 END), 0) AS BIGINT), \
                 CAST(COALESCE(AVG(CASE WHEN status = 'played' THEN turns END), 0.0) AS DOUBLE PRECISION) \
                 FROM games WHERE game = $1",
            )
            .bind(game)
            .fetch_one(pool)
            .await?;
            let v = sqlx::query(
                "SELECT COUNT(DISTINCT e.id), COUNT(v.id), CAST(COALESCE(SUM(v.active), 0) AS BIGINT) FROM entries e \
                 LEFT JOIN versions v ON v.entry_id = e.id WHERE e.game = $1",
            )
            .bind(game)
            .fetch_one(pool)
            .await?;
            let out: i64 = sqlx::query_scalar(
                "SELECT COUNT(DISTINCT s.game_id) FROM seats s JOIN games g ON g.id = s.game_id \
                 WHERE g.game = $1 AND s.stats LIKE '%\"disqualified\":%' \
                 AND s.stats NOT LIKE '%\"disqualified\":0,%' AND s.stats NOT LIKE '%\"disqualified\":0}%'",
            )
            .bind(game)
            .fetch_one(pool)
            .await?;
            Ok(Totals {
                played: g.get::<i64, _>(0) as u64,
                lost: g.get::<i64, _>(1) as u64,
                mean_turns: g.get(2),
                entries: v.get::<i64, _>(0) as u64,
                versions: v.get::<i64, _>(1) as u64,
                active_versions: v.get::<i64, _>(2) as u64,
                with_disqualification: out as u64,
            })
        })
    }

    /// The entry `name`'s results against each other entry in the played games of
    /// `game`: per side when `pairs`, else all seats together; by opponent name.
    pub fn against(&self, game: &str, name: &str, pairs: bool) -> Result<Vec<Against>, LadderError> {
        let rows = self.with_pool(async |pool| {
            sqlx::query(
                "SELECT a.seat, eo.name, COUNT(*), CAST(SUM(CASE WHEN a.score > b.score THEN 1 ELSE 0 END) AS BIGINT), \
                 CAST(SUM(CASE WHEN a.score = b.score THEN 1 ELSE 0 END) AS BIGINT), \
                 CAST(SUM(CASE WHEN a.score < b.score THEN 1 ELSE 0 END) AS BIGINT) FROM entries me \
                 JOIN versions va ON va.entry_id = me.id JOIN seats a ON a.version_id = va.id \
                 JOIN games g ON g.id = a.game_id JOIN seats b ON b.game_id = a.game_id AND b.seat <> a.seat \
                 JOIN versions vb ON vb.id = b.version_id JOIN entries eo ON eo.id = vb.entry_id \
                 WHERE me.game = $1 AND me.name = $2 AND g.status = 'played' AND eo.id <> me.id \
                 GROUP BY a.seat, eo.name",
            )
            .bind(game)
            .bind(name)
            .fetch_all(pool)
            .await
        })?;
        let mut by: BTreeMap<(String, Option<u32>), Against> = BTreeMap::new();
        for r in rows {
            let seat = r.get::<i64, _>(0) as u32;
            let opponent: String = r.get(1);
            let side = pairs.then_some(seat);
            let a = by.entry((opponent.clone(), side)).or_insert(Against {
                opponent,
                side,
                games: 0,
                wins: 0,
                draws: 0,
                losses: 0,
            });
            a.games += r.get::<i64, _>(2) as u64;
            a.wins += r.get::<Option<i64>, _>(3).unwrap_or(0) as u64;
            a.draws += r.get::<Option<i64>, _>(4).unwrap_or(0) as u64;
            a.losses += r.get::<Option<i64>, _>(5).unwrap_or(0) as u64;
        }
        Ok(by.into_values().collect())
    }

    /// Where the stored ratings of `game` stand: the largest game id they fold and the
    /// commit they read up to (`None` before the first rating).
    pub fn rated_through(&self, game: &str) -> Result<Option<(i64, i64)>, LadderError> {
        Ok(self.with_pool(async |pool| {
            sqlx::query_as("SELECT through, committed FROM rated WHERE game = $1").bind(game).fetch_optional(pool).await
        })?)
    }

    /// Whether a played game of `game` with an id of at most `upto` was committed after
    /// the commit `after` (a game the ratings past `upto` did not fold: they must be
    /// folded again from scratch).
    pub fn committed_late(&self, game: &str, after: i64, upto: i64) -> Result<bool, LadderError> {
        let n: i64 = self.with_pool(async |pool| {
            sqlx::query_scalar(
                "SELECT COUNT(*) FROM games WHERE game = $1 AND committed > $2 AND id <= $3 AND status = 'played'",
            )
            .bind(game)
            .bind(after)
            .bind(upto)
            .fetch_one(pool)
            .await
        })?;
        Ok(n > 0)
    }

    /// The played games of `game` with ids above `after` and at most `upto`, in id order,
    /// as the ratings see them.
    pub fn played_between(&self, game: &str, after: i64, upto: i64) -> Result<Vec<PlayedGame>, LadderError> {
        let rows: Vec<(i64, Option<i64>, i64, Option<i64>)> = self.with_pool(async |pool| {
            sqlx::query_as(
                "SELECT g.id, g.pairing, s.version_id, s.score FROM games g JOIN seats s ON s.game_id = g.id \
                 WHERE g.game = $1 AND g.status = 'played' AND g.id > $2 AND g.id <= $3 ORDER BY g.id, s.seat",
            )
            .bind(game)
            .bind(after)
            .bind(upto)
            .fetch_all(pool)
            .await
        })?;
        let mut games: Vec<PlayedGame> = Vec::new();
        for (id, pairing, version, score) in rows {
            let score = u32::try_from(score.unwrap_or(0)).unwrap_or(0);
            match games.last_mut() {
                Some(g) if g.id == id => g.seats.push((version, score)),
                _ => games.push(PlayedGame { id, pairing, seats: vec![(version, score)] }),
            }
        }
        Ok(games)
    }
}
