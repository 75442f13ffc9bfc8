//! {{NAME}}: a hex humans vs zombies bot for the arena, written by `arena new-bot`.
//! Build it with `cargo build --release` (see README.md).
//!
//! The game in a few lines (all of it: the arena's docs/games/hex.md): a game seats two
//! entries, the first playing six armed humans on a hex map, the second the zombie horde;
//! your bot plays either side, and each call says which. The humans try to survive as long
//! as they can (up to 1000 half-turns); the zombies try to bite them all. Each call is
//! either a spawn call (place your humans on the first half-turn; spawn zombies in the
//! edge zones 7..10) or a unit call (one per living unit of your side, in id order), and
//! its answer is an ordered list of commands (at most 16; a zombie's first 4 count).
//! Hexes: |x| <= 13 and |y| <= 13; distance |dx| + |dy| when dx * dy > 0, else
//! max(|dx|, |dy|); the six facings 0..5 step (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1),
//! (1, -1).
//!
//! This starting strategy (the bundled baseline): the humans take pistols near the middle
//! and shoot the nearest zombie in range; the zombies spawn in the four zones in turn,
//! facing inwards, bite a human next to them, else step forward, turning a random way at
//! a wall or the edge. Change anything below.

use zombies_plugin_abi::export_hex_bot;
use zombies_plugin_abi::hex::{
    CALL_SPAWN_HUMANS, CALL_SPAWN_ZOMBIES, DIRS, HUMANS, HexAnswer, HexCommand, HexContext, HexPlayer, ZONES, distance,
    in_bounds, weapon,
};

/// The bot: one per game (`new`), for all the calls of the side it plays.
#[derive(Debug, Default)]
pub struct MyBot {
    /// How many zombies it has spawned: the next goes to zone `ZONES[spawned % 4]`.
    spawned: usize,
}

/// The facing that points from zone `ZONES[k]`'s edge into the board.
const INWARD: [u32; 4] = [0, 4, 3, 1];

impl MyBot {
    /// A human's unit call: shoot the nearest zombie in range (a pistol reaches 5).
    fn human(ctx: &HexContext<'_>, answer: &mut HexAnswer) {
        let Some(me) = ctx.me_human() else { return };
        let range = weapon::RANGE.get(me.weapon as usize).copied().unwrap_or(1);
        let target =
            ctx.zombies.iter().map(|z| (distance(me.x, me.y, z.x, z.y), z.id)).filter(|&(d, _)| d <= range).min();
        if let Some((_, id)) = target {
            // A weapon fires as often as its idle time allows; extra shots are skipped.
            for _ in 0..4 {
                answer.push(HexCommand::attack(id));
            }
        }
    }

    /// A zombie's unit call: bite, else forward, else turn.
    fn zombie(ctx: &HexContext<'_>, answer: &mut HexAnswer) {
        let Some(me) = ctx.me_zombie() else { return };
        if let Some(h) = ctx.humans.iter().find(|h| distance(me.x, me.y, h.x, h.y) <= 1) {
            answer.push(HexCommand::attack(h.id));
            return;
        }
        let (dx, dy) = DIRS[me.facing as usize % 6];
        let (fx, fy) = (me.x + dx, me.y + dy);
        if !in_bounds(fx, fy) || ctx.wall_at(fx, fy) {
            // Random numbers from the game's generator keep games reproducible.
            answer.push(HexCommand::turn(if ctx.random(2) == 0 { 1 } else { -1 }));
        } else {
            answer.push(HexCommand::forward());
        }
    }
}

impl HexPlayer for MyBot {
    /// The entry's name in the arena (unique).
    const NAME: &'static str = "{{NAME}}";

    fn new() -> Self {
        // Called at the start of every game.
        // `log!` writes a line to this entry's log (logs/{{NAME}}.log with `--logs`).
        zombies_plugin_abi::log!("new game");
        MyBot::default()
    }

    fn turn(&mut self, ctx: &HexContext<'_>, answer: &mut HexAnswer) {
        match ctx.call {
            CALL_SPAWN_HUMANS => {
                // Six pistols around (2, 2), an open hall of the office map.
                for (x, y) in [(2, 2), (3, 2), (2, 3), (1, 2), (2, 1), (3, 1), (1, 3), (4, 2)] {
                    if !ctx.wall_at(x, y) {
                        answer.push(HexCommand::spawn_human(x, y, weapon::PISTOL));
                    }
                }
            }
            CALL_SPAWN_ZOMBIES => {
                for _ in 0..ctx.zombies_to_spawn.min(16) {
                    let k = self.spawned % 4;
                    self.spawned += 1;
                    answer.push(HexCommand::spawn_zombie(ZONES[k], INWARD[k]));
                }
            }
            _ if ctx.side == HUMANS => Self::human(ctx, answer),
            _ => Self::zombie(ctx, answer),
        }
    }
}

export_hex_bot!(MyBot);
