//! TargetRandom: the "Invisible target" baseline. Every copy answers a uniformly random
//! move `0..=4` on each of its turns.
//!
//! The randomness comes from `ctx.random`, the game's seeded generator, so a game
//! replays from its seed.

use zombies_plugin_abi::export_target_bot;
use zombies_plugin_abi::target::{TargetContext, TargetPlayer};

/// The bot; it keeps no state.
#[derive(Debug)]
pub struct TargetRandom;

impl TargetPlayer for TargetRandom {
    const NAME: &'static str = "TargetRandom";

    fn new() -> Self {
        TargetRandom
    }

    fn turn(&mut self, ctx: &TargetContext<'_>) -> u32 {
        ctx.random(5)
    }
}

export_target_bot!(TargetRandom);
