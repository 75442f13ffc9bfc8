//! The lines between the host and a worker: a [`GameRequest`] per game, one JSON line on
//! the worker's standard input, and a [`GameAnswer`] (the request's nonce and a
//! [`GameResponse`]) per game on its answer pipe, after a `ready` line once it has loaded
//! its entries. Only the line that carries a request's nonce is its answer.
//!
//! This is not the lockstep game's own lines (`C`, `Q`, `R`, `W`, `O`, `E`: see
//! [`super::lockstep`]), nor who sends or reads them (`worker`, `serve`).

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::game::Outcome;

use super::lockstep;

/// One game asked of a worker.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct GameRequest {
    /// The game's seed.
    pub seed: u64,
    /// The game's options.
    pub config: serde_json::Value,
    /// The entries that play, as indices into the worker's entries, in seat order.
    pub seats: Vec<usize>,
    /// Record the game's replay to this file.
    pub replay: Option<PathBuf>,
    /// A number drawn by the host for this request, which the answer must carry: a
    /// line that does not is not the answer (a stray or forged line is ignored).
    #[serde(default)]
    pub nonce: u64,
    /// Set for a lockstep game (`lockstep`): which seats this worker plays, and the
    /// names of all; `seats` is then unused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lockstep: Option<lockstep::Lockstep>,
}

/// One answer line of a worker: the request's nonce and the response.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct GameAnswer {
    /// The nonce of the request answered.
    pub nonce: u64,
    /// The response.
    pub response: GameResponse,
}

/// A fresh nonce for a request (not a secret from the worker, which reads it: it keeps
/// lines that programs or stray writes put on the channel from being taken for an
/// answer).
pub(super) fn fresh_nonce() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let x = crate::clock::monotonic_nanos()
        ^ (u64::from(std::process::id()) << 32)
        ^ COUNTER.fetch_add(1, Ordering::Relaxed).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    crate::play::splitmix64(x).max(1)
}

/// The line a worker writes once it has loaded its entries, before its first answer.
pub(super) const READY: &str = "ready\n";

/// The longest answer line the host reads from a worker; a longer one is cut off and
/// cannot be an answer.
pub(super) const MAX_ANSWER_LINE: u64 = 16 << 20;

/// A worker's answer to a [`GameRequest`].
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub enum GameResponse {
    /// The game's outcome (its replay, if asked, is in the requested file).
    Played(Outcome),
    /// The game could not be played (a bad request: nobody's fault among the bots).
    Failed(String),
}

/// What `line` says of `request`: its answer, or why the line that carries its nonce
/// is not one (`None`: the line is not about it).
pub(super) fn answer_to(request: &GameRequest, line: &str) -> Option<Result<GameResponse, String>> {
    match serde_json::from_str::<GameAnswer>(line) {
        Ok(answer) if answer.nonce == request.nonce => Some(Ok(answer.response)),
        Ok(_) => None,
        Err(e) => {
            let nonce = serde_json::from_str::<serde_json::Value>(line)
                .ok()
                .and_then(|v| v.get("nonce").and_then(serde_json::Value::as_u64));
            (nonce == Some(request.nonce)).then(|| Err(format!("the worker answered nonsense ({e})")))
        }
    }
}
