//! Hex humans vs zombies ("Survive!", MegaMinerAI 3, 2009), not yet hosted as a game (issue: the
//! two-sided game): the pure rules engine, built to
//! `rules/hexzombies.md` sections 1–10 and checked against the original server's golden traces.
//!
//! What this is: the board (`board`), the static tables and the office map (`data`), the typed
//! objects, commands and snapshots (`state`), the engine (`engine`: set-up, commands, boundary) and
//! side visibility (`view`). What it is not: no bot calling, no clocks, no tournament (spec 11 is
//! the host's job); no randomness: a game is a function of the commands.

pub mod board;
pub mod data;
pub mod engine;
pub mod state;
pub mod view;

pub use engine::Hex;
pub use state::{Airstrike, Command, Contents, Crate, Human, Side, State, Wall, Zombie};
pub use view::View;
