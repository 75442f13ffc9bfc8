//! The arena as one library, `arena`: the layers' crates under the names the binary, the
//! ladder, the server and the tests use (`arena::clock`, `arena::tournament`,
//! `arena::games`, ...), and the reports of a tournament (`report`), which sit above the
//! games. Not here: any logic of a lower layer; each lives in its crate (see
//! `ARCHITECTURE.md`, "Crates"):
//!
//! - `arena-system`: clocks, the allocation meter, the debug channel, processes and
//!   boxes, the deciding statistics;
//! - `arena-core`: the bot and game contracts, loaders, replays, playing under limits,
//!   isolation, tournaments, plots, benchmarks, the bot kit;
//! - `arena-games`: the four games and their registry (`games`, `with_game!`).
//!
//! The `arena` binary is a thin CLI over this crate (package `arena-cli`).

pub mod report;

pub use arena_core::{bench, bot, game, isolate, kit, limits, loaders, play, plot, replay, rules, tournament};
pub use arena_games as games;
pub use arena_games::with_game;
pub use arena_system::{alloc_meter, clock, debug, decide, process};
pub use zombies_plugin_abi as abi;
