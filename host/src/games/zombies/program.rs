//! The zombies text protocol for program bots (any language), one line per call.
//!
//! One process plays the whole game for its entry (the entry's shared instance: it is
//! asked once per living player per turn, and may keep state to coordinate them). Each
//! call is one line of space-separated integers:
//!
//! `clock owner number x y bullets side k` then, `k` times, `dx dy owner number`
//!
//! for the player being decided (its entry index `owner`, its `number`, position,
//! bullets, the board's side) and every entity in its 17x17 view (itself included),
//! columns `dx = -8..8`, rows `dy = -8..8` in each, where `owner` is an entry index,
//! `-1` for a zombie or `-2` for a dead body. The answer is one line: a move (`N`,
//! `NE`, `E`, `SE`, `S`, `SW`, `W`, `NW`, `STAY`) or `SHOOT <number>` naming an entity
//! in view. Programs must flush standard output after each answer.
//!
//! A turn's calls reach the program together (one write, the calls in the turn's
//! order), since every call of a turn sees the same snapshot: a program that reads a
//! line and answers it, as the protocol asks, needs no change for it.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::sync::Arc;

use zombies_plugin_abi::{Action, Context, Id};

use super::{Zombies, parse_move};
use crate::bot::{Bot, BotError, BotFactory};
use crate::game::Rules as _;
use crate::loaders::program::{Program, Talker};

/// The version of the zombies program protocol this host speaks: the lines above, which a
/// program that declares `arena: zombies protocol 1` gets after the line `arena zombies
/// protocol 1`.
pub const VERSION: u32 = 1;

/// The bots of a program (always one process per game; refused when it asks for another
/// version of the protocol).
pub(super) fn bots(program: Program) -> Result<Arc<dyn BotFactory<Zombies>>, String> {
    let program = Program { persistent: true, ..program.speaking(Zombies::NAME, VERSION)? };
    let factory = move || {
        Ok(Box::new(ProgramBot { talker: Talker::new(program.clone()), sent: VecDeque::new() })
            as Box<dyn Bot<Zombies>>)
    };
    Ok(Arc::new(factory))
}

/// A program bot. The calls of a turn see one snapshot, so the engine tells the bot
/// every call of the turn before the first ([`Bot::prefetch`]) and their lines go to the
/// program in one write: it answers them one after the other, and the host reads each
/// answer at its call (still within that call's limit, on the program's own time).
struct ProgramBot {
    talker: Talker,
    /// The calls sent ahead, oldest first: (clock, player number).
    sent: VecDeque<(u32, u32)>,
}

fn owner_code(id: Id) -> i64 {
    match id.owner {
        Id::ZOMBIE => -1,
        Id::DEAD_BODY => -2,
        o => i64::from(o),
    }
}

/// The request line of a call.
pub fn request(ctx: &Context<'_>) -> String {
    let seen: Vec<(i32, i32, Id)> = ctx.visible().collect();
    let mut line = format!(
        "{} {} {} {} {} {} {} {}",
        ctx.clock,
        ctx.id.owner,
        ctx.id.number,
        ctx.x,
        ctx.y,
        ctx.bullets,
        ctx.board_size,
        seen.len()
    );
    for (dx, dy, id) in &seen {
        let _ = write!(line, " {dx} {dy} {} {}", owner_code(*id), id.number);
    }
    line.push('\n');
    line
}

/// The action in an answer line.
pub fn read_answer(ctx: &Context<'_>, line: &str) -> Result<Action, BotError> {
    let line = line.trim();
    if let Some(rest) = line.strip_prefix("SHOOT").or_else(|| line.strip_prefix("shoot")) {
        let number: u32 =
            rest.trim().parse().map_err(|_| BotError::Invalid(format!("{line:?}: SHOOT needs an entity number")))?;
        let target = ctx
            .visible()
            .find(|(_, _, id)| id.number == number)
            .map(|(_, _, id)| id)
            .ok_or_else(|| BotError::Invalid(format!("{line:?}: no entity {number} in view")))?;
        return Ok(Action::shoot(target));
    }
    parse_move(line)
}

impl Bot<Zombies> for ProgramBot {
    fn turn(&mut self, ctx: &Context<'_>) -> Result<Action, BotError> {
        let key = (ctx.clock, ctx.id.number);
        let lines = match self.sent.iter().position(|&k| k == key) {
            Some(skip) => {
                self.sent.drain(..=skip);
                self.talker.ask_sent(skip)?
            }
            None => {
                self.sent.clear();
                self.talker.ask(request(ctx).as_bytes(), 1)?
            }
        };
        read_answer(ctx, lines.first().map_or("", String::as_str))
    }

    fn prefetches(&self) -> bool {
        true
    }

    fn prefetch(&mut self, ctx: &Context<'_>) {
        let before = self.talker.sent();
        self.talker.send_ahead(request(ctx).as_bytes());
        if self.talker.sent() > before {
            self.sent.push_back((ctx.clock, ctx.id.number));
        }
    }

    fn times_itself(&self) -> bool {
        true
    }

    fn call_time(&self) -> Option<std::time::Duration> {
        self.talker.last_time()
    }
}
