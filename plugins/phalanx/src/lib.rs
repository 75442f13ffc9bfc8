//! Phalanx: fifty players, one mind. The shared instance is the whole point: all of an
//! entry's players are decided by the same object, one after the other, so it can
//! coordinate them.
//!
//! - **Fire control.** A zombie already shot at this turn by one of us is not shot at
//!   again (a double shot wastes a bullet); the instance remembers this turn's targets.
//! - **Escort.** Players without bullets walk toward the nearest armed teammate, so
//!   the armed ones cover them. The instance keeps where every armed player stood.
//! - **Ranged defence.** Armed players shoot a zombie as soon as it is within 3.

use std::collections::{BTreeMap, HashSet};

use zombies_plugin_abi::{Action, Context, Direction, ZombiesPlayer, export_bot};

/// The entry's shared mind.
#[derive(Debug, Default)]
pub struct Phalanx {
    /// The turn the sets below describe.
    clock: u32,
    /// Zombies (by number) already shot at this turn.
    targeted: HashSet<u32>,
    /// Armed players' positions, by player number, as of their last decision.
    armed: BTreeMap<u32, (u32, u32)>,
}

fn dist(dx: i32, dy: i32) -> i32 {
    dx.abs().max(dy.abs())
}

/// Signed shortest offset from `a` to `b` on a ring of `side` cells.
fn wrap_delta(a: u32, b: u32, side: u32) -> i32 {
    let d = (b as i64 - a as i64).rem_euclid(side as i64) as i32;
    if d > side as i32 / 2 { d - side as i32 } else { d }
}

impl ZombiesPlayer for Phalanx {
    const NAME: &'static str = "Phalanx";

    fn new() -> Self {
        Phalanx::default()
    }

    fn turn(&mut self, ctx: &Context<'_>) -> Action {
        if ctx.clock != self.clock {
            // A new turn: forget last turn's targets and any teammate no longer armed.
            self.clock = ctx.clock;
            self.targeted.clear();
        }
        if ctx.bullets == 0 {
            self.armed.remove(&ctx.id.number);
        } else {
            self.armed.insert(ctx.id.number, (ctx.x, ctx.y));
            // Nearest zombie within 3 that no teammate has shot at this turn.
            let target = ctx
                .shootable()
                .filter(|(dx, dy, id)| id.is_zombie() && dist(*dx, *dy) <= 3 && !self.targeted.contains(&id.number))
                .min_by_key(|(dx, dy, _)| dist(*dx, *dy));
            if let Some((_, _, id)) = target {
                self.targeted.insert(id.number);
                return Action::shoot(id);
            }
            return Action::stay();
        }
        // Unarmed: head for the nearest armed teammate, stopping next to it.
        let nearest = self
            .armed
            .values()
            .map(|&(x, y)| (wrap_delta(ctx.x, x, ctx.board_size), wrap_delta(ctx.y, y, ctx.board_size)))
            .filter(|&(dx, dy)| dist(dx, dy) > 1)
            .min_by_key(|&(dx, dy)| dist(dx, dy));
        match nearest {
            Some((dx, dy)) => {
                let step = Direction::toward(dx, dy);
                let (sx, sy) = step.delta();
                if ctx.look(sx, sy).is_none() { Action::go(step) } else { Action::go(ctx.random_move()) }
            }
            None => Action::stay(),
        }
    }
}

export_bot!(Phalanx);
