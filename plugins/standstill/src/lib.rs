//! The smallest possible bot: every player stays put, forever.
//!
//! A native bot is a `cdylib` crate with one type implementing `ZombiesPlayer` and one
//! `export_bot!` line. Build it with `cargo build --release -p standstill` and the host
//! finds `target/release/libstandstill.so` (or drop that file into `plugins/`).

use zombies_plugin_abi::{Action, Context, ZombiesPlayer, export_bot};

/// The bot. One instance per game serves all of the entry's players.
#[derive(Debug)]
pub struct StandStill;

impl ZombiesPlayer for StandStill {
    // The entry's name: unique among the entries, not "Zombie" nor "DeadBody".
    const NAME: &'static str = "StandStill";

    // Called at the start of every game.
    fn new() -> Self {
        StandStill
    }

    // Called once per living player per turn.
    fn turn(&mut self, _ctx: &Context<'_>) -> Action {
        Action::stay()
    }
}

export_bot!(StandStill);
