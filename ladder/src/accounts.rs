//! The contest server's accounts and submissions, in the ladder's database (the tables of
//! the migration `20261126000001_accounts.sql`): entrants' tokens (only their SHA-256 is
//! stored), who owns which entry, and every bot submitted with its check's one-line
//! result.
//!
//! Not here: making tokens or hashing them (the server's `auth`), storing or checking
//! the files (the server's `submit`), the ladder's own tables (`store`). These functions
//! only add rows of their own tables, and never write the ladder's.

use sqlx::Row;

use crate::LadderError;
use crate::store::Store;

/// An entrant who holds a token.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Account {
    /// The entrant's id.
    pub id: i64,
    /// Its name.
    pub name: String,
    /// The host's token: may retire any bot.
    pub admin: bool,
}

/// Who an entry's name belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Owner {
    /// No entry and no submission has the name: the first to submit it owns it.
    Free,
    /// The entrant of the entry's first submission.
    Entrant(i64),
    /// An entry of the ladder's bot directories (a bundled bot), never submitted: no
    /// entrant may replace it.
    Directory,
}

/// A submission, as recorded.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Submission {
    /// Its id.
    pub id: i64,
    /// The entrant's name.
    pub entrant: String,
    /// The game.
    pub game: String,
    /// The entry's name.
    pub name: String,
    /// The kind of bot (`lua`, `rhai`, `native`, `program`).
    pub kind: String,
    /// The file's SHA-256 (hex).
    pub sha256: String,
    /// Its size in bytes.
    pub size: u64,
    /// `accepted`, `rejected`, `replaced` or `retired`.
    pub status: String,
    /// The check's result, or why it was rejected or retired, in one line.
    pub message: String,
    /// When, in seconds since 1970.
    pub created: i64,
}

/// A row of `submissions` joined with its entrant's name, in [`SUBMISSION`]'s order.
fn submission(r: &sqlx::any::AnyRow) -> Submission {
    Submission {
        id: r.get(0),
        entrant: r.get(1),
        game: r.get(2),
        name: r.get(3),
        kind: r.get(4),
        sha256: r.get(5),
        size: r.get::<i64, _>(6) as u64,
        status: r.get(7),
        message: r.get(8),
        created: r.get(9),
    }
}

/// The columns [`submission`] reads.
const SUBMISSION: &str = "SELECT s.id, e.name, s.game, s.name, s.kind, s.sha256, s.size, s.status, s.message, s.created \
                          FROM submissions s JOIN entrants e ON e.id = s.entrant_id";

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

impl Store {
    /// Gives the entrant `name` the token whose SHA-256 is `token_sha256` (creating the
    /// entrant when missing); refused when the entrant has a token already.
    pub fn add_entrant(&self, name: &str, token_sha256: &str, admin: bool) -> Result<i64, LadderError> {
        self.with_pool(async |pool| {
            let mut tx = pool.begin().await?;
            let id: Option<i64> = sqlx::query_scalar("SELECT id FROM entrants WHERE name = $1")
                .bind(name)
                .fetch_optional(&mut *tx)
                .await?;
            let id = match id {
                Some(id) => {
                    let has: Option<i64> = sqlx::query_scalar("SELECT entrant_id FROM tokens WHERE entrant_id = $1")
                        .bind(id)
                        .fetch_optional(&mut *tx)
                        .await?;
                    if has.is_some() {
                        return Err(LadderError::NotFound(format!(
                            "entrant {name:?} exists already and has a token (pick another name)"
                        )));
                    }
                    id
                }
                None => {
                    let max: Option<i64> =
                        sqlx::query_scalar("SELECT MAX(id) FROM entrants").fetch_one(&mut *tx).await?;
                    let id = max.unwrap_or(0) + 1;
                    sqlx::query("INSERT INTO entrants (id, name) VALUES ($1, $2)")
                        .bind(id)
                        .bind(name)
                        .execute(&mut *tx)
                        .await?;
                    id
                }
            };
            sqlx::query("INSERT INTO tokens (entrant_id, token_sha256, admin) VALUES ($1, $2, $3)")
                .bind(id)
                .bind(token_sha256)
                .bind(i64::from(admin))
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(id)
        })
    }

    /// The entrant whose token has the SHA-256 `token_sha256`, if any.
    pub fn account(&self, token_sha256: &str) -> Result<Option<Account>, LadderError> {
        let row = self.with_pool(async |pool| {
            sqlx::query(
                "SELECT e.id, e.name, t.admin FROM tokens t JOIN entrants e ON e.id = t.entrant_id \
                 WHERE t.token_sha256 = $1",
            )
            .bind(token_sha256)
            .fetch_optional(pool)
            .await
        })?;
        Ok(row.map(|r| Account { id: r.get(0), name: r.get(1), admin: r.get::<i64, _>(2) == 1 }))
    }

    /// Who the entry `name` of `game` belongs to.
    pub fn owner(&self, game: &str, name: &str) -> Result<Owner, LadderError> {
        self.with_pool(async |pool| {
            let first: Option<i64> = sqlx::query_scalar(
                "SELECT entrant_id FROM submissions WHERE game = $1 AND name = $2 ORDER BY id LIMIT 1",
            )
            .bind(game)
            .bind(name)
            .fetch_optional(pool)
            .await?;
            if let Some(id) = first {
                return Ok(Owner::Entrant(id));
            }
            let entry: Option<i64> = sqlx::query_scalar("SELECT id FROM entries WHERE game = $1 AND name = $2")
                .bind(game)
                .bind(name)
                .fetch_optional(pool)
                .await?;
            Ok(if entry.is_some() { Owner::Directory } else { Owner::Free })
        })
    }

    /// Records a submission by entrant `entrant` (its status and one-line message); an
    /// accepted one marks the entry's earlier accepted submission `replaced`. Its id.
    #[allow(clippy::too_many_arguments)]
    pub fn record_submission(
        &self,
        entrant: i64,
        game: &str,
        name: &str,
        kind: &str,
        sha256: &str,
        size: u64,
        status: &str,
        message: &str,
    ) -> Result<i64, LadderError> {
        self.with_pool(async |pool| {
            let mut tx = pool.begin().await?;
            if status == "accepted" {
                sqlx::query(
                    "UPDATE submissions SET status = 'replaced' WHERE game = $1 AND name = $2 AND status = 'accepted'",
                )
                .bind(game)
                .bind(name)
                .execute(&mut *tx)
                .await?;
            }
            let max: Option<i64> = sqlx::query_scalar("SELECT MAX(id) FROM submissions").fetch_one(&mut *tx).await?;
            let id = max.unwrap_or(0) + 1;
            sqlx::query(
                "INSERT INTO submissions (id, entrant_id, game, name, kind, sha256, size, status, message, created) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
            )
            .bind(id)
            .bind(entrant)
            .bind(game)
            .bind(name)
            .bind(kind)
            .bind(sha256)
            .bind(size as i64)
            .bind(status)
            .bind(message)
            .bind(now())
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(id)
        })
    }

    /// Marks the accepted submission of the entry `name` of `game` retired, with why;
    /// false when it has none.
    pub fn retire_submission(&self, game: &str, name: &str, why: &str) -> Result<bool, LadderError> {
        self.with_pool(async |pool| {
            let done = sqlx::query(
                "UPDATE submissions SET status = 'retired', message = $3 \
                 WHERE game = $1 AND name = $2 AND status = 'accepted'",
            )
            .bind(game)
            .bind(name)
            .bind(why)
            .execute(pool)
            .await?;
            Ok(done.rows_affected() > 0)
        })
    }

    /// The submissions of `game` (only the entry `name`'s, when given), newest first, at
    /// most `limit`.
    pub fn submissions(&self, game: &str, name: Option<&str>, limit: u64) -> Result<Vec<Submission>, LadderError> {
        let rows = self.with_pool(async |pool| {
            sqlx::query(&format!(
                "{SUBMISSION} WHERE s.game = $1 AND (CAST($2 AS TEXT) IS NULL OR s.name = $2) ORDER BY s.id DESC LIMIT $3"
            ))
            .bind(game)
            .bind(name)
            .bind(limit as i64)
            .fetch_all(pool)
            .await
        })?;
        Ok(rows.iter().map(submission).collect())
    }

    /// The accepted submissions of every game: the files the ladder should find.
    pub fn accepted(&self) -> Result<Vec<Submission>, LadderError> {
        let rows = self.with_pool(async |pool| {
            sqlx::query(&format!("{SUBMISSION} WHERE s.status = 'accepted' ORDER BY s.id")).fetch_all(pool).await
        })?;
        Ok(rows.iter().map(submission).collect())
    }
}
