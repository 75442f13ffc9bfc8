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

use std::cell::RefCell;
use std::ffi::c_void;
use std::fmt;
use std::rc::Rc;
use std::sync::Arc;

use zombies_plugin_abi::Random;

pub use crate::bot::Plays;
use crate::bot::{Bot, BotFactory};
use crate::loaders::native::NativeModule;
use crate::loaders::program::Program;
use crate::loaders::scripts::Script;
use crate::replay::{Replay, ReplayError};
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

/// The calls a recording bot writes (shared by the entries of one game, in call order).
pub type Tape<C> = Rc<RefCell<Vec<C>>>;
/// The calls a playback bot reads: the next index and the calls.
pub type PlaybackTape<C> = Rc<RefCell<(usize, Vec<C>)>>;

/// The next call of a playback tape, after drawing from `random` the `draws` numbers
/// the recorded bot drew in it, so that the game's generator is where it was; an error
/// once the tape is spent.
pub fn next_call<C: Clone>(
    tape: &PlaybackTape<C>,
    random: Random<'_>,
    draws: impl FnOnce(&C) -> u32,
) -> Result<C, crate::bot::BotError> {
    let mut tape = tape.borrow_mut();
    let (next, calls) = &mut *tape;
    let call =
        calls.get(*next).cloned().ok_or_else(|| crate::bot::BotError::Failed("the replay ran out of calls".into()))?;
    *next += 1;
    for _ in 0..draws(&call) {
        random.next_u64();
    }
    Ok(call)
}

/// A game the arena can host. See the module doc for what belongs here; what its bots
/// see and answer is [`Plays`].
pub trait Game: Rules {
    /// How its tournaments rank entries.
    const RANKING: Ranking;
    /// One bot call as a replay stores it.
    type Call: Clone + fmt::Debug + PartialEq + Send + 'static;

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

    // ----- replays -------------------------------------------------------------------

    /// Wraps a bot so that each of its calls is appended to `tape` as the engine
    /// applies it (a failed call as what the engine does instead).
    fn record<'a>(inner: Box<dyn Bot<Self> + 'a>, tape: Tape<Self::Call>) -> Box<dyn Bot<Self> + 'a>;
    /// A bot that answers each call with the next call of `tape`.
    fn playback(tape: PlaybackTape<Self::Call>) -> Box<dyn Bot<Self>>;
    /// The calls as bytes (before compression).
    fn write_calls(calls: &[Self::Call], out: &mut Vec<u8>);
    /// The calls from bytes; never panics.
    fn read_calls(bytes: &[u8]) -> Result<Vec<Self::Call>, ReplayError>;
    /// The replay as one self-contained HTML page.
    fn viewer_page(replay: &Replay<Self>) -> Result<String, ReplayError>;
}

/// Runs `f` with a [`Random`] that draws from `random` and counts the draws (replays
/// record how many numbers each call drew, so that playback draws as many).
pub fn count_draws<R>(random: Random<'_>, f: impl FnOnce(Random<'_>) -> R) -> (R, u32) {
    struct Counter<'a> {
        inner: Random<'a>,
        draws: u32,
    }
    extern "C" fn counted(state: *mut c_void) -> u64 {
        // SAFETY: `state` is the `Counter` below, alive for the whole of `f`.
        let counter = unsafe { &mut *state.cast::<Counter<'_>>() };
        counter.draws += 1;
        counter.inner.next_u64()
    }
    let mut counter = Counter { inner: random, draws: 0 };
    // SAFETY: the counter outlives `f`, and only the Random given to `f` uses it.
    let counting = unsafe { Random::from_raw((&mut counter as *mut Counter<'_>).cast::<c_void>(), counted) };
    let result = f(counting);
    (result, counter.draws)
}
