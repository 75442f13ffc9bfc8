//! The arena as a library: the game boundary (`game`) and the games (`games`), the bot
//! interface every kind of bot sits behind, bot loaders, limits and isolation,
//! tournaments and replays. The `arena` binary is a thin CLI over it; see
//! `ARCHITECTURE.md` for the code map.

pub mod alloc_meter;
pub mod bench;
pub mod bot;
pub mod clock;
pub mod debug;
pub mod decide;
pub mod game;
pub mod games;
pub mod isolate;
pub mod kit;
pub mod limits;
pub mod loaders;
pub mod play;
pub mod plot;
pub mod process;
pub mod replay;
pub mod report;
pub mod rules;
pub mod tournament;

pub use zombies_plugin_abi as abi;
