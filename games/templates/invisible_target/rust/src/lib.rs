//! {{NAME}}: an "Invisible target" bot for the arena, written by `arena new-bot`. Build
//! it with `cargo build --release` (see README.md).
//!
//! The game in a few lines (all of it: the arena's `docs/games/target.md`): a target
//! hides on a cell of a 64x64 torus (positions `p = 64 * y + x`). Every entry fields
//! copies of its player; they move in turn (north, west, stay, east, south), and now and
//! then a wall appears, never one that would cut any player off from the target. The
//! game ends after a round in which nobody moved; each copy nearest the target then
//! scores a point. Your one bot is called once per copy, on that copy's turn, and sees
//! its position, the wall added since its previous turn, and every other player.
//!
//! This starting strategy: spread out, since a copy far from everyone else is the
//! nearest to more of the places the target can be. For the first 100 rounds a copy
//! steps away from the nearest other player while one is within 8 cells, never into a
//! known wall; then it stays. The walls say where the target can be: use them.

use zombies_plugin_abi::export_target_bot;
use zombies_plugin_abi::target::{
    CELLS, EAST, NO_WALL, NORTH, SOUTH, STAY, TargetContext, TargetPlayer, WEST, distance, step,
};

/// The bot: one per game (`new`), shared by all of your copies.
#[derive(Debug)]
pub struct MyBot {
    /// Every wall a copy was told about (walls never go away).
    wall: Vec<bool>,
}

impl TargetPlayer for MyBot {
    /// The entry's name in the arena (unique).
    const NAME: &'static str = "{{NAME}}";

    fn new() -> Self {
        // Called at the start of every game.
        // `log!` writes a line to this entry's log (logs/{{NAME}}.log with `--logs`).
        zombies_plugin_abi::log!("new game");
        MyBot { wall: vec![false; CELLS as usize] }
    }

    fn turn(&mut self, ctx: &TargetContext<'_>) -> u32 {
        if ctx.new_wall != NO_WALL {
            self.wall[ctx.new_wall as usize] = true;
        }
        let others = ctx.others.as_slice();
        // How far `p` is from the nearest other player (own copies included).
        let nearest = |p: u32| others.iter().map(|&o| distance(p, u32::from(o))).min().unwrap_or(u32::MAX);

        let here = nearest(ctx.me);
        if ctx.round >= 100 || here >= 8 {
            return STAY;
        }
        // The move that gets farthest from the nearest player; a move into a wall or
        // onto another player fails (the copy stays).
        let mut best = (here, STAY);
        for mv in [NORTH, WEST, EAST, SOUTH] {
            let to = step(ctx.me, mv);
            if self.wall[to as usize] || others.iter().any(|&o| u32::from(o) == to) {
                continue;
            }
            let d = nearest(to);
            // Equal choices are broken at random, from the game's generator, so games
            // replay from their seed.
            if d > best.0 || (d == best.0 && best.1 != STAY && ctx.random(2) == 0) {
                best = (d, mv);
            }
        }
        best.1
    }
}

export_target_bot!(MyBot);
