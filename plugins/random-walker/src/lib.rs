//! RandomWalker: every player takes a uniformly random one of the nine moves each turn
//! (the original control program's `MoveRandomly`).
//!
//! The randomness comes from `ctx.random_move()`, the game's seeded generator, never
//! from a generator of the bot's own: that is what lets a game replay from its seed.

use zombies_plugin_abi::{Action, Context, ZombiesPlayer, export_bot};

/// The bot; it keeps no state.
#[derive(Debug)]
pub struct RandomWalker;

impl ZombiesPlayer for RandomWalker {
    const NAME: &'static str = "RandomWalker";

    fn new() -> Self {
        RandomWalker
    }

    fn turn(&mut self, ctx: &Context<'_>) -> Action {
        Action::go(ctx.random_move())
    }
}

export_bot!(RandomWalker);
