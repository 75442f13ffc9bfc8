//! The arena's ladder: a contest kept in a database (an SQLite file, or PostgreSQL),
//! whose entries play rated games for as long as it runs (on one machine, or by workers
//! on many), and which new bots and new versions of bots join between batches of games.
//!
//! - [`store`]: the database, SQLite or PostgreSQL on one code (schema by versioned
//!   migrations, one transaction per game, the lock that keeps a second ladder off it)
//!   and every query the commands show;
//! - [`rating`]: Weng-Lin (OpenSkill) ratings recomputed from the played games in game-id
//!   order, so that they are a function of the set of games;
//! - [`schedule`]: matchmaking, the rule that picks each game's lineup;
//! - [`settled`]: whether the top places are settled (`arena::decide` on the stored
//!   games of the best current versions);
//! - [`run`]: the ladder itself: scan the bot directories, record entries and versions,
//!   schedule a batch, play it through the arena's tournament machinery (isolation,
//!   verdicts), commit each game, rate;
//! - [`queue`] and [`work`]: workers, on one machine or many, that lease the ladder's
//!   games from the database (a lease that expires, a commit that stores each game once)
//!   and schedule the next batch as [`run`] would.
//!
//! Not here: the command line (`arena ladder ...` in the binary's `cli/ladder.rs`), bot
//! discovery and its options (the binary hands [`run::run`] a function that scans), and
//! playing a game (`arena::tournament::play_one`). Errors are [`LadderError`].

pub mod accounts;
pub mod queue;
pub mod rating;
pub mod run;
pub mod schedule;
pub mod settled;
pub mod store;
pub mod views;
pub mod work;

use std::path::PathBuf;

/// What can go wrong in the ladder, each in one line.
#[derive(Debug, thiserror::Error)]
pub enum LadderError {
    /// The database cannot be opened (or is not a database, or its server cannot be
    /// reached). `path` is the file, or the URL with its password hidden.
    #[error("{path}: cannot open the ladder database: {why}")]
    Open {
        /// The database file.
        path: PathBuf,
        /// Why, in one line.
        why: String,
    },
    /// The database's schema is newer than this program knows.
    #[error(
        "{path}: schema version {version} is newer than this arena knows (it knows up to {latest}); use a newer arena"
    )]
    Newer {
        /// The database file.
        path: PathBuf,
        /// The newest migration applied to it that this program does not know.
        version: i64,
        /// The newest migration this program knows.
        latest: i64,
    },
    /// The schema could not be brought to this program's version.
    #[error("{path}: cannot upgrade the schema: {why}")]
    Migrate {
        /// The database file.
        path: PathBuf,
        /// Why, in one line.
        why: String,
    },
    /// Another ladder holds the database.
    #[error("{path}: another ladder is running on this database ({lock} is held); stop it first")]
    Busy {
        /// The database file.
        path: PathBuf,
        /// The lock: a lock file, or PostgreSQL's advisory lock.
        lock: String,
    },
    /// A query failed.
    #[error("ladder database: {0}")]
    Db(String),
    /// A statement found the SQLite database locked (`SQLITE_BUSY`, `SQLITE_LOCKED`) for
    /// longer than SQLite's own wait: the writes that may be tried again are
    /// (`Store::retrying`), until [`LadderError::Locked`].
    #[error("ladder database: {0}")]
    DbLocked(String),
    /// A lock on the database, or on its scheduling lock file, could not be had within
    /// the store's lock wait (`store::LOCK_WAIT`).
    #[error(
        "{path}: still locked after {waited} s ({why}); another process holds a lock on it (`fuser -v {path}*` shows which)"
    )]
    Locked {
        /// The database file, or the lock file.
        path: PathBuf,
        /// Seconds waited.
        waited: u64,
        /// What SQLite (or the lock) said.
        why: String,
    },
    /// What was asked for is not in the database.
    #[error("{0}")]
    NotFound(String),
    /// Fewer than the two entries a game needs.
    #[error("{0}")]
    TooFew(String),
    /// A worker cannot play the games in the queue (scheduled with other game options).
    #[error("{0}")]
    Mismatch(String),
}

impl From<sqlx::Error> for LadderError {
    /// SQLite's `SQLITE_BUSY` and `SQLITE_LOCKED` (and their extended codes) are
    /// [`LadderError::DbLocked`]; every other error is [`LadderError::Db`].
    fn from(e: sqlx::Error) -> LadderError {
        let line = e.to_string().replace('\n', " ");
        let code = match &e {
            // SQLite's codes only (PostgreSQL's are SQLSTATEs).
            sqlx::Error::Database(d) if d.try_downcast_ref::<sqlx::sqlite::SqliteError>().is_some() => {
                d.code().and_then(|c| c.parse::<i64>().ok())
            }
            _ => None,
        };
        match code {
            // The primary code is the low byte of an extended one.
            Some(c) if matches!(c & 0xff, 5 | 6) => LadderError::DbLocked(line),
            _ => LadderError::Db(line),
        }
    }
}
