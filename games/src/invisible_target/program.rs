//! The target text protocol for program bots: the seed's, exactly. Each **copy** is its
//! own process, started when the entry is first called in a game and kept running for
//! the whole game. On each of its turns it gets one line of `N + 2` space-separated
//! integers — `N + 1`, its position, the new wall (or 4096), the `N - 1` other players'
//! positions in the turn order starting after it — and answers one line holding one
//! integer `0..4`.
//!
//! An answer must come within [`ANSWER_TIME`] (50 ms, the game's own limit, not
//! `--call-timeout-ms`); a late answer leaves the player where it is, and the line, when
//! it comes, is discarded (the process layer books it as owed), never read as the next
//! answer. A process's first answer may also take `--call-timeout-ms` (its start-up is
//! not its thinking time). A process that ended makes its copy stay for the rest of the
//! game (each such turn counts an error). Each copy's process gets its copy index as
//! `ARENA_COPY` beside the game's `ARENA_SEED`.
//!
//! The call's line is typed ([`Request`], written and read in one place; the answer is
//! the game's move, read by `parse_move`). The protocol's version is [`VERSION`]; a
//! program that declares it (`arena: target protocol 1`) gets the line `arena target
//! protocol 1` first in each copy's process, one that declares none the calls' lines only.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use zombies_plugin_abi::target::TargetContext;

use super::{InvisibleTarget, parse_move};
use crate::bot::{Bot, BotError, BotFactory};
use crate::game::Rules as _;
use crate::loaders::program::{Heard, LogSink, Program};
use crate::process::{CallError, Process};

/// How long a copy's process has for one answer (the seed's 50 ms).
pub const ANSWER_TIME: Duration = Duration::from_millis(50);

/// The version of the target program protocol this host speaks: the seed's lines, which
/// a program that declares `arena: target protocol 1` gets after the line `arena target
/// protocol 1` in each copy's process.
pub const VERSION: u32 = 1;

/// The bots of a program (refused when it asks for another version of the protocol).
pub(super) fn bots(program: Program) -> Result<Arc<dyn BotFactory<InvisibleTarget>>, String> {
    // Every copy's process lives for the whole game, whatever the file declares: its
    // limits are a persistent program's (no CPU-seconds cap meant for one call).
    let program = Program { persistent: true, ..program.speaking(InvisibleTarget::NAME, VERSION)? };
    let factory = move || Ok(Box::new(ProgramBot::new(program.clone())) as Box<dyn Bot<InvisibleTarget>>);
    Ok(Arc::new(factory))
}

/// One entry's processes in one game, one per copy.
#[derive(Debug)]
pub struct ProgramBot {
    program: Program,
    /// The own time of the last call (`crate::clock`).
    last_time: Option<Duration>,
    /// Per copy: its process (or why it could not start) and whether it has answered.
    copies: Vec<CopyProcess>,
}

#[derive(Debug)]
struct CopyProcess {
    process: Result<Process, String>,
    answered: bool,
    /// Its standard error since its last answer (what its call says).
    heard: Heard,
}

impl ProgramBot {
    /// Nothing is started until the first call.
    pub fn new(program: Program) -> ProgramBot {
        ProgramBot { program, last_time: None, copies: Vec::new() }
    }

    /// Starts every copy's process (all at once, so that their start-ups overlap).
    fn start(&mut self, copies: u32) {
        self.copies = (0..copies)
            .map(|copy| {
                let heard = Heard::default();
                let sink = Box::new(LogSink::new(Arc::clone(&self.program.log), None, heard.clone()));
                let spec = self.program.spec_with("ARENA_COPY", copy);
                let mut process = Process::spawn(&spec, &self.program.process_limits(), sink)
                    .map_err(|e| format!("{}: {e}", self.program.file_name()));
                if let (Ok(process), Some(hello)) = (&mut process, &self.program.hello) {
                    // Written with the first request, as its first line.
                    process.send_ahead(hello.line().as_bytes(), 0);
                }
                CopyProcess { process, answered: false, heard }
            })
            .collect();
    }
}

/// A call's line: `N + 1` (`N` players), the copy's position, the new wall (or 4096), and
/// the `N - 1` other players' positions in the turn order starting after it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    /// The copy's position.
    pub me: u32,
    /// The wall added since its last turn, or 4096.
    pub new_wall: u32,
    /// The other players' positions, in the turn order starting after it.
    pub others: Vec<u32>,
}

impl Request {
    /// The request of a call.
    pub fn of(ctx: &TargetContext<'_>) -> Request {
        Request { me: ctx.me, new_wall: ctx.new_wall, others: ctx.others.iter().map(|&p| u32::from(p)).collect() }
    }
}

impl std::fmt::Display for Request {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {} {}", self.others.len() + 2, self.me, self.new_wall)?;
        for p in &self.others {
            write!(f, " {p}")?;
        }
        Ok(())
    }
}

impl std::str::FromStr for Request {
    type Err = String;

    fn from_str(line: &str) -> Result<Request, String> {
        let numbers: Vec<u32> = line
            .split_whitespace()
            .map(|w| w.parse().map_err(|_| format!("{w:?} is not a number")))
            .collect::<Result<_, _>>()?;
        match &numbers[..] {
            [n, me, new_wall, others @ ..] if *n as usize == others.len() + 2 => {
                Ok(Request { me: *me, new_wall: *new_wall, others: others.to_vec() })
            }
            _ => Err(format!("{line:?} is not N + 1, the position, the new wall and N - 1 positions")),
        }
    }
}

/// The line of a call: `N + 1`, the position, the new wall, the others.
pub fn request(ctx: &TargetContext<'_>) -> Vec<u8> {
    let mut line = Request::of(ctx).to_string();
    line.push('\n');
    line.into_bytes()
}

impl Bot<InvisibleTarget> for ProgramBot {
    fn turn(&mut self, ctx: &TargetContext<'_>) -> Result<u32, BotError> {
        if self.copies.is_empty() {
            self.start(ctx.copies.max(1));
        }
        let first_timeout = self.program.limits.call_timeout.max(ANSWER_TIME);
        let name = self.program.file_name();
        let copy = self
            .copies
            .get_mut(ctx.copy as usize)
            .ok_or_else(|| BotError::Failed(format!("copy {} of {}", ctx.copy, ctx.copies)))?;
        let process = copy.process.as_mut().map_err(|e| BotError::Failed(e.clone()))?;
        let timeout = if copy.answered { ANSWER_TIME } else { first_timeout };
        let result = process.ask(&request(ctx), 1, timeout);
        copy.heard.said();
        self.last_time = Some(process.last_call_time());
        copy.answered = true;
        match result {
            Ok(lines) => parse_move(lines.first().map_or("", String::as_str)),
            Err(CallError::Timeout) => Err(BotError::Timeout),
            Err(e @ (CallError::Flood | CallError::Garbage(_))) => Err(BotError::Invalid(format!("{name}: {e}"))),
            Err(e @ CallError::KilledFromOutside(_)) => Err(self.program.call_error(e)),
            Err(e) => Err(BotError::Failed(format!("{name} (copy {}): {e}", ctx.copy))),
        }
    }

    fn times_itself(&self) -> bool {
        true
    }

    fn call_time(&self) -> Option<Duration> {
        self.last_time
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_line_reads_back_as_the_request() {
        let request = Request { me: 17, new_wall: 4096, others: vec![3, 200, 41] };
        assert_eq!(request.to_string(), "5 17 4096 3 200 41");
        assert_eq!(request.to_string().parse::<Request>(), Ok(request.clone()));
        let json = serde_json::to_string(&request).unwrap();
        assert_eq!(serde_json::from_str::<Request>(&json).unwrap(), request);
        assert!("4 17 4096 3".parse::<Request>().is_err());
        assert!("3 17 x 3".parse::<Request>().is_err());
    }
}
