//! The ladder's database: opening it (an SQLite file, created when missing, or a
//! PostgreSQL database named by a `postgres://` URL; its schema brought up to date by the
//! embedded migrations of `ladder/migrations/`, or refused in one line when it is newer
//! than this program), the locks that keep a second ladder off it, and every statement
//! the ladder runs, each write in one transaction.
//!
//! One code for both databases: sqlx's `Any` driver, which picks SQLite or PostgreSQL
//! from the URL at run time, with the statements written in the SQL both speak (`$n`
//! parameters, no upsert extensions, ids given by the ladder, sums cast to `BIGINT`).
//! What differs is kept here and small: the schema's one type name (`BLOB`, `BYTEA` on
//! PostgreSQL: [`dialect`]), how a write transaction takes the write lock (SQLite's
//! `BEGIN IMMEDIATE`, PostgreSQL's transaction-scoped advisory lock), the database's clock
//! ([`Store::now_sql`]), and the ladder lock (a lock file beside an SQLite database, a
//! session advisory lock on PostgreSQL). Seeds, unsigned 64-bit, are stored as the
//! `BIGINT` of the same bits. Calls block: the store owns a small tokio runtime and waits
//! on sqlx there, so the rest of the arena stays synchronous.
//!
//! No wait is without a bound: a write that finds an SQLite database locked (by another
//! process, or by any process that could open its `-shm` file: a lock through a read-only
//! descriptor is enough) is tried again for up to [`LOCK_WAIT`] ([`Store::lock_wait`]), and
//! so is the scheduling lock's file; past it the ladder says, in one line, which file is
//! held ([`LadderError::Locked`]). The lock files are made readable by their owner only;
//! the CLI hides the database's directory from every box (`hide_database`).
//!
//! Not here: what to play (`schedule`), the ratings' arithmetic (`rating`), playing, the
//! queue of games that workers lease (`queue`).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fs::{File, TryLockError};
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::migrate::{MigrateError, Migration, Migrator};
use sqlx::{Any, AnyConnection, AnyPool, Connection, Row};

use crate::LadderError;
use arena::game::Ranking;

use crate::rating::{Fold, PlayedGame, Rated, Statistic, Waiting, statistic, statistic_name};
use crate::schedule::{Candidate, Meetings};

/// The schema's migrations, embedded in the program.
pub static MIGRATOR: Migrator = sqlx::migrate!();

/// Which database a store is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// An SQLite file.
    Sqlite,
    /// A PostgreSQL server.
    Postgres,
}

impl Backend {
    /// The backend a `--db` value names: a `postgres://` or `postgresql://` URL, else an
    /// SQLite file.
    pub fn of(db: &Path) -> Backend {
        let text = db.to_string_lossy();
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            Backend::Postgres
        } else {
            Backend::Sqlite
        }
    }
}

/// The key of the ladder's session advisory lock on PostgreSQL (exclusive for `ladder
/// run`, shared for `ladder work`): the lock file's counterpart.
const LADDER_LOCK_KEY: i64 = 0x6172_656e_615f_6c64; // "arena_ld"
/// The key of the session advisory lock of the one worker that schedules a batch.
const SCHEDULE_LOCK_KEY: i64 = 0x6172_656e_615f_7363; // "arena_sc"
/// The key of the transaction advisory lock that serializes writes on PostgreSQL (what
/// SQLite's `BEGIN IMMEDIATE` does there).
const WRITE_LOCK_KEY: i64 = 0x6172_656e_615f_7772; // "arena_wr"

/// The longest the ladder waits for a lock on its SQLite database or on its scheduling
/// lock file before it gives up, naming the file ([`LadderError::Locked`]).
pub const LOCK_WAIT: Duration = Duration::from_secs(120);

/// SQLite's own wait for a lock, per statement (`PRAGMA busy_timeout`), at most (and at
/// most a quarter of the store's lock wait): the writes are then tried again up to the
/// store's lock wait.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// The pause between two tries of a lock.
const RETRY_PAUSE: Duration = Duration::from_millis(50);

/// An open ladder database.
#[derive(Debug)]
pub struct Store {
    /// The file, or the URL (its password hidden): what messages name.
    path: PathBuf,
    /// The URL connected to (with its password), for the locks' own connections.
    url: String,
    backend: Backend,
    pool: AnyPool,
    rt: tokio::runtime::Runtime,
    /// The longest a write waits for SQLite's lock, and the scheduling lock for its file.
    lock_wait: Duration,
}

/// The lock a running ladder holds on its database (released when dropped, or when the
/// process ends however it ends): a lock file beside an SQLite database, a session
/// advisory lock (its own connection) on PostgreSQL.
#[derive(Debug)]
pub struct LadderLock {
    _file: Option<File>,
    /// The session holding the advisory lock, and the runtime it lives on.
    session: Option<(AnyConnection, tokio::runtime::Runtime)>,
}

impl Drop for LadderLock {
    /// A PostgreSQL lock is released before this returns (the session unlocks and ends),
    /// not when the server notices a dropped connection: a ladder started right after
    /// finds the database free.
    fn drop(&mut self) {
        if let Some((mut conn, rt)) = self.session.take() {
            rt.block_on(async {
                let _ = sqlx::query("SELECT pg_advisory_unlock_all()").execute(&mut conn).await;
                let _ = conn.close().await;
            });
        }
    }
}

/// The lock file of a database: the database's name with `.lock` appended.
pub fn lock_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// Takes the ladder lock of the SQLite database `db` exclusively (what `ladder run`
/// holds), or says that another ladder holds it.
pub fn lock(db: &Path) -> Result<LadderLock, LadderError> {
    lock_file(db, false)
}

/// Opens (creating it, readable and writable by its owner only) the lock file `path`.
fn open_lock_file(path: &Path) -> Result<File, LadderError> {
    File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| LadderError::Open { path: path.to_owned(), why: e.to_string() })
}

/// The lock file of `db`, exclusive or `shared` (what workers hold together).
fn lock_file(db: &Path, shared: bool) -> Result<LadderLock, LadderError> {
    let path = lock_path(db);
    let file = open_lock_file(&path)?;
    let taken = if shared { file.try_lock_shared() } else { file.try_lock() };
    match taken {
        Ok(()) => Ok(LadderLock { _file: Some(file), session: None }),
        Err(TryLockError::WouldBlock) => {
            Err(LadderError::Busy { path: db.to_owned(), lock: path.display().to_string() })
        }
        Err(TryLockError::Error(e)) => Err(LadderError::Open { path, why: e.to_string() }),
    }
}

/// `url` with its password, if any, replaced by `***` (what messages show).
pub fn redacted(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_owned() };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((user, host)) => match user.split_once(':') {
            Some((name, _)) => format!("{scheme}://{name}:***@{host}{tail}"),
            None => url.to_owned(),
        },
        None => url.to_owned(),
    }
}

/// The SQLite URL of the file `path` (`sqlite:///abs/path?mode=rw`, its bytes
/// percent-encoded but for letters, digits and `/._-`).
fn sqlite_url(path: &Path, create: bool) -> Result<String, String> {
    let abs = std::path::absolute(path).map_err(|e| e.to_string())?;
    // The parent resolved, so that the URL's path has no `..` (which a URL drops).
    let abs = match (abs.parent(), abs.file_name()) {
        (Some(dir), Some(name)) => match dir.canonicalize() {
            Ok(dir) => dir.join(name),
            Err(e) => return Err(format!("{}: {e}", dir.display())),
        },
        _ => abs,
    };
    let text = abs.to_str().ok_or("the path is not UTF-8")?;
    let mut url = String::from("sqlite://");
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"/._-".contains(&b) {
            url.push(b as char);
        } else {
            url.push_str(&format!("%{b:02X}"));
        }
    }
    url.push_str(if create { "?mode=rwc" } else { "?mode=rw" });
    Ok(url)
}

/// `migrator`'s migrations in the dialect of `backend`: on PostgreSQL, the schema's one
/// SQLite type name `BLOB` is `BYTEA` (the checksums are those of the SQL applied, so a
/// PostgreSQL database records its own).
pub fn dialect(migrator: &Migrator, backend: Backend) -> Migrator {
    let migrations = migrator
        .iter()
        .map(|m| match backend {
            Backend::Sqlite => m.clone(),
            Backend::Postgres => Migration::new(
                m.version,
                m.description.clone(),
                m.migration_type,
                Cow::Owned(m.sql.replace(" BLOB", " BYTEA")),
                m.no_tx,
            ),
        })
        .collect();
    Migrator { migrations: Cow::Owned(migrations), ..Migrator::DEFAULT }
}

/// An entry found by a scan, with the hash of its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Its name.
    pub name: String,
    /// What kind of bot (`rhai`, `native`, ...).
    pub kind: String,
    /// Its file.
    pub path: PathBuf,
    /// The SHA-256 of the file's bytes, in hex.
    pub sha256: String,
    /// The file's size in bytes.
    pub size: u64,
}

/// What a scan changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Synced {
    /// The active version of each entry found, in the order found.
    pub versions: Vec<i64>,
    /// Entries seen for the first time.
    pub new_entries: Vec<String>,
    /// Entries whose file changed: a new version (or an older one back).
    pub new_versions: Vec<String>,
    /// Entries not found (their file is gone, or no longer loads), with why: their
    /// version retired.
    pub gone: Vec<(String, String)>,
}

/// A finished game, as committed.
#[derive(Debug, Clone, PartialEq)]
pub struct GameRow {
    /// Its id (given when scheduled).
    pub id: i64,
    /// The game (`zombies`, ...).
    pub game: String,
    /// Its seed.
    pub seed: u64,
    /// The ladder's seed it derives from.
    pub ladder_seed: u64,
    /// The rules version it was played under.
    pub rules_version: u16,
    /// The game's options, as JSON.
    pub options: String,
    /// Games of pairs: the id of its match's first game.
    pub pairing: Option<i64>,
    /// The versions seated, in seat order.
    pub lineup: Vec<i64>,
    /// The result: turns and, per seat, the score and the calls' verdicts (JSON of
    /// `CallStats`); or why it could not be played.
    pub result: Result<(u32, Vec<(u32, String)>), String>,
    /// The replay, when recorded.
    pub replay: Option<Vec<u8>>,
}

/// One line of the leaderboard.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Standing {
    /// Rank, from 1, by mu - 3 sigma.
    pub rank: usize,
    /// The entry.
    pub entry: String,
    /// The version's id.
    pub version: i64,
    /// The version's SHA-256 (hex).
    pub sha256: String,
    /// Whether it still plays (not retired).
    pub active: bool,
    /// Played games.
    pub games: u64,
    /// Skill estimate.
    pub mu: f64,
    /// Its uncertainty.
    pub sigma: f64,
    /// mu - 3 sigma, the ranking key.
    pub conservative: f64,
    /// Mean score (games of pairs: in the first seat).
    pub mean_score: f64,
    /// What `stat` measures: the game's own statistic (`median score`, `mean score`,
    /// `total score`, `match points per match`).
    pub statistic: String,
    /// The game's own statistic with its 95% interval (`rating::statistic`).
    pub stat: Statistic,
}

/// One seat of a stored game.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SeatView {
    /// The entry seated.
    pub entry: String,
    /// Its version.
    pub version: i64,
    /// Its version's SHA-256 (hex): what ran.
    pub sha256: String,
    /// Its score (none in a lost game).
    pub score: Option<u32>,
    /// Its calls' verdicts (`CallStats` as JSON), when played.
    pub stats: Option<serde_json::Value>,
}

/// A stored game.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GameView {
    /// Its id.
    pub id: i64,
    /// The game.
    pub game: String,
    /// Its seed.
    pub seed: u64,
    /// The ladder's seed.
    pub ladder_seed: u64,
    /// Rules version.
    pub rules_version: u16,
    /// `played` or `lost`.
    pub status: String,
    /// Why it was lost.
    pub reason: Option<String>,
    /// Turns played.
    pub turns: Option<u32>,
    /// Whether a replay is stored.
    pub replay: bool,
    /// The seats in order.
    pub seats: Vec<SeatView>,
}

/// A version of an entry.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct VersionView {
    /// Its id.
    pub id: i64,
    /// SHA-256 of the file (hex).
    pub sha256: String,
    /// File size.
    pub size: u64,
    /// Still playing.
    pub active: bool,
    /// Why it was retired.
    pub retired: Option<String>,
    /// Its rating (the prior when it has no rated game).
    pub games: u64,
    /// mu.
    pub mu: f64,
    /// sigma.
    pub sigma: f64,
    /// Mean score.
    pub mean_score: f64,
    /// The game's own statistic with its 95% interval.
    pub stat: Statistic,
}

/// What a ratings update did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rerated {
    /// Whether they were computed from scratch (asked, first time, or a game committed
    /// with an id below the largest rated), rather than extended by the new games.
    pub from_scratch: bool,
    /// Played games folded by this update.
    pub games: usize,
    /// Played games the ratings are now computed from.
    pub played: u64,
}

/// An entry: its versions, games and the errors its bots made.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct EntryView {
    /// Its name.
    pub name: String,
    /// Kind of bot.
    pub kind: String,
    /// Its file.
    pub path: String,
    /// Every version, oldest first.
    pub versions: Vec<VersionView>,
    /// Its games, newest first.
    pub games: Vec<GameView>,
}

/// A file that did not load.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LoadError {
    /// The file.
    pub path: String,
    /// Why, in one line.
    pub reason: String,
}

fn seed_in(seed: u64) -> i64 {
    i64::from_ne_bytes(seed.to_ne_bytes())
}

fn seed_out(seed: i64) -> u64 {
    u64::from_ne_bytes(seed.to_ne_bytes())
}

impl Store {
    /// Opens the database at `path` (creating it when `create` and missing) and brings
    /// its schema up to date; a schema newer than this program's is refused.
    pub fn open(path: &Path, create: bool) -> Result<Store, LadderError> {
        Store::open_with(path, create, &MIGRATOR)
    }

    /// [`Store::open`] with the schema of `migrator` (tests: an older schema). `path` is an
    /// SQLite file or a `postgres://` URL (whose database must exist: `create` makes its
    /// tables, not the database).
    pub fn open_with(path: &Path, create: bool, migrator: &Migrator) -> Result<Store, LadderError> {
        Store::open_waiting(path, create, migrator, LOCK_WAIT)
    }

    /// [`Store::open_with`] with `lock_wait` instead of [`LOCK_WAIT`] (tests: a short one).
    pub fn open_waiting(
        path: &Path,
        create: bool,
        migrator: &Migrator,
        lock_wait: Duration,
    ) -> Result<Store, LadderError> {
        let backend = Backend::of(path);
        let shown = match backend {
            Backend::Sqlite => path.to_owned(),
            Backend::Postgres => PathBuf::from(redacted(&path.to_string_lossy())),
        };
        let open_err = |why: String| LadderError::Open { path: shown.clone(), why: why.replace('\n', " ") };
        let url = match backend {
            Backend::Sqlite => {
                if let Some((scheme, _)) = path.to_string_lossy().split_once("://") {
                    return Err(open_err(format!(
                        "{scheme}:// is no database this arena knows: give an SQLite file or a postgres:// URL"
                    )));
                }
                if !create && !path.exists() {
                    return Err(open_err("no such file (`arena ladder run --db FILE` creates one)".to_owned()));
                }
                sqlite_url(path, create).map_err(open_err)?
            }
            Backend::Postgres => path.to_string_lossy().into_owned(),
        };
        let rt =
            tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| open_err(e.to_string()))?;
        sqlx::any::install_default_drivers();
        let options = match backend {
            // One connection: SQLite writes one at a time anyway. WAL with synchronous
            // writes: a kill -9 loses no committed game. SQLite waits for a lock itself
            // (10 s, at most a quarter of the store's wait), and the writes are tried
            // again (`retrying`).
            Backend::Sqlite => {
                let busy = format!("PRAGMA busy_timeout = {}", BUSY_TIMEOUT.min(lock_wait / 4).as_millis());
                AnyPoolOptions::new().max_connections(1).after_connect(move |conn, _| {
                    let busy = busy.clone();
                    Box::pin(async move {
                        for pragma in [
                            busy.as_str(),
                            "PRAGMA journal_mode = WAL",
                            "PRAGMA synchronous = FULL",
                            "PRAGMA foreign_keys = ON",
                        ] {
                            sqlx::query(pragma).execute(&mut *conn).await?;
                        }
                        Ok(())
                    })
                })
            }
            Backend::Postgres => AnyPoolOptions::new().max_connections(4),
        };
        let options = options.acquire_timeout(std::time::Duration::from_secs(10));
        let pool = rt
            .block_on(async {
                // One connection first: the pool would say only that it timed out, this says
                // why (refused, no such database, authentication).
                if backend == Backend::Postgres {
                    AnyConnection::connect(&url).await?.close().await?;
                }
                options.connect(&url).await
            })
            .map_err(|e| open_err(e.to_string()))?;
        let store = Store { path: shown, url, backend, pool, rt, lock_wait };
        let migrator = dialect(migrator, backend);
        // Two processes opening a new (or old) SQLite database at once would both apply
        // its migrations (sqlx locks them on PostgreSQL only): they take turns, under the
        // scheduling lock, when there is anything to apply.
        let _turn = match backend {
            Backend::Sqlite if store.pending(&migrator)? => Some(store.schedule_lock()?),
            _ => None,
        };
        store.migrate(&migrator)?;
        Ok(store)
    }

    /// Applies `migrator`'s migrations not applied yet (and refuses a database with one
    /// it does not know: a newer schema). The migrations are taken as they are: see
    /// [`dialect`].
    pub fn migrate(&self, migrator: &Migrator) -> Result<(), LadderError> {
        let latest = migrator.iter().map(|m| m.version).max().unwrap_or(0);
        self.rt.block_on(migrator.run(&self.pool)).map_err(|e| match e {
            MigrateError::VersionMissing(version) => LadderError::Newer { path: self.path.clone(), version, latest },
            MigrateError::Execute(sqlx::Error::Database(d)) if d.message().contains("not a database") => {
                LadderError::Open { path: self.path.clone(), why: d.message().to_owned() }
            }
            other => LadderError::Migrate { path: self.path.clone(), why: other.to_string().replace('\n', " ") },
        })
    }

    /// Whether `migrator` has migrations this SQLite database has not applied.
    fn pending(&self, migrator: &Migrator) -> Result<bool, LadderError> {
        let has_table: Option<String> = self.rt.block_on(
            sqlx::query_scalar("SELECT name FROM sqlite_master WHERE type = 'table' AND name = '_sqlx_migrations'")
                .fetch_optional(&self.pool),
        )?;
        if has_table.is_none() {
            return Ok(migrator.iter().next().is_some());
        }
        let applied = self.schema_versions()?;
        Ok(migrator.iter().any(|m| !applied.contains(&m.version)))
    }

    /// The database file, or its URL (password hidden): what messages name.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Which database this is.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The longest a write waits for the database's lock, and the scheduling lock for its
    /// file, before [`LadderError::Locked`].
    pub fn lock_wait(&self) -> Duration {
        self.lock_wait
    }

    /// Runs `attempt` (a whole transaction) on the store's runtime, and again while it
    /// fails because SQLite found the database locked ([`LadderError::DbLocked`]: the
    /// transaction was rolled back), for up to the store's lock wait; then says which
    /// file is held ([`LadderError::Locked`]). Any other outcome is returned as it is.
    pub(crate) fn retrying<T>(
        &self,
        mut attempt: impl AsyncFnMut() -> Result<T, LadderError>,
    ) -> Result<T, LadderError> {
        let started = Instant::now();
        loop {
            match self.rt.block_on(attempt()) {
                Err(LadderError::DbLocked(why)) => {
                    if started.elapsed() >= self.lock_wait {
                        return Err(LadderError::Locked {
                            path: self.path.clone(),
                            waited: started.elapsed().as_secs(),
                            why,
                        });
                    }
                    std::thread::sleep(RETRY_PAUSE);
                }
                other => return other,
            }
        }
    }

    /// Takes the ladder lock: exclusive (`ladder run`: no other ladder and no worker on
    /// the database) or `shared` (`ladder work`: workers together, no `ladder run`); or
    /// says that another ladder holds it. SQLite: the lock file beside the database;
    /// PostgreSQL: a session advisory lock, held by a connection of its own.
    pub fn ladder_lock(&self, shared: bool) -> Result<LadderLock, LadderError> {
        match self.backend {
            Backend::Sqlite => lock_file(&self.path, shared),
            Backend::Postgres => {
                let sql =
                    if shared { "SELECT pg_try_advisory_lock_shared($1)" } else { "SELECT pg_try_advisory_lock($1)" };
                self.session_lock(sql, LADDER_LOCK_KEY)?.ok_or_else(|| LadderError::Busy {
                    path: self.path.clone(),
                    lock: format!("the advisory lock {LADDER_LOCK_KEY}"),
                })
            }
        }
    }

    /// Takes the scheduling lock, waiting for it: the one worker at a time that scans,
    /// rates and schedules the next batch into the queue (and, on SQLite, the one process
    /// at a time that applies migrations). SQLite: the lock file `FILE.schedule.lock`;
    /// PostgreSQL: a session advisory lock of its own connection. Released when dropped,
    /// or when the process ends however it ends.
    pub fn schedule_lock(&self) -> Result<LadderLock, LadderError> {
        match self.backend {
            Backend::Sqlite => {
                let mut name = self.path.as_os_str().to_owned();
                name.push(".schedule.lock");
                let path = PathBuf::from(name);
                let file = open_lock_file(&path)?;
                // Tried until the store's lock wait has passed: never a wait without end.
                let started = Instant::now();
                loop {
                    match file.try_lock() {
                        Ok(()) => return Ok(LadderLock { _file: Some(file), session: None }),
                        Err(TryLockError::WouldBlock) if started.elapsed() < self.lock_wait => {
                            std::thread::sleep(RETRY_PAUSE)
                        }
                        Err(TryLockError::WouldBlock) => {
                            return Err(LadderError::Locked {
                                path,
                                waited: started.elapsed().as_secs(),
                                why: "the scheduling lock is held by another process".to_owned(),
                            });
                        }
                        Err(TryLockError::Error(e)) => return Err(LadderError::Open { path, why: e.to_string() }),
                    }
                }
            }
            Backend::Postgres => {
                // Waits for the lock, then says it has it.
                let sql = "SELECT TRUE FROM (SELECT pg_advisory_lock($1)) AS taken";
                let lock = self.session_lock(sql, SCHEDULE_LOCK_KEY)?;
                lock.ok_or_else(|| LadderError::Db("pg_advisory_lock returned no lock".to_owned()))
            }
        }
    }

    /// A session advisory lock on a connection of its own, on a runtime of its own (so
    /// that dropping the lock can end the session whatever became of this store):
    /// `sql` takes it and says whether it did; `None` when it did not.
    fn session_lock(&self, sql: &str, key: i64) -> Result<Option<LadderLock>, LadderError> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| LadderError::Db(format!("cannot start a runtime for the lock: {e}")))?;
        let taken = rt.block_on(async {
            let mut conn = AnyConnection::connect(&self.url).await?;
            let taken: bool = sqlx::query_scalar(sql).bind(key).fetch_one(&mut conn).await?;
            Ok::<_, sqlx::Error>(taken.then_some(conn))
        })?;
        Ok(taken.map(|conn| LadderLock { _file: None, session: Some((conn, rt)) }))
    }

    /// Begins a write transaction that holds the database's write lock from its start
    /// (so that what it reads is what it writes over): SQLite `BEGIN IMMEDIATE`,
    /// PostgreSQL a transaction advisory lock.
    pub(crate) async fn begin_write(&self) -> Result<sqlx::Transaction<'static, Any>, sqlx::Error> {
        match self.backend {
            Backend::Sqlite => self.pool.begin_with("BEGIN IMMEDIATE").await,
            Backend::Postgres => {
                let mut tx = self.pool.begin().await?;
                sqlx::query("SELECT pg_advisory_xact_lock($1)").bind(WRITE_LOCK_KEY).execute(&mut *tx).await?;
                Ok(tx)
            }
        }
    }

    /// The database's clock in milliseconds since 1970, as an SQL expression (leases are
    /// timed by the database, so that the workers' clocks need not agree).
    pub fn now_sql(&self) -> &'static str {
        match self.backend {
            Backend::Sqlite => "CAST((julianday('now') - 2440587.5) * 86400000.0 AS BIGINT)",
            Backend::Postgres => "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)",
        }
    }

    /// The migrations applied to this database, in order.
    pub fn schema_versions(&self) -> Result<Vec<i64>, LadderError> {
        let rows = self.rt.block_on(
            sqlx::query("SELECT version FROM _sqlx_migrations WHERE success = TRUE ORDER BY version")
                .fetch_all(&self.pool),
        )?;
        Ok(rows.iter().map(|r| r.get::<i64, _>(0)).collect())
    }

    /// Records a scan of `game`'s bot directories, in one transaction: new entries and
    /// versions, an entry whose file changed gets the new version and its other version
    /// retired, an entry not found has its version retired ("file gone"), and the files
    /// that did not load replace those of the last scan. An entry not found is retired
    /// with why: its file no longer loads (with the reason), or is gone.
    pub fn sync(&self, game: &str, found: &[Found], failed: &[LoadError]) -> Result<Synced, LadderError> {
        self.retrying(async || {
            let mut tx = self.begin_write().await?;
            let mut synced = Synced::default();
            let entries =
                sqlx::query("SELECT id, name, path FROM entries WHERE game = $1").bind(game).fetch_all(&mut *tx).await?;
            let known: BTreeMap<String, i64> = entries.iter().map(|r| (r.get(1), r.get(0))).collect();
            let paths: BTreeMap<String, String> = entries.iter().map(|r| (r.get(1), r.get(2))).collect();
            for f in found {
                let path = f.path.display().to_string();
                let entry = match known.get(&f.name) {
                    Some(&id) => {
                        sqlx::query("UPDATE entries SET kind = $1, path = $2 WHERE id = $3")
                            .bind(&f.kind)
                            .bind(&path)
                            .bind(id)
                            .execute(&mut *tx)
                            .await?;
                        id
                    }
                    None => {
                        let entrant: Option<i64> = sqlx::query_scalar("SELECT id FROM entrants WHERE name = $1")
                            .bind(&f.name)
                            .fetch_optional(&mut *tx)
                            .await?;
                        let entrant = match entrant {
                            Some(id) => id,
                            None => {
                                let id = next_id(&mut tx, "entrants").await?;
                                sqlx::query("INSERT INTO entrants (id, name) VALUES ($1, $2)")
                                    .bind(id)
                                    .bind(&f.name)
                                    .execute(&mut *tx)
                                    .await?;
                                id
                            }
                        };
                        let id = next_id(&mut tx, "entries").await?;
                        sqlx::query(
                            "INSERT INTO entries (id, entrant_id, game, name, kind, path) VALUES ($1, $2, $3, $4, $5, $6)",
                        )
                        .bind(id)
                        .bind(entrant)
                        .bind(game)
                        .bind(&f.name)
                        .bind(&f.kind)
                        .bind(&path)
                        .execute(&mut *tx)
                        .await?;
                        synced.new_entries.push(f.name.clone());
                        id
                    }
                };
                let version: Option<(i64, i64)> =
                    sqlx::query_as("SELECT id, active FROM versions WHERE entry_id = $1 AND sha256 = $2")
                        .bind(entry)
                        .bind(&f.sha256)
                        .fetch_optional(&mut *tx)
                        .await?;
                let version = match version {
                    Some((id, 1)) => id,
                    found_before => {
                        let id = match found_before {
                            Some((id, _)) => id,
                            None => {
                                let id = next_id(&mut tx, "versions").await?;
                                sqlx::query(
                                    "INSERT INTO versions (id, entry_id, sha256, size, active) VALUES ($1, $2, $3, $4, 0)",
                                )
                                .bind(id)
                                .bind(entry)
                                .bind(&f.sha256)
                                .bind(f.size as i64)
                                .execute(&mut *tx)
                                .await?;
                                id
                            }
                        };
                        let retired = sqlx::query(
                            "UPDATE versions SET active = 0, retired = 'replaced by a new version' \
                             WHERE entry_id = $1 AND active = 1",
                        )
                        .bind(entry)
                        .execute(&mut *tx)
                        .await?;
                        sqlx::query("UPDATE versions SET active = 1, retired = NULL WHERE id = $1")
                            .bind(id)
                            .execute(&mut *tx)
                            .await?;
                        if retired.rows_affected() > 0 || found_before.is_some() {
                            synced.new_versions.push(f.name.clone());
                        }
                        id
                    }
                };
                synced.versions.push(version);
            }
            for (name, id) in &known {
                if !found.iter().any(|f| &f.name == name) {
                    let why = match failed.iter().find(|e| paths.get(name) == Some(&e.path)) {
                        Some(e) => format!("its file no longer loads: {}", e.reason),
                        None => "its file is gone".to_owned(),
                    };
                    let gone = sqlx::query("UPDATE versions SET active = 0, retired = $1 WHERE entry_id = $2 AND active = 1")
                        .bind(&why)
                        .bind(id)
                        .execute(&mut *tx)
                        .await?;
                    if gone.rows_affected() > 0 {
                        synced.gone.push((name.clone(), why));
                    }
                }
            }
            sqlx::query("DELETE FROM load_errors WHERE game = $1").bind(game).execute(&mut *tx).await?;
            for e in failed {
                sqlx::query("INSERT INTO load_errors (game, path, reason) VALUES ($1, $2, $3)")
                    .bind(game)
                    .bind(&e.path)
                    .bind(&e.reason)
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await?;
            Ok(synced)
        })
    }

    /// The id the next scheduled game gets: one past the largest stored or queued.
    pub fn next_game_id(&self) -> Result<i64, LadderError> {
        let max: Option<i64> = self.rt.block_on(
            sqlx::query_scalar(
                "SELECT MAX(id) FROM (SELECT MAX(id) AS id FROM games UNION ALL SELECT MAX(id) FROM queue) m",
            )
            .fetch_one(&self.pool),
        )?;
        Ok(max.unwrap_or(0) + 1)
    }

    /// Commits one game with its result and seats, in one transaction. A game id stored
    /// already is refused (nothing is written twice).
    pub fn commit_game(&self, g: &GameRow) -> Result<(), LadderError> {
        self.retrying(async || {
            let mut tx = self.begin_write().await?;
            insert_game(&mut tx, g).await?;
            tx.commit().await?;
            Ok(())
        })
    }

    /// Every played game of `game`, in id order, as the ratings see it.
    pub fn played_games(&self, game: &str) -> Result<Vec<PlayedGame>, LadderError> {
        let rows = self.rt.block_on(
            sqlx::query(
                "SELECT g.id, g.pairing, s.version_id, s.score FROM games g JOIN seats s ON s.game_id = g.id \
                 WHERE g.game = $1 AND g.status = 'played' ORDER BY g.id, s.seat",
            )
            .bind(game)
            .fetch_all(&self.pool),
        )?;
        Ok(group_seats(&rows))
    }

    /// The played games of `game` in which one of `versions` sat, in id order, with the
    /// seats of those versions only (what `settled` compares).
    pub fn played_games_of(&self, game: &str, versions: &[i64]) -> Result<Vec<PlayedGame>, LadderError> {
        if versions.is_empty() {
            return Ok(Vec::new());
        }
        let list: Vec<String> = (0..versions.len()).map(|i| format!("${}", i + 2)).collect();
        let sql = format!(
            "SELECT g.id, g.pairing, s.version_id, s.score FROM seats s JOIN games g ON g.id = s.game_id \
             WHERE g.game = $1 AND g.status = 'played' AND s.version_id IN ({}) ORDER BY g.id, s.seat",
            list.join(", ")
        );
        let mut query = sqlx::query(&sql).bind(game);
        for v in versions {
            query = query.bind(v);
        }
        let rows = self.rt.block_on(query.fetch_all(&self.pool))?;
        Ok(group_seats(&rows))
    }

    /// Whether the stored ratings of `game` are those of its games now (they lag when a
    /// ladder was killed between a commit and its next rating, or while one plays).
    pub fn ratings_fresh(&self, game: &str) -> Result<bool, LadderError> {
        self.rt.block_on(async {
            let last: i64 = sqlx::query_scalar("SELECT COALESCE(MAX(committed), 0) FROM games WHERE game = $1")
                .bind(game)
                .fetch_one(&self.pool)
                .await?;
            let rated: Option<i64> = sqlx::query_scalar("SELECT committed FROM rated WHERE game = $1")
                .bind(game)
                .fetch_optional(&self.pool)
                .await?;
            Ok(rated.is_some_and(|r| r == last))
        })
    }

    /// Brings the stored ratings of `game` (ranked by `ranking`) up to date with its
    /// played games, in one transaction: the stored fold (`rating::Fold`) is extended by
    /// the games committed since, in id order, which gives exactly what a fold from
    /// scratch gives; it is recomputed from scratch when `from_scratch`, when there is
    /// none yet, or when one of those games has an id below the largest rated (a game
    /// that finished after a later one was rated). The game's statistic is recomputed
    /// for the versions that played, and the meetings of their pairs counted.
    pub fn update_ratings(&self, game: &str, ranking: Ranking, from_scratch: bool) -> Result<Rerated, LadderError> {
        let pairs = ranking == Ranking::Pairs;
        self.retrying(async || {
            // Immediate: the write lock first, so that the snapshot read is the one written.
            let mut tx = self.begin_write().await?;
            let last: i64 = sqlx::query_scalar("SELECT COALESCE(MAX(committed), 0) FROM games WHERE game = $1")
                .bind(game)
                .fetch_one(&mut *tx)
                .await?;
            let state: Option<(i64, i64, String, i64)> =
                sqlx::query_as("SELECT through, committed, pending, played FROM rated WHERE game = $1")
                    .bind(game)
                    .fetch_optional(&mut *tx)
                    .await?;
            let mut resumed = None;
            if let (false, Some((through, committed, pending, played))) = (from_scratch, state) {
                let new = played_since(&mut tx, game, committed, last).await?;
                if new.first().is_none_or(|g| g.id > through) {
                    resumed = Some((through, pending, played, new));
                }
            }
            let scratch = resumed.is_none();
            let (mut fold, new, before) = match resumed {
                Some((through, pending, played, new)) => {
                    let waiting: Vec<Waiting> = serde_json::from_str(&pending).unwrap_or_default();
                    let rated = stored_ratings(&mut tx, game).await?.into_iter().collect();
                    let waiting = waiting.into_iter().map(|w| (w.pairing, w)).collect();
                    (Fold { pairs, rated, waiting, through }, new, played as u64)
                }
                None => (Fold::new(pairs), played_since(&mut tx, game, 0, last).await?, 0),
            };
            fold.extend(&new).map_err(|e| LadderError::Db(e.to_string()))?;
            // The versions that played, and the pairs that met, in the new games.
            let mut touched = std::collections::BTreeSet::new();
            let mut met: Meetings = Meetings::new();
            for g in &new {
                for (i, &(a, _)) in g.seats.iter().enumerate() {
                    touched.insert(a);
                    for &(b, _) in &g.seats[i + 1..] {
                        *met.entry((a.min(b), a.max(b))).or_default() += 1;
                    }
                }
            }
            if scratch {
                sqlx::query(
                    "DELETE FROM ratings WHERE version_id IN (SELECT v.id FROM versions v JOIN entries e \
                     ON e.id = v.entry_id WHERE e.game = $1)",
                )
                .bind(game)
                .execute(&mut *tx)
                .await?;
                sqlx::query("DELETE FROM meetings WHERE game = $1").bind(game).execute(&mut *tx).await?;
                sqlx::query(
                    "DELETE FROM score_counts WHERE version_id IN (SELECT v.id FROM versions v JOIN entries e \
                     ON e.id = v.entry_id WHERE e.game = $1)",
                )
                .bind(game)
                .execute(&mut *tx)
                .await?;
            }
            // Each version's scores in the new games (from scratch: all of them).
            let mut new_scores: BTreeMap<i64, Vec<u32>> = BTreeMap::new();
            for g in &new {
                for (seat, &(v, score)) in g.seats.iter().enumerate() {
                    if !pairs || seat == 0 {
                        new_scores.entry(v).or_default().push(score);
                    }
                }
            }
            for &v in &touched {
                let Some(r) = fold.rated.get_mut(&v) else { continue };
                let added = new_scores.remove(&v).unwrap_or_default();
                let mut counts: BTreeMap<u32, i64> = BTreeMap::new();
                for &score in &added {
                    *counts.entry(score).or_default() += 1;
                }
                for (score, n) in counts {
                    let more = sqlx::query("UPDATE score_counts SET n = n + $1 WHERE version_id = $2 AND score = $3")
                        .bind(n)
                        .bind(v)
                        .bind(i64::from(score))
                        .execute(&mut *tx)
                        .await?;
                    if more.rows_affected() == 0 {
                        sqlx::query("INSERT INTO score_counts (version_id, score, n) VALUES ($1, $2, $3)")
                            .bind(v)
                            .bind(i64::from(score))
                            .bind(n)
                            .execute(&mut *tx)
                            .await?;
                    }
                }
                // Games of pairs count match points, kept in the fold.
                let scores = match (pairs, scratch) {
                    (true, _) => Vec::new(),
                    (false, true) => added,
                    (false, false) => version_scores(&mut tx, v).await?,
                };
                r.stat = statistic(ranking, &scores, r);
                if !scratch {
                    sqlx::query("DELETE FROM ratings WHERE version_id = $1").bind(v).execute(&mut *tx).await?;
                }
                sqlx::query(
                    "INSERT INTO ratings (version_id, mu, sigma, rated_games, mean_score, score_sum, scored, matches, \
                     points, stat, stat_low, stat_high) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
                )
                .bind(v)
                .bind(r.mu)
                .bind(r.sigma)
                .bind(r.games as i64)
                .bind(r.mean_score)
                .bind(r.score_sum)
                .bind(r.scored as i64)
                .bind(r.matches as i64)
                .bind(r.points)
                .bind(r.stat.value)
                .bind(r.stat.low)
                .bind(r.stat.high)
                .execute(&mut *tx)
                .await?;
            }
            for ((a, b), n) in met {
                let added = sqlx::query("UPDATE meetings SET n = n + $1 WHERE game = $2 AND a = $3 AND b = $4")
                    .bind(n as i64)
                    .bind(game)
                    .bind(a)
                    .bind(b)
                    .execute(&mut *tx)
                    .await?;
                if added.rows_affected() == 0 {
                    sqlx::query("INSERT INTO meetings (game, a, b, n) VALUES ($1, $2, $3, $4)")
                        .bind(game)
                        .bind(a)
                        .bind(b)
                        .bind(n as i64)
                        .execute(&mut *tx)
                        .await?;
                }
            }
            let played = before + new.len() as u64;
            let waiting: Vec<&Waiting> = fold.waiting.values().collect();
            sqlx::query("DELETE FROM rated WHERE game = $1").bind(game).execute(&mut *tx).await?;
            sqlx::query(
                "INSERT INTO rated (game, played, through, committed, pending, statistic) VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(game)
            .bind(played as i64)
            .bind(fold.through)
            .bind(last)
            .bind(serde_json::to_string(&waiting).unwrap_or_else(|_| "[]".to_owned()))
            .bind(statistic_name(ranking))
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(Rerated { from_scratch: scratch, games: new.len(), played })
        })
    }

    /// The stored ratings of `game`'s versions (those without a rated game are absent).
    pub fn ratings(&self, game: &str) -> Result<BTreeMap<i64, Rated>, LadderError> {
        self.rt.block_on(async {
            let mut conn = self.pool.acquire().await?;
            Ok(stored_ratings(&mut conn, game).await?.into_iter().collect())
        })
    }

    /// The matchmaking's inputs for `versions`: each one's games and rating, and how often
    /// each pair of them has played together (as of the last ratings update).
    pub fn candidates(&self, game: &str, versions: &[i64]) -> Result<(Vec<Candidate>, Meetings), LadderError> {
        let ratings = self.ratings(game)?;
        let candidates = versions
            .iter()
            .map(|&v| {
                let r = ratings.get(&v).copied().unwrap_or_else(Rated::prior);
                Candidate { version: v, games: r.games, mu: r.mu, sigma: r.sigma }
            })
            .collect();
        // Only the pairs among them: a season's retired versions met many others.
        let mut ids: Vec<i64> = versions.to_vec();
        ids.sort_unstable();
        ids.dedup();
        let list: Vec<String> = (0..ids.len()).map(|i| format!("${}", i + 2)).collect();
        let list = if list.is_empty() { "NULL".to_owned() } else { list.join(", ") };
        let sql = format!("SELECT a, b, n FROM meetings WHERE game = $1 AND a IN ({list}) AND b IN ({list})");
        let mut query = sqlx::query(&sql).bind(game);
        for v in &ids {
            query = query.bind(v);
        }
        let rows = self.rt.block_on(query.fetch_all(&self.pool))?;
        let meetings = rows
            .iter()
            .map(|r| {
                let n: i64 = r.get(2);
                ((r.get(0), r.get(1)), n as u64)
            })
            .collect();
        Ok((candidates, meetings))
    }

    /// The leaderboard of `game`: its versions (active ones only unless `all`) ranked by
    /// mu - 3 sigma, then more games, then version id.
    pub fn leaderboard(&self, game: &str, all: bool) -> Result<Vec<Standing>, LadderError> {
        let rows = self.rt.block_on(
            sqlx::query(
                "SELECT e.name, v.id, v.sha256, v.active, r.mu, r.sigma, r.rated_games, r.mean_score, \
                 r.stat, r.stat_low, r.stat_high \
                 FROM versions v JOIN entries e ON e.id = v.entry_id LEFT JOIN ratings r ON r.version_id = v.id \
                 WHERE e.game = $1",
            )
            .bind(game)
            .fetch_all(&self.pool),
        )?;
        let name: Option<String> = self.rt.block_on(
            sqlx::query_scalar("SELECT statistic FROM rated WHERE game = $1").bind(game).fetch_optional(&self.pool),
        )?;
        let name = name.unwrap_or_default();
        let prior = Rated::prior();
        let mut board: Vec<Standing> = rows
            .iter()
            .filter(|r| all || r.get::<i64, _>(3) == 1)
            .map(|r| {
                let (mu, sigma) =
                    (r.get::<Option<f64>, _>(4).unwrap_or(prior.mu), r.get::<Option<f64>, _>(5).unwrap_or(prior.sigma));
                Standing {
                    rank: 0,
                    entry: r.get(0),
                    version: r.get(1),
                    sha256: r.get(2),
                    active: r.get::<i64, _>(3) == 1,
                    games: r.get::<Option<i64>, _>(6).unwrap_or(0) as u64,
                    mu,
                    sigma,
                    conservative: mu - 3.0 * sigma,
                    mean_score: r.get::<Option<f64>, _>(7).unwrap_or(0.0),
                    statistic: name.clone(),
                    stat: stat_of(r, 8),
                }
            })
            .collect();
        board.sort_by(|a, b| {
            b.conservative.total_cmp(&a.conservative).then(b.games.cmp(&a.games)).then(a.version.cmp(&b.version))
        });
        for (i, s) in board.iter_mut().enumerate() {
            s.rank = i + 1;
        }
        Ok(board)
    }

    /// The files of `game` that did not load at the last scan.
    pub fn load_errors(&self, game: &str) -> Result<Vec<LoadError>, LadderError> {
        let rows = self.rt.block_on(
            sqlx::query("SELECT path, reason FROM load_errors WHERE game = $1 ORDER BY path")
                .bind(game)
                .fetch_all(&self.pool),
        )?;
        Ok(rows.iter().map(|r| LoadError { path: r.get(0), reason: r.get(1) }).collect())
    }

    /// The games of `game` (only those seating `entry`, when given), newest first, at
    /// most `limit`.
    pub fn games(&self, game: &str, entry: Option<&str>, limit: u64) -> Result<Vec<GameView>, LadderError> {
        let ids: Vec<i64> = self.rt.block_on(
            sqlx::query_scalar(
                "SELECT g.id FROM games g WHERE g.game = $1 AND (CAST($2 AS TEXT) IS NULL OR EXISTS (SELECT 1 FROM seats s \
                 JOIN versions v ON v.id = s.version_id JOIN entries e ON e.id = v.entry_id \
                 WHERE s.game_id = g.id AND e.name = $2)) ORDER BY g.id DESC LIMIT $3",
            )
            .bind(game)
            .bind(entry)
            .bind(limit as i64)
            .fetch_all(&self.pool),
        )?;
        ids.into_iter().map(|id| self.game(id)).collect()
    }

    /// One stored game.
    pub fn game(&self, id: i64) -> Result<GameView, LadderError> {
        let row = self.rt.block_on(
            sqlx::query(
                "SELECT id, game, seed, ladder_seed, rules_version, status, reason, turns, CASE WHEN replay IS NULL THEN 0 ELSE 1 END \
                 FROM games WHERE id = $1",
            )
            .bind(id)
            .fetch_optional(&self.pool),
        )?;
        let row = row.ok_or_else(|| LadderError::NotFound(format!("no game {id} in {}", self.path.display())))?;
        let seats = self.rt.block_on(
            sqlx::query(
                "SELECT e.name, s.version_id, s.score, s.stats, v.sha256 FROM seats s JOIN versions v ON v.id = s.version_id \
                 JOIN entries e ON e.id = v.entry_id WHERE s.game_id = $1 ORDER BY s.seat",
            )
            .bind(id)
            .fetch_all(&self.pool),
        )?;
        Ok(GameView {
            id: row.get(0),
            game: row.get(1),
            seed: seed_out(row.get(2)),
            ladder_seed: seed_out(row.get(3)),
            rules_version: u16::try_from(row.get::<i64, _>(4)).unwrap_or(u16::MAX),
            status: row.get(5),
            reason: row.get(6),
            turns: row.get::<Option<i64>, _>(7).map(|t| t as u32),
            replay: row.get::<i64, _>(8) == 1,
            seats: seats
                .iter()
                .map(|s| SeatView {
                    entry: s.get(0),
                    version: s.get(1),
                    sha256: s.get(4),
                    score: s.get::<Option<i64>, _>(2).map(|v| v as u32),
                    stats: s.get::<Option<String>, _>(3).and_then(|t| serde_json::from_str(&t).ok()),
                })
                .collect(),
        })
    }

    /// The replay stored with game `id` (its game's name and the bytes).
    pub fn replay(&self, id: i64) -> Result<(String, Vec<u8>), LadderError> {
        let row: Option<(String, Option<Vec<u8>>)> = self.rt.block_on(
            sqlx::query_as("SELECT game, replay FROM games WHERE id = $1").bind(id).fetch_optional(&self.pool),
        )?;
        match row {
            None => Err(LadderError::NotFound(format!("no game {id} in {}", self.path.display()))),
            Some((_, None)) => Err(LadderError::NotFound(format!(
                "game {id} has no replay stored (it was lost, or played with `ladder run --no-replays`); \
                 `arena ladder games` shows its seed and lineup"
            ))),
            Some((game, Some(bytes))) => Ok((game, bytes)),
        }
    }

    /// An entry of `game`: its versions with their ratings, and its games (newest first,
    /// at most `limit`).
    pub fn entry(&self, game: &str, name: &str, limit: u64) -> Result<EntryView, LadderError> {
        let row = self.rt.block_on(
            sqlx::query("SELECT id, kind, path FROM entries WHERE game = $1 AND name = $2")
                .bind(game)
                .bind(name)
                .fetch_optional(&self.pool),
        )?;
        let row = row.ok_or_else(|| LadderError::NotFound(format!("no {game} entry named {name:?} in the ladder")))?;
        let id: i64 = row.get(0);
        let versions = self.rt.block_on(
            sqlx::query(
                "SELECT v.id, v.sha256, v.size, v.active, v.retired, r.rated_games, r.mu, r.sigma, r.mean_score, \
                 r.stat, r.stat_low, r.stat_high \
                 FROM versions v LEFT JOIN ratings r ON r.version_id = v.id WHERE v.entry_id = $1 ORDER BY v.id",
            )
            .bind(id)
            .fetch_all(&self.pool),
        )?;
        let prior = Rated::prior();
        Ok(EntryView {
            name: name.to_owned(),
            kind: row.get(1),
            path: row.get(2),
            versions: versions
                .iter()
                .map(|v| VersionView {
                    id: v.get(0),
                    sha256: v.get(1),
                    size: v.get::<i64, _>(2) as u64,
                    active: v.get::<i64, _>(3) == 1,
                    retired: v.get(4),
                    games: v.get::<Option<i64>, _>(5).unwrap_or(0) as u64,
                    mu: v.get::<Option<f64>, _>(6).unwrap_or(prior.mu),
                    sigma: v.get::<Option<f64>, _>(7).unwrap_or(prior.sigma),
                    mean_score: v.get::<Option<f64>, _>(8).unwrap_or(0.0),
                    stat: stat_of(v, 9),
                })
                .collect(),
            games: self.games(game, Some(name), limit)?,
        })
    }

    /// Runs `f` on the store's runtime (the queue's statements, in `queue`).
    pub(crate) fn block_on<T>(&self, f: impl Future<Output = T>) -> T {
        self.rt.block_on(f)
    }

    /// The connection pool (the queue's statements, in `queue`).
    pub(crate) fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// Runs `f` on the pool, for checks (tests) and one-off statements.
    pub fn with_pool<T>(&self, f: impl AsyncFnOnce(&AnyPool) -> T) -> T {
        self.rt.block_on(f(&self.pool))
    }
}

/// Inserts game `g` with its seats in `tx` (a game id stored already fails: it is the
/// primary key).
pub(crate) async fn insert_game(tx: &mut sqlx::Transaction<'_, Any>, g: &GameRow) -> Result<(), sqlx::Error> {
    let (status, reason, turns) = match &g.result {
        Ok((turns, _)) => ("played", None, Some(i64::from(*turns))),
        Err(why) => ("lost", Some(why.as_str()), None),
    };
    sqlx::query(
        "INSERT INTO games (id, game, seed, ladder_seed, rules_version, options, status, reason, turns, \
         pairing, replay, committed) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, \
         (SELECT COALESCE(MAX(committed), 0) + 1 FROM games WHERE game = $2))",
    )
    .bind(g.id)
    .bind(&g.game)
    .bind(seed_in(g.seed))
    .bind(seed_in(g.ladder_seed))
    .bind(i64::from(g.rules_version))
    .bind(&g.options)
    .bind(status)
    .bind(reason)
    .bind(turns)
    .bind(g.pairing)
    .bind(g.replay.as_deref())
    .execute(&mut **tx)
    .await?;
    for (seat, &version) in g.lineup.iter().enumerate() {
        let (score, stats) = match &g.result {
            Ok((_, seats)) => seats.get(seat).map_or((None, None), |(s, st)| (Some(i64::from(*s)), Some(st.as_str()))),
            Err(_) => (None, None),
        };
        sqlx::query("INSERT INTO seats (game_id, seat, version_id, score, stats) VALUES ($1, $2, $3, $4, $5)")
            .bind(g.id)
            .bind(seat as i64)
            .bind(version)
            .bind(score)
            .bind(stats)
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}

/// One past the largest id of `table` (the ladder gives ids itself, in SQL both
/// databases speak).
async fn next_id(tx: &mut sqlx::Transaction<'_, Any>, table: &str) -> Result<i64, sqlx::Error> {
    let max: Option<i64> = sqlx::query_scalar(&format!("SELECT MAX(id) FROM {table}")).fetch_one(&mut **tx).await?;
    Ok(max.unwrap_or(0) + 1)
}

/// The statistic in columns `at`, `at + 1`, `at + 2` of a row (zero when not rated).
fn stat_of(row: &AnyRow, at: usize) -> Statistic {
    let get = |i: usize| row.get::<Option<f64>, _>(at + i).unwrap_or(0.0);
    Statistic { value: get(0), low: get(1), high: get(2) }
}

/// A seat of a new game: game id, seat, pairing, version, score.
type NewSeat = (i64, i64, Option<i64>, i64, Option<i64>);

/// The played games of `game` committed after `after` and up to `upto`, in id order.
/// Sorted here, not by the query: ordered by id, it would walk every game of `game` by
/// the id index instead of the few new ones by the commit index.
async fn played_since(
    conn: &mut AnyConnection,
    game: &str,
    after: i64,
    upto: i64,
) -> Result<Vec<PlayedGame>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT g.id, g.pairing, s.seat, s.version_id, s.score FROM games g JOIN seats s ON s.game_id = g.id \
         WHERE g.game = $1 AND g.status = 'played' AND g.committed > $2 AND g.committed <= $3",
    )
    .bind(game)
    .bind(after)
    .bind(upto)
    .fetch_all(&mut *conn)
    .await?;
    // (game id, seat, pairing, version, score)
    let mut seats: Vec<NewSeat> = rows.iter().map(|r| (r.get(0), r.get(2), r.get(1), r.get(3), r.get(4))).collect();
    seats.sort_unstable_by_key(|&(id, seat, ..)| (id, seat));
    let mut games: Vec<PlayedGame> = Vec::new();
    for (id, _, pairing, version, score) in seats {
        let score = u32::try_from(score.unwrap_or(0)).unwrap_or(0);
        match games.last_mut() {
            Some(g) if g.id == id => g.seats.push((version, score)),
            _ => games.push(PlayedGame { id, pairing, seats: vec![(version, score)] }),
        }
    }
    Ok(games)
}

/// Rows of (game id, pairing, version, score), in game and seat order, as games.
fn group_seats(rows: &[AnyRow]) -> Vec<PlayedGame> {
    let mut games: Vec<PlayedGame> = Vec::new();
    for r in rows {
        let (id, pairing, version, score): (i64, Option<i64>, i64, Option<i64>) =
            (r.get(0), r.get(1), r.get(2), r.get(3));
        let score = u32::try_from(score.unwrap_or(0)).unwrap_or(0);
        match games.last_mut() {
            Some(g) if g.id == id => g.seats.push((version, score)),
            _ => games.push(PlayedGame { id, pairing, seats: vec![(version, score)] }),
        }
    }
    games
}

/// A version's scores in its played games (games of pairs: in the first seat), sorted,
/// from its score counts (kept by the updates of the ratings).
async fn version_scores(conn: &mut AnyConnection, version: i64) -> Result<Vec<u32>, sqlx::Error> {
    let counts: Vec<(i64, i64)> =
        sqlx::query_as("SELECT score, n FROM score_counts WHERE version_id = $1 ORDER BY score")
            .bind(version)
            .fetch_all(&mut *conn)
            .await?;
    let mut scores = Vec::with_capacity(counts.iter().map(|c| c.1.max(0) as usize).sum());
    for (score, n) in counts {
        scores.extend(std::iter::repeat_n(u32::try_from(score).unwrap_or(0), n.max(0) as usize));
    }
    Ok(scores)
}

/// The stored ratings (the fold's state and the statistic) of `game`'s versions.
async fn stored_ratings(conn: &mut AnyConnection, game: &str) -> Result<Vec<(i64, Rated)>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT r.version_id, r.mu, r.sigma, r.rated_games, r.mean_score, r.score_sum, r.scored, r.matches, \
         r.points, r.stat, r.stat_low, r.stat_high FROM ratings r \
         JOIN versions v ON v.id = r.version_id JOIN entries e ON e.id = v.entry_id WHERE e.game = $1",
    )
    .bind(game)
    .fetch_all(&mut *conn)
    .await?;
    Ok(rows
        .iter()
        .map(|r| {
            let count = |i: usize| r.get::<i64, _>(i) as u64;
            let rated = Rated {
                mu: r.get(1),
                sigma: r.get(2),
                games: count(3),
                mean_score: r.get(4),
                score_sum: r.get(5),
                scored: count(6),
                matches: count(7),
                points: r.get(8),
                stat: Statistic { value: r.get(9), low: r.get(10), high: r.get(11) },
            };
            (r.get(0), rated)
        })
        .collect())
}
