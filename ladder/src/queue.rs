//! The queue of scheduled games that workers lease (`arena ladder work`; the table of the
//! migration `20261126060000_queue.sql`): scheduling a batch into it, leasing games from
//! it for a while (PostgreSQL: `SELECT ... FOR UPDATE SKIP LOCKED`, so that workers never
//! wait for each other; SQLite: one `BEGIN IMMEDIATE` transaction at a time), renewing and
//! releasing leases, and the commit that stores a game only while its worker still holds
//! the lease, deleting its row in the same transaction.
//!
//! A game's id is the primary key of both `queue` and `games`: whatever the workers do
//! (killed mid-game, a lease expired and taken over, a commit retried), a game is stored
//! once. Leases are timed by the database's clock ([`Store::now_sql`]).
//!
//! Not here: what is scheduled (`run::plan_batch`), the workers' loop (`work`).

use std::collections::BTreeMap;
use std::time::Duration;

use sqlx::Row;
use sqlx::any::AnyRow;

use crate::LadderError;
use crate::store::{Backend, GameRow, Store, insert_game};

/// A game in the queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Queued {
    /// Its id, kept when it is committed.
    pub id: i64,
    /// The game (`zombies`, ...).
    pub game: String,
    /// Its seed (`game_seed(ladder_seed, id)`).
    pub seed: u64,
    /// The ladder's seed.
    pub ladder_seed: u64,
    /// The rules version it is to be played under.
    pub rules_version: u16,
    /// The game's options, as JSON.
    pub options: String,
    /// Games of pairs: the id of its match's first game.
    pub pairing: Option<i64>,
    /// The versions seated, in seat order.
    pub lineup: Vec<i64>,
    /// How often it has been leased, this lease included.
    pub leases: u64,
    /// The worker holding (or that last held) its lease.
    pub worker: Option<String>,
    /// Whether its lease runs now (as read; a game just leased: true).
    pub held: bool,
}

fn bits_in(seed: u64) -> i64 {
    i64::from_ne_bytes(seed.to_ne_bytes())
}

fn bits_out(seed: i64) -> u64 {
    u64::from_ne_bytes(seed.to_ne_bytes())
}

fn queued(r: &AnyRow) -> Queued {
    Queued {
        id: r.get(0),
        game: r.get(1),
        seed: bits_out(r.get(2)),
        ladder_seed: bits_out(r.get(3)),
        rules_version: u16::try_from(r.get::<i64, _>(4)).unwrap_or(u16::MAX),
        options: r.get(5),
        pairing: r.get(6),
        lineup: serde_json::from_str(&r.get::<String, _>(7)).unwrap_or_default(),
        leases: r.get::<i64, _>(8) as u64,
        worker: r.get(9),
        held: r.get::<i64, _>(10) == 1,
    }
}

/// The columns [`queued`] reads, with `now` the database's clock.
fn columns(now: &str) -> String {
    format!(
        "id, game, seed, ladder_seed, rules_version, options, pairing, lineup, leases, worker, \
         CASE WHEN worker IS NOT NULL AND lease_until >= {now} THEN 1 ELSE 0 END"
    )
}

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX / 4)
}

impl Store {
    /// Puts `games` into the queue, in one transaction.
    pub fn enqueue(&self, games: &[Queued]) -> Result<(), LadderError> {
        self.retrying(async || {
            let mut tx = self.begin_write().await?;
            for g in games {
                sqlx::query(
                    "INSERT INTO queue (id, game, seed, ladder_seed, rules_version, options, pairing, lineup, leases) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0)",
                )
                .bind(g.id)
                .bind(&g.game)
                .bind(bits_in(g.seed))
                .bind(bits_in(g.ladder_seed))
                .bind(i64::from(g.rules_version))
                .bind(&g.options)
                .bind(g.pairing)
                .bind(serde_json::to_string(&g.lineup).unwrap_or_else(|_| "[]".to_owned()))
                .execute(&mut *tx)
                .await?;
            }
            tx.commit().await?;
            Ok(())
        })
    }

    /// Leases to `worker` for `lease` at most `n` games of `game` played under
    /// `rules_version` and `options` (a worker plays only the games scheduled as it would
    /// play them) that nobody holds or whose lease expired, smallest ids first.
    pub fn lease(
        &self,
        game: &str,
        rules_version: u16,
        options: &str,
        worker: &str,
        lease: Duration,
        n: usize,
    ) -> Result<Vec<Queued>, LadderError> {
        if n == 0 {
            return Ok(Vec::new());
        }
        let now = self.now_sql();
        let (begin_immediate, skip_locked) = match self.backend() {
            Backend::Sqlite => (true, ""),
            Backend::Postgres => (false, " FOR UPDATE SKIP LOCKED"),
        };
        self.retrying(async || {
            let mut tx = if begin_immediate { self.begin_write().await? } else { self.pool().begin().await? };
            let rows = sqlx::query(&format!(
                "SELECT {} FROM queue WHERE game = $1 AND rules_version = $2 AND options = $3 \
                 AND (worker IS NULL OR lease_until < {now}) ORDER BY id LIMIT $4{skip_locked}",
                columns(now)
            ))
            .bind(game)
            .bind(i64::from(rules_version))
            .bind(options)
            .bind(n as i64)
            .fetch_all(&mut *tx)
            .await?;
            let mut games: Vec<Queued> = rows.iter().map(queued).collect();
            for g in &mut games {
                sqlx::query(&format!(
                    "UPDATE queue SET worker = $1, lease_until = {now} + $2, leases = leases + 1 WHERE id = $3"
                ))
                .bind(worker)
                .bind(millis(lease))
                .bind(g.id)
                .execute(&mut *tx)
                .await?;
                g.leases += 1;
                g.worker = Some(worker.to_owned());
                g.held = true;
            }
            tx.commit().await?;
            Ok(games)
        })
    }

    /// Extends `worker`'s leases of the games `ids` to `lease` from now; how many it still
    /// held.
    pub fn renew(&self, worker: &str, ids: &[i64], lease: Duration) -> Result<u64, LadderError> {
        let now = self.now_sql();
        self.retrying(async || {
            let mut held = 0;
            for &id in ids {
                let done =
                    sqlx::query(&format!("UPDATE queue SET lease_until = {now} + $1 WHERE id = $2 AND worker = $3"))
                        .bind(millis(lease))
                        .bind(id)
                        .bind(worker)
                        .execute(self.pool())
                        .await?;
                held += done.rows_affected();
            }
            Ok(held)
        })
    }

    /// Gives up `worker`'s leases of the games `ids` (another worker may lease them at
    /// once).
    pub fn release(&self, worker: &str, ids: &[i64]) -> Result<(), LadderError> {
        self.retrying(async || {
            for &id in ids {
                sqlx::query("UPDATE queue SET worker = NULL, lease_until = NULL WHERE id = $1 AND worker = $2")
                    .bind(id)
                    .bind(worker)
                    .execute(self.pool())
                    .await?;
            }
            Ok(())
        })
    }

    /// Commits game `g` as `worker` played it, in one transaction: only if `worker` still
    /// holds its lease (its queue row is deleted in the same transaction). False when it
    /// does not (its lease expired and another worker took it over, or it was committed):
    /// nothing is written.
    pub fn commit_leased(&self, g: &GameRow, worker: &str) -> Result<bool, LadderError> {
        self.retrying(async || {
            let mut tx = self.begin_write().await?;
            let held = sqlx::query("DELETE FROM queue WHERE id = $1 AND worker = $2")
                .bind(g.id)
                .bind(worker)
                .execute(&mut *tx)
                .await?;
            if held.rows_affected() != 1 {
                tx.rollback().await?;
                return Ok(false);
            }
            insert_game(&mut tx, g).await?;
            tx.commit().await?;
            Ok(true)
        })
    }

    /// The games of `game` in the queue (leased or not).
    pub fn queued(&self, game: &str) -> Result<Vec<Queued>, LadderError> {
        let rows = self.block_on(
            sqlx::query(&format!("SELECT {} FROM queue WHERE game = $1 ORDER BY id", columns(self.now_sql())))
                .bind(game)
                .fetch_all(self.pool()),
        )?;
        Ok(rows.iter().map(queued).collect())
    }

    /// How many games of `game` are in the queue.
    pub fn queue_len(&self, game: &str) -> Result<u64, LadderError> {
        let n: i64 = self.block_on(
            sqlx::query_scalar("SELECT COUNT(*) FROM queue WHERE game = $1").bind(game).fetch_one(self.pool()),
        )?;
        Ok(n as u64)
    }

    /// How many games of `game` are stored (played or lost).
    pub fn game_count(&self, game: &str) -> Result<u64, LadderError> {
        let n: i64 = self.block_on(
            sqlx::query_scalar("SELECT COUNT(*) FROM games WHERE game = $1").bind(game).fetch_one(self.pool()),
        )?;
        Ok(n as u64)
    }

    /// The entry name and SHA-256 of each of the versions `ids` (those that exist).
    pub fn version_files(&self, ids: &[i64]) -> Result<BTreeMap<i64, (String, String)>, LadderError> {
        self.block_on(async {
            let mut out = BTreeMap::new();
            for &id in ids {
                let row = sqlx::query(
                    "SELECT e.name, v.sha256 FROM versions v JOIN entries e ON e.id = v.entry_id WHERE v.id = $1",
                )
                .bind(id)
                .fetch_optional(self.pool())
                .await?;
                if let Some(r) = row {
                    out.insert(id, (r.get(0), r.get(1)));
                }
            }
            Ok(out)
        })
    }
}
