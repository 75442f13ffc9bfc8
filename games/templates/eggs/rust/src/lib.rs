//! {{NAME}}: an Easter Egg Hunt bot for the arena, written by `arena new-bot`. Build it
//! with `cargo build --release` (see README.md).
//!
//! The game in a few lines (all of it: the arena's `docs/games/eggs.md`): one player
//! per entry on a walled board strewn with eggs. Each turn your bot sees the 5x5 cells
//! around its player and the memory string it answered last turn, and answers a
//! direction (`dir::NW` = 1 .. `dir::W` = 8 clockwise from the north-west, `dir::STAY` =
//! 9), an action (`ATTACK` beats `NOTHING`, `NOTHING` beats `COUNTER`, `COUNTER` beats
//! `ATTACK` when players fight; stepping onto an egg with `NOTHING` picks it up) and a
//! new memory (at most 1,024 bytes). One point per egg.
//!
//! This starting strategy: step onto an egg next to the player; otherwise walk straight
//! on, turning at random when a wall or the edge is ahead. The memory holds the
//! direction it walks. Change anything below.

use zombies_plugin_abi::eggs::{EggsAnswer, EggsContext, EggsPlayer, NOTHING, OUTSIDE, WALL, dir};
use zombies_plugin_abi::export_eggs_bot;

/// The bot. The arena makes one per game (`new`); its fields last the whole game, so
/// it could keep its state there instead of in the memory string.
#[derive(Debug)]
pub struct MyBot;

impl EggsPlayer for MyBot {
    /// The entry's name in the arena (unique).
    const NAME: &'static str = "{{NAME}}";

    fn new() -> Self {
        // Called at the start of every game.
        // `log!` writes a line to this entry's log (logs/{{NAME}}.log with `--logs`).
        zombies_plugin_abi::log!("new game");
        MyBot
    }

    fn turn(&mut self, ctx: &EggsContext<'_>, answer: &mut EggsAnswer) {
        // `answer` starts as "stay, Nothing" holding the previous memory.

        // 1. An egg next to us: step onto it with Nothing, which picks it up.
        //    `ctx.look(dx, dy)` is the view cell at that offset (x east, y south,
        //    each -2..=2): b'#' wall, b'o' egg, b'*' player, b' ' empty, b'X' outside.
        for d in dir::NW..=dir::W {
            let (dx, dy) = dir::delta(d).unwrap_or((0, 0));
            if ctx.look(dx, dy) == b'o' {
                answer.go(d, NOTHING);
                return;
            }
        }

        // 2. Walk on in the remembered direction; pick another (from the game's
        //    generator, so games replay from their seed) when the way is blocked.
        let remembered = core::str::from_utf8(ctx.memory.as_slice()).ok().and_then(|m| m.parse::<u32>().ok());
        let mut heading = remembered.filter(|d| (dir::NW..=dir::W).contains(d)).unwrap_or(0);
        let blocked = |d: u32| {
            let (dx, dy) = dir::delta(d).unwrap_or((0, 0));
            matches!(ctx.look(dx, dy), WALL | OUTSIDE)
        };
        if heading == 0 || blocked(heading) {
            heading = 1 + ctx.random(8);
        }
        answer.go(heading, NOTHING);
        answer.set_memory(heading.to_string().as_bytes());
    }
}

export_eggs_bot!(MyBot);
