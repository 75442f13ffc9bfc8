//! The eggs text protocol for program bots: the seed's, exactly. Each call sends six
//! lines (the five view rows, north to south, then the memory line) and reads three
//! (the direction digit, the action letter, the new memory); a program that prints one
//! line only answers action `N` and an empty memory.
//!
//! By default the program is run once per turn, as in the original contest, so
//! answers written for it play unchanged. With `arena: eggs persistent` among its
//! first lines, one process plays the whole game and answers each request with exactly
//! three lines (flushing after each answer).

use std::sync::Arc;

use zombies_plugin_abi::eggs::{EggsAnswer, EggsContext};

use super::{EggHunt, answer, rules};
use crate::bot::{Bot, BotError, BotFactory};
use crate::game::Rules as _;
use crate::loaders::program::{Program, Talker};

/// The version of the eggs program protocol this host speaks: the seed's lines, which a
/// program that declares `arena: eggs protocol 1` gets after the line `arena eggs
/// protocol 1` in each of its processes.
pub const VERSION: u32 = 1;

/// The bots of a program (refused when it asks for another version of the protocol).
pub(super) fn bots(program: Program) -> Result<Arc<dyn BotFactory<EggHunt>>, String> {
    let program = program.speaking(EggHunt::NAME, VERSION)?;
    let factory = move || Ok(Box::new(ProgramBot(Talker::new(program.clone()))) as Box<dyn Bot<EggHunt>>);
    Ok(Arc::new(factory))
}

struct ProgramBot(Talker);

/// The six lines of a call.
pub fn request(ctx: &EggsContext<'_>) -> Vec<u8> {
    let mut text = Vec::with_capacity(40 + ctx.memory.len());
    for row in &ctx.view {
        text.extend_from_slice(row);
        text.push(b'\n');
    }
    text.extend(ctx.memory.as_slice().iter().filter(|&&b| b != b'\n' && b != b'\r'));
    text.push(b'\n');
    text
}

/// The answer in a program's lines: direction, action (blank or missing: `N`), memory.
pub fn read_answer(lines: &[String]) -> Result<EggsAnswer, BotError> {
    let parts: Vec<&str> = lines.iter().map(String::as_str).collect();
    let parsed = rules::parse_answer(&parts[..parts.len().min(2)]).map_err(BotError::Invalid)?;
    let action = match parsed.act {
        rules::Act::Attack => zombies_plugin_abi::eggs::ATTACK,
        rules::Act::Counter => zombies_plugin_abi::eggs::COUNTER,
        rules::Act::Nothing => zombies_plugin_abi::eggs::NOTHING,
    };
    let memory = parts.get(2).copied().unwrap_or("");
    Ok(answer(u32::from(parsed.dir), action, memory.trim_end_matches('\r').as_bytes()))
}

impl Bot<EggHunt> for ProgramBot {
    fn turn(&mut self, ctx: &EggsContext<'_>) -> Result<EggsAnswer, BotError> {
        let lines = self.0.ask(&request(ctx), 3)?;
        read_answer(&lines)
    }

    fn times_itself(&self) -> bool {
        true
    }

    fn call_time(&self) -> Option<std::time::Duration> {
        self.0.last_time()
    }
}
