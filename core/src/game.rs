//! The game boundary: what a game must provide so that the host's plumbing
//! (discovery, tournaments, parallel play, shards and merge, time banks, isolation,
//! replays, results files and the CLI) works for it unchanged.
//!
//! A game (a directory `games/<game>/`) is one module implementing [`Game`]: its
//! rules, what its bots see and answer, how each kind of bot plays it (native ABI,
//! Rhai, Lua, program protocol), what its replays record, how its viewer draws, and
//! its benchmark workloads. [`Game`] is the sum of the contract's parts, each owned by
//! the layer that uses it, so that no module below this one needs the whole game
//! (ARCHITECTURE.md, "Layers"):
//!
//! - [`Plays`] (`bot`): what a bot sees and answers, and the turn of a call;
//! - [`Rules`] (`rules`): the name, the version of the rules, the options, and one game
//!   played to its [`Outcome`];
//! - [`NativeBots`], [`ScriptBots`], [`ProgramBots`] (`loaders`): the bots of each kind;
//! - [`Recorded`] (`replay`): a call as replays store it, recording, playback, viewer;
//! - and here, what tournaments need on top: the [`Ranking`], what a game's length
//!   counts, and which entries each game seats.
//!
//! This module re-exports the parts and the types games share, so a game (and any code
//! above the contract) finds the whole contract here; it has no rules, and the modules
//! below it never name it.
//!
//! **Architecture Invariant:** nothing outside the games' crate (`arena-games`) names a
//! particular game; its registry (`games/src/lib.rs`) maps a name to its type and its
//! workloads (the CLI dispatches through it; `tests/layout.rs` checks this).

pub use crate::bot::Plays;
pub use crate::loaders::native::NativeBots;
pub use crate::loaders::program::ProgramBots;
pub use crate::loaders::scripts::ScriptBots;
pub use crate::replay::{PlaybackTape, Recorded, Tape, count_draws, generator_of, next_call};
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

/// A game the arena can host: the parts of the contract (see the module doc), and what
/// tournaments need on top. Code above the contract is generic over `G: Game`.
pub trait Game: Rules + Recorded + NativeBots + ScriptBots + ProgramBots {
    /// How its tournaments rank entries.
    const RANKING: Ranking;

    /// What [`Outcome::turns`] counts, in messages and pages ("turns"; target: "rounds",
    /// since its turn is one player's move).
    const TURNS: &'static str = "turns";

    /// What a score counts, for the plot's axis ("points"; zombies: "turns survived").
    const SCORES: &'static str = "points";

    /// True when the game's rules say a tournament plays until it is decided (target:
    /// "until one player is the clear winner, or until it is clear there should be joint
    /// winners"): `arena tournament` without `--rounds` then plays as with
    /// `--until-decided` (see `crate::decide`).
    const UNTIL_DECIDED: bool = false;

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

    /// This game's calls can be served ([`Game::request`], [`Game::serve`]): its lockstep
    /// games run the engine in the referee alone (default: no).
    const SERVES_CALLS: bool = false;

    /// Served lockstep (`crate::isolate::lockstep`): appends to `batch` the request of
    /// the call `ctx` for a seat whose bot plays in another process, the referee alone
    /// running the engine (a batch holds one entry's calls of one turn, in order; an
    /// empty `batch` starts one). `false` when the call cannot be served so (default:
    /// the game serves no calls, and each process of a lockstep game runs the whole
    /// engine).
    fn request(ctx: &Self::Ctx<'_>, batch: &mut Vec<u8>) -> bool {
        let _ = (ctx, batch);
        false
    }

    /// Plays a batch that [`Game::request`] made on `bot`, one call per request, in
    /// order, the seats named `names`: how many calls it made. What `bot` answers is not
    /// returned: the caller records it (`Recorded::record`).
    fn serve(
        batch: &[u8],
        names: &[String],
        bot: &mut dyn crate::bot::Bot<Self>,
    ) -> Result<usize, crate::replay::ReplayError> {
        let _ = (batch, names, bot);
        Err(crate::replay::ReplayError::Corrupt(format!("{} serves no calls", Self::NAME)))
    }
}

/// Implements the parts of the contract that a game's own modules provide under the
/// arena's usual names, for the game type `$game`, in the game's `mod.rs`:
///
/// - [`Recorded`] from `replay` (its `Call`, the `Recording` and `Playback` bots,
///   `write_calls`, `read_calls`) and `viewer::render`;
/// - [`NativeBots`] from `native::bots`, [`ScriptBots`] from `rhai::bots` and
///   `lua::bots`, [`ProgramBots`] from `program::bots`.
///
/// Every game of the arena is laid out so (one module per kind of bot, one for its
/// replays, one for its viewer); a game laid out otherwise writes these impls by hand.
#[macro_export]
macro_rules! parts_from_modules {
    ($game:ty) => {
        impl $crate::game::Recorded for $game {
            type Call = replay::Call;

            fn record<'a>(
                inner: Box<dyn $crate::bot::Bot<Self> + 'a>,
                tape: $crate::game::Tape<replay::Call>,
            ) -> Box<dyn $crate::bot::Bot<Self> + 'a> {
                Box::new(replay::Recording { inner, tape })
            }

            fn playback(tape: $crate::game::PlaybackTape<replay::Call>) -> Box<dyn $crate::bot::Bot<Self>> {
                Box::new(replay::Playback { tape })
            }

            fn write_calls(calls: &[replay::Call], out: &mut Vec<u8>) {
                replay::write_calls(calls, out)
            }

            fn read_calls(bytes: &[u8]) -> Result<Vec<replay::Call>, $crate::replay::ReplayError> {
                replay::read_calls(bytes)
            }

            fn viewer_page(replay: &$crate::replay::Replay<Self>) -> Result<String, $crate::replay::ReplayError> {
                viewer::render(replay)
            }
        }

        impl $crate::game::NativeBots for $game {
            fn native_bots(
                module: &$crate::loaders::native::NativeModule,
            ) -> Result<std::sync::Arc<dyn $crate::bot::BotFactory<Self>>, String> {
                native::bots(module)
            }
        }

        impl $crate::game::ScriptBots for $game {
            fn rhai_bots(
                script: $crate::loaders::scripts::Script,
            ) -> Result<std::sync::Arc<dyn $crate::bot::BotFactory<Self>>, String> {
                rhai::bots(script)
            }

            fn lua_bots(
                script: $crate::loaders::scripts::Script,
            ) -> Result<std::sync::Arc<dyn $crate::bot::BotFactory<Self>>, String> {
                lua::bots(script)
            }
        }

        impl $crate::game::ProgramBots for $game {
            fn program_bots(
                program: $crate::loaders::program::Program,
            ) -> Result<std::sync::Arc<dyn $crate::bot::BotFactory<Self>>, String> {
                program::bots(program)
            }
        }
    };
}
pub use crate::parts_from_modules;
