//! Test fixture: panics on the first call of each game (after a line to its log), then
//! stays. A fresh instance per game means exactly one panic per game.

use zombies_plugin_abi::{Action, Context, ZombiesPlayer, export_bot};

/// Counts its calls.
#[derive(Debug)]
pub struct Panicky {
    calls: u64,
}

impl ZombiesPlayer for Panicky {
    const NAME: &'static str = "Panicky";
    fn new() -> Self {
        Panicky { calls: 0 }
    }
    fn turn(&mut self, ctx: &Context<'_>) -> Action {
        self.calls += 1;
        if self.calls == 1 {
            zombies_plugin_abi::log!("about to panic on turn {}", ctx.clock);
            panic!("first call of the game");
        }
        Action::stay()
    }
}

export_bot!(Panicky);
