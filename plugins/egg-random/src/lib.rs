//! EggRandom: the Easter Egg Hunt baseline. Every turn its player takes a uniformly
//! random direction `1..=9` and a uniformly random action `A`/`C`/`N`.
//!
//! The randomness comes from `ctx.random`, the game's seeded generator, so a game
//! replays from its seed.

use zombies_plugin_abi::eggs::{ATTACK, COUNTER, EggsAnswer, EggsContext, EggsPlayer, NOTHING};
use zombies_plugin_abi::export_eggs_bot;

/// The bot; it keeps no state.
#[derive(Debug)]
pub struct EggRandom;

impl EggsPlayer for EggRandom {
    const NAME: &'static str = "EggRandom";

    fn new() -> Self {
        EggRandom
    }

    fn turn(&mut self, ctx: &EggsContext<'_>, answer: &mut EggsAnswer) {
        let direction = 1 + ctx.random(9);
        let action = [ATTACK, COUNTER, NOTHING][ctx.random(3) as usize];
        answer.go(direction, action);
    }
}

export_eggs_bot!(EggRandom);
