//! Sharpshooter: shoots the zombies that come close, runs from the others, and walks to
//! corpses to scavenge their bullets when its gun is empty.
//!
//! A tutorial in three rules, checked in order for each player:
//! 1. a zombie within 2 cells will be next to us after its move (and bite us next
//!    turn): shoot the nearest such zombie if we have a bullet;
//! 2. otherwise, if zombies are in view, step to the free cell farthest from them;
//! 3. otherwise, with no bullets, walk next to the nearest corpse we have not yet
//!    emptied: a corpse keeps the bullets of the player it was, and standing next to
//!    it at the end of a turn hands them over.

use std::collections::HashSet;

use zombies_plugin_abi::{Action, Context, Direction, Id, ZombiesPlayer, export_bot};

/// One instance per game, shared by all 50 players of the entry.
#[derive(Debug, Default)]
pub struct Sharpshooter {
    /// Corpses (by number) some player of ours already stood next to: they are empty.
    emptied: HashSet<u32>,
}

/// Chebyshev distance of an offset.
fn dist(dx: i32, dy: i32) -> i32 {
    dx.abs().max(dy.abs())
}

/// Every zombie in view, as offsets from the player.
fn zombies(ctx: &Context<'_>) -> Vec<(i32, i32, Id)> {
    let mut found = Vec::new();
    for dx in -8..=8 {
        for dy in -8..=8 {
            if let Some(id) = ctx.look(dx, dy).filter(|id| id.is_zombie()) {
                found.push((dx, dy, id));
            }
        }
    }
    found
}

/// The free neighbouring cell (or staying) that keeps us farthest from all zombies.
fn flee(ctx: &Context<'_>, zombies: &[(i32, i32, Id)]) -> Direction {
    let score = |d: Direction| {
        let (mx, my) = d.delta();
        zombies.iter().map(|&(zx, zy, _)| dist(zx - mx, zy - my)).min().unwrap_or(i32::MAX)
    };
    Direction::ALL
        .into_iter()
        .filter(|&d| d == Direction::Stay || ctx.look(d.delta().0, d.delta().1).is_none())
        .max_by_key(|&d| score(d))
        .unwrap_or(Direction::Stay)
}

impl ZombiesPlayer for Sharpshooter {
    const NAME: &'static str = "Sharpshooter";

    fn new() -> Self {
        Sharpshooter::default()
    }

    fn turn(&mut self, ctx: &Context<'_>) -> Action {
        let zombies = zombies(ctx);
        // Rule 1: shoot what would bite us.
        let threat = zombies.iter().filter(|(dx, dy, _)| dist(*dx, *dy) <= 2).min_by_key(|(dx, dy, _)| dist(*dx, *dy));
        if let (true, Some(&(_, _, target))) = (ctx.bullets > 0, threat) {
            zombies_plugin_abi::debug!("shoot zombie {} (it would bite)", target.number);
            return Action::shoot(target);
        }
        // Rule 2: run.
        if !zombies.is_empty() {
            zombies_plugin_abi::debug!("run from {} zombies in sight", zombies.len());
            return Action::go(flee(ctx, &zombies));
        }
        // Rule 3: scavenge. Corpses next to us right now were emptied at the end of the
        // last turn (if they had anything), so remember them.
        for (dx, dy) in [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)] {
            if let Some(body) = ctx.look(dx, dy).filter(|id| id.is_dead_body()) {
                self.emptied.insert(body.number);
            }
        }
        if ctx.bullets == 0 {
            let mut nearest: Option<(i32, i32, i32)> = None;
            for dx in -8..=8i32 {
                for dy in -8..=8i32 {
                    let Some(id) = ctx.look(dx, dy) else { continue };
                    if id.is_dead_body() && !self.emptied.contains(&id.number) {
                        let d = dist(dx, dy);
                        if nearest.is_none_or(|(_, _, best)| d < best) {
                            nearest = Some((dx, dy, d));
                        }
                    }
                }
            }
            if let Some((dx, dy, _)) = nearest {
                let step = Direction::toward(dx, dy);
                let (sx, sy) = step.delta();
                if ctx.look(sx, sy).is_none() {
                    zombies_plugin_abi::debug!("scavenge the body at ({dx}, {dy})");
                    return Action::go(step);
                }
            }
        }
        Action::stay()
    }
}

export_bot!(Sharpshooter);
