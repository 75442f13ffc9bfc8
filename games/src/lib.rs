//! The games the arena hosts (crate `arena-games`), one module each, and the registry that maps a game's
//! name to its type ([`with_game!`](crate::with_game)) and to what is not a method of
//! [`Game`](crate::game::Game): its performance workloads ([`bench()`]) and the roles of
//! its seats ([`seat_roles`]). Everything else in the host is written once over
//! [`crate::game::Game`], and names no game: this file is the one place outside the
//! games' own directories that does (`tests/layout.rs` checks it).

pub mod eggs;
pub mod hex;
pub mod invisible_target;
pub mod turns;
pub mod zombies;

use std::sync::Arc;

// The lower crates' modules, imported (not re-exported) at the root: a game's module
// names them as `crate::bot`, `crate::clock`, ..., as it did before the crates were
// split.
use arena_core::{bench, bot, game, isolate, kit, limits, loaders, play, plot, replay, tournament};
use arena_system::{alloc_meter, clock, process};

use crate::bench::{BenchError, BenchOptions};
use crate::isolate::Isolation;

/// The names of the games, as `--game` takes them: the one list of games, the plugin
/// ABI's (a library names its game from it), so that a game added there is a game here.
pub const NAMES: [&str; 4] = zombies_plugin_abi::GAMES;

/// The game played when `--game` names none.
pub const DEFAULT: &str = "zombies";

/// Runs `$body` with `$g` bound to the game type named `$name` (a `&str`), or
/// evaluates `$unknown` for a name no game has.
#[macro_export]
macro_rules! with_game {
    ($name:expr, $g:ident => $body:expr, _ => $unknown:expr) => {
        match $name {
            "zombies" => {
                type $g = $crate::zombies::Zombies;
                $body
            }
            "eggs" => {
                type $g = $crate::eggs::Eggs;
                $body
            }
            "target" => {
                type $g = $crate::invisible_target::InvisibleTarget;
                $body
            }
            "hex" => {
                type $g = $crate::hex::Hex;
                $body
            }
            _ => $unknown,
        }
    };
}

/// The starting bot of the game `name` in `lang` for `arena new-bot` (each game's is in
/// its `kit.rs`; `kit` writes it), or `None` for a game or language without one.
pub fn starter(name: &str, lang: &str) -> Option<Vec<kit::File>> {
    match name {
        "zombies" => zombies::kit::STARTERS.files(lang),
        "eggs" => eggs::kit::STARTERS.files(lang),
        "target" => invisible_target::kit::STARTERS.files(lang),
        "hex" => hex::kit::STARTERS.files(lang),
        _ => None,
    }
}

/// Runs the performance workloads of the game `name` (`arena bench`,
/// `docs/performance.md`; each game's are in its `bench.rs`), handing each line of the
/// report to `out` as soon as it is measured.
pub fn bench(name: &str, opts: &BenchOptions, out: &mut dyn FnMut(String)) -> Result<(), BenchError> {
    match name {
        "zombies" => zombies::bench::run(opts, out),
        "eggs" => eggs::bench::run(opts, out),
        "target" => invisible_target::bench::run(opts, out),
        "hex" => hex::bench::run(opts, out),
        other => Err(BenchError::NoWorkloads(other.to_owned())),
    }
}

/// What isolation costs (`arena bench --isolation`): whole tournaments played with the
/// workers of `iso` and without, on zombies workloads whatever the game asked for (the
/// cost measured is the workers', which no game changes).
pub fn isolation_tax(opts: &BenchOptions, iso: &Arc<Isolation>, out: &mut dyn FnMut(String)) -> Result<(), BenchError> {
    zombies::bench::isolation_tax(opts, iso, out)
}

/// What each seat plays in a game that seats its entries in roles (hex: the first seat
/// plays the humans, the second the zombies); empty for a game that names none.
pub fn seat_roles(name: &str) -> &'static [&'static str] {
    match name {
        "hex" => &["humans", "zombies"],
        _ => &[],
    }
}
