//! The zombies arena as a library: the zombie game engine, the bot interface every
//! kind of bot sits behind, bot loaders and tournaments. The `zombies` binary is a thin
//! CLI over it; see `ARCHITECTURE.md` for the code map.

pub mod alloc_meter;
pub mod bench;
pub mod bot;
pub mod isolate;
pub mod limits;
pub mod loaders;
pub mod plot;
pub mod replay;
pub mod tournament;
pub mod zombies;

pub use zombies_plugin_abi as abi;
