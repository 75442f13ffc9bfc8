//! HexBasic: the hex humans vs zombies baseline, for both sides.
//!
//! - Humans: six pistols placed around the middle of the map; each shoots the nearest
//!   zombie in range as often as its idle time allows, and never moves.
//! - Zombies: spawned in the zones in turn, facing inwards; each bites a human next to it,
//!   else steps forward, and turns (a random way) when a wall or the edge is in front.
//!
//! The randomness comes from `ctx.random`, the game's seeded generator, so a game replays
//! from its seed.

use zombies_plugin_abi::export_hex_bot;
use zombies_plugin_abi::hex::{
    CALL_SPAWN_HUMANS, CALL_SPAWN_ZOMBIES, DIRS, HUMANS, HexAnswer, HexCommand, HexContext, HexPlayer, ZONES, distance,
    in_bounds, weapon,
};

/// The bot: the next zone to spawn in.
#[derive(Debug, Default)]
pub struct HexBasic {
    zone: usize,
}

/// The facing that points from zone `k`'s edge into the board.
const INWARD: [u32; 4] = [0, 4, 3, 1];

impl HexBasic {
    fn humans(ctx: &HexContext<'_>, answer: &mut HexAnswer) {
        let Some(me) = ctx.me_human() else { return };
        let range = weapon::RANGE.get(me.weapon as usize).copied().unwrap_or(1);
        let target =
            ctx.zombies.iter().map(|z| (distance(me.x, me.y, z.x, z.y), z.id)).filter(|&(d, _)| d <= range).min();
        if let Some((_, id)) = target {
            for _ in 0..4 {
                answer.push(HexCommand::attack(id));
            }
        }
    }

    fn zombie(ctx: &HexContext<'_>, answer: &mut HexAnswer) {
        let Some(me) = ctx.me_zombie() else { return };
        if let Some(h) = ctx.humans.iter().find(|h| distance(me.x, me.y, h.x, h.y) <= 1) {
            answer.push(HexCommand::attack(h.id));
            return;
        }
        let (dx, dy) = DIRS[me.facing as usize % 6];
        let (fx, fy) = (me.x + dx, me.y + dy);
        if !in_bounds(fx, fy) || ctx.wall_at(fx, fy) {
            answer.push(HexCommand::turn(if ctx.random(2) == 0 { 1 } else { -1 }));
        } else {
            answer.push(HexCommand::forward());
        }
    }
}

impl HexPlayer for HexBasic {
    const NAME: &'static str = "HexBasic";

    fn new() -> Self {
        HexBasic::default()
    }

    fn turn(&mut self, ctx: &HexContext<'_>, answer: &mut HexAnswer) {
        match ctx.call {
            CALL_SPAWN_HUMANS => {
                // Around (2, 2), in an open hall of the office.
                for (x, y) in [(2, 2), (3, 2), (2, 3), (1, 2), (2, 1), (3, 1), (1, 3), (4, 2)] {
                    if !ctx.wall_at(x, y) {
                        answer.push(HexCommand::spawn_human(x, y, weapon::PISTOL));
                    }
                }
            }
            CALL_SPAWN_ZOMBIES => {
                for _ in 0..ctx.zombies_to_spawn.min(16) {
                    let k = self.zone % 4;
                    self.zone += 1;
                    answer.push(HexCommand::spawn_zombie(ZONES[k], INWARD[k]));
                }
            }
            _ if ctx.side == HUMANS => Self::humans(ctx, answer),
            _ => Self::zombie(ctx, answer),
        }
    }
}

export_hex_bot!(HexBasic);
