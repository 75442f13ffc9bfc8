//! The game boundary: what a game must provide so that the host's plumbing
//! (discovery, tournaments, parallel play, shards and merge, time banks, isolation,
//! replays, results files and the CLI) works for it unchanged.
//!
//! A game (a directory `games/<game>/`) is one module implementing [`Game`]: its
//! rules, what its bots see and answer, how each kind of bot plays it (native ABI,
//! Rhai, Lua, program protocol), what its replays record, how its viewer draws, and
//! its benchmark workloads. This module holds the trait and the types every game
//! shares; it has no rules.
//!
//! **Architecture Invariant:** nothing outside `games/` names a particular game, except
//! the registry in `games/mod.rs` that maps a name to its type and its workloads (the
//! CLI dispatches through it; `tests/layout.rs` checks this).

use std::sync::Arc;

use crate::bot::BotFactory;
pub use crate::bot::Plays;
use crate::loaders::native::NativeModule;
use crate::loaders::program::Program;
use crate::loaders::scripts::Script;
pub use crate::replay::{PlaybackTape, Recorded, Tape, count_draws, next_call};
pub use crate::rules::{GameRng, Outcome, Rules, random_source};

/// How a tournament ranks entries by their per-game scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ranking {
    /// Median score, then mean (zombies: the seed's rule).
    Median,
    /// Mean score, then median (eggs: the seed's rule).
    Mean,
    /// Total score, then mean (target: points summed over games).
    Total,
    /// Two-seat games played by every ordered pair (hex: the first seat plays humans):
    /// match points per pair (win 1, draw 1/2, by mean score in the first seat against
    /// each other), then the margin of those means, then the total of them.
    Pairs,
}

/// A game the arena can host. See the module doc for what belongs here; what its bots
/// see and answer is [`Plays`].
pub trait Game: Rules + Recorded {
    /// How its tournaments rank entries.
    const RANKING: Ranking;

    /// What [`Outcome::turns`] counts, in messages and pages ("turns"; target: "rounds",
    /// since its turn is one player's move).
    const TURNS: &'static str = "turns";

    /// Games in one round of a tournament of `entries` entries (default 1: every game
    /// seats every entry). A tournament of `R` rounds plays `R * games_per_round` games.
    fn games_per_round(entries: usize) -> u64 {
        let _ = entries;
        1
    }

    /// The entries (indices into the tournament's entries) seated in game `index`, in
    /// seat order (default: all of them, in order). Game `index` is played with exactly
    /// these entries, and its record names only them.
    fn lineup(entries: usize, index: u64) -> Vec<usize> {
        let _ = index;
        (0..entries).collect()
    }

    // ----- bots of each kind ---------------------------------------------------------

    /// The bots of a native library that declares this game.
    fn native_bots(module: &NativeModule) -> Result<Arc<dyn BotFactory<Self>>, String>;
    /// The bots of a Rhai script.
    fn rhai_bots(script: Script) -> Result<Arc<dyn BotFactory<Self>>, String>;
    /// The bots of a Lua script.
    fn lua_bots(script: Script) -> Result<Arc<dyn BotFactory<Self>>, String>;
    /// The bots of a program speaking this game's text protocol.
    fn program_bots(program: Program) -> Result<Arc<dyn BotFactory<Self>>, String>;
}
