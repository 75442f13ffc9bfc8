//! The arena's core, written once over every game: the bot contract (`bot`, `rules`),
//! the loaders of every kind of bot (`loaders`), replays (`replay`), the game contract
//! (`game`), playing a game under limits (`limits`, `play`), isolation in workers and
//! boxes (`isolate`), tournaments (`tournament`) and the tools over them (`plot`,
//! `bench`, `kit`). Not here: any particular game (crate `arena-games`), the reports and
//! the command line (crates `arena`, `arena-cli`).
//!
//! **Architecture Invariant:** this crate names no game. Its modules are layered
//! (ARCHITECTURE.md, "Layers"; `tests/layout.rs` checks the layers inside this crate,
//! cargo checks the ones between crates).

pub mod bench;
pub mod bot;
pub mod game;
pub mod isolate;
pub mod kit;
pub mod limits;
pub mod loaders;
pub mod play;
pub mod plot;
pub mod replay;
pub mod rules;
pub mod tournament;

// The system layer's modules, imported (not re-exported) at the root: a module here names
// them as `crate::clock`, `crate::process`, ..., as it did before the crates were split.
use arena_system::{alloc_meter, clock, debug, decide, process};
