//! The zombie survival game "Save the last bullet for yourself": its board and its rules.
//!
//! Everything specific to this game lives here; loading, limiting and calling bots does
//! not (see `bot` and `loaders`). The spec is `shared/rules/zombies.md`.

pub mod board;
pub mod game;

pub use board::Board;
pub use game::{
    EntityInfo, Game, GameConfig, GameOutcome, GameRng, Kind, PLAYERS_PER_ENTRY, STARTING_BULLETS, STEPS, ShotRecord,
    board_side, random_source,
};
