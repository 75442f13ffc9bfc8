//! The rules' part of the game contract: what it takes to play one game of a game to its
//! end with one bot per entry (its name, the version of its rules, its options, its
//! engine's entry point), the result of that game ([`Outcome`]), and the generator every
//! random choice of a game draws from.
//!
//! Each game implements [`Rules`] beside [`Plays`] (what its bots see and answer); the
//! modules below `game` that need to play a game (replays re-play one; loaders check a
//! bot's game and its name) are generic over it, and `Game` (`crate::game`) adds what
//! tournaments need on top. This module holds no rules itself (see `games`) and plays
//! nothing (see `play`).

use std::ffi::c_void;
use std::fmt;

use rand::Rng;
use serde::Serialize;
use serde::de::DeserializeOwned;
use zombies_plugin_abi::Random;

use crate::bot::{Bot, CallStats, Plays};

/// The rules of a game, as the host's plumbing plays them.
pub trait Rules: Plays {
    /// The game's name on the command line, in replays and in libraries (`zombies`).
    const NAME: &'static str;
    /// Version of how the engine plays a seed: bumped whenever the same seed and
    /// answers would make another game; replays re-play only under the same.
    const RULES_VERSION: u16;
    /// The game's options beyond its rules (sent to workers, stored in replays).
    type Config: Clone + fmt::Debug + Default + PartialEq + Serialize + DeserializeOwned + Send + Sync + 'static;

    /// Checks option values before any game is played: a value the rules cannot play
    /// (a probability above 1, a limit of 0 turns) is an error naming the option.
    fn check_config(config: &Self::Config) -> Result<(), String> {
        let _ = config;
        Ok(())
    }

    /// Plays one game with one bot per entry (indexed like `names`) to its end.
    fn play(names: &[String], seed: u64, config: &Self::Config, bots: &mut [Box<dyn Bot<Self> + '_>]) -> Outcome;

    /// Entry names this game reserves for itself (empty and repeated names are refused
    /// by the loaders for every game).
    fn reserved_names() -> &'static [&'static str] {
        &[]
    }
}

/// The result of one finished game.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Outcome {
    /// The game's seed.
    pub seed: u64,
    /// Turns played.
    pub turns: u32,
    /// Score per entry, indexed like the entry names.
    pub scores: Vec<u32>,
    /// Bot call counters per entry.
    pub stats: Vec<CallStats>,
    /// Per entry, the measure that breaks ties of the ranking key, lower being better
    /// (target: the distance of its best copy to the target at the end); empty for
    /// games without one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tiebreak: Vec<f64>,
}

/// The generator behind every random choice of a game (PCG, seeded once per game).
pub type GameRng = rand_pcg::Pcg64Mcg;

/// The bots' view of a generator: a [`Random`] that draws from `rng` for as long as the
/// borrow lasts.
#[inline]
pub fn random_source(rng: &mut GameRng) -> Random<'_> {
    // SAFETY: `rng` is exclusively borrowed for the Random's lifetime, and `next_u64`
    // casts the pointer back to the same type.
    unsafe { Random::from_raw((rng as *mut GameRng).cast::<c_void>(), NEXT_U64) }
}

/// The function of every [`Random`] that [`random_source`] makes, taken from this one
/// place, so that `crate::replay::generator_of` recognises it by its value (the address
/// of a function named in two places may differ).
pub static NEXT_U64: extern "C" fn(*mut c_void) -> u64 = next_u64;

extern "C" fn next_u64(state: *mut c_void) -> u64 {
    // SAFETY: `state` is the `GameRng` a `Random` was made from (see `random_source`).
    let rng = unsafe { &mut *state.cast::<GameRng>() };
    rng.next_u64()
}
