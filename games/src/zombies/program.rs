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
//! The lines are typed: [`Request`] and [`Answer`], each written and read in one place
//! (serde gives them a JSON form too). The protocol's version is [`VERSION`]; a program
//! that declares it (`arena: zombies protocol 1`) gets the line `arena zombies protocol
//! 1` first, one that declares none its calls' lines only.
//!
//! A turn's calls reach the program together (one write, the calls in the turn's
//! order), since every call of a turn sees the same snapshot: a program that reads a
//! line and answers it, as the protocol asks, needs no change for it.

use std::collections::VecDeque;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use zombies_plugin_abi::{Action, Context, Direction, Id};

use super::Zombies;
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

/// A call's line: the player being decided and every entity in its view, written
/// `clock owner number x y bullets side k` and then `dx dy owner number` per entity.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    /// The turn.
    pub clock: u32,
    /// The player's entry index.
    pub owner: u32,
    /// The player's number.
    pub number: u32,
    /// Its position.
    pub x: u32,
    pub y: u32,
    /// Its bullets.
    pub bullets: u32,
    /// The board's side.
    pub side: u32,
    /// The entities in its 17x17 view (itself included), columns `dx = -8..8`, rows
    /// `dy = -8..8` in each.
    pub seen: Vec<Seen>,
}

/// An entity in view: where, relative to the player, and who (`owner`: an entry index,
/// `-1` for a zombie, `-2` for a dead body).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct Seen {
    pub dx: i32,
    pub dy: i32,
    pub owner: i64,
    pub number: u32,
}

impl Request {
    /// The line of a call.
    pub fn of(ctx: &Context<'_>) -> Request {
        let seen = ctx
            .visible()
            .map(|(dx, dy, id)| {
                let owner = match id.owner {
                    Id::ZOMBIE => -1,
                    Id::DEAD_BODY => -2,
                    o => i64::from(o),
                };
                Seen { dx, dy, owner, number: id.number }
            })
            .collect();
        Request {
            clock: ctx.clock,
            owner: ctx.id.owner,
            number: ctx.id.number,
            x: ctx.x,
            y: ctx.y,
            bullets: ctx.bullets,
            side: ctx.board_size,
            seen,
        }
    }
}

impl std::fmt::Display for Request {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Request { clock, owner, number, x, y, bullets, side, seen } = self;
        write!(f, "{clock} {owner} {number} {x} {y} {bullets} {side} {}", seen.len())?;
        for Seen { dx, dy, owner, number } in seen {
            write!(f, " {dx} {dy} {owner} {number}")?;
        }
        Ok(())
    }
}

impl std::str::FromStr for Request {
    type Err = String;

    fn from_str(line: &str) -> Result<Request, String> {
        fn next<T: std::str::FromStr>(words: &mut std::str::SplitWhitespace<'_>) -> Result<T, String> {
            let word = words.next().ok_or("the line ends early")?;
            word.parse().map_err(|_| format!("{word:?} is not a number here"))
        }
        let words = &mut line.split_whitespace();
        let mut request = Request {
            clock: next(words)?,
            owner: next(words)?,
            number: next(words)?,
            x: next(words)?,
            y: next(words)?,
            bullets: next(words)?,
            side: next(words)?,
            seen: Vec::new(),
        };
        let k: usize = next(words)?;
        for _ in 0..k {
            request.seen.push(Seen { dx: next(words)?, dy: next(words)?, owner: next(words)?, number: next(words)? });
        }
        match words.next() {
            None => Ok(request),
            Some(extra) => Err(format!("{extra:?} after the last entity")),
        }
    }
}

/// A program's answer: a move (`N`, `NE`, ..., `STAY`, in any case) or `SHOOT <number>`.
/// Its serde form is its line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Answer {
    /// A step (or staying).
    Go(Direction),
    /// A shot at the entity of this number in view.
    Shoot(u32),
}

impl std::fmt::Display for Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Answer::Go(d) => f.write_str(d.name()),
            Answer::Shoot(number) => write!(f, "SHOOT {number}"),
        }
    }
}

impl std::str::FromStr for Answer {
    type Err = String;

    fn from_str(line: &str) -> Result<Answer, String> {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("SHOOT").or_else(|| line.strip_prefix("shoot")) {
            return rest
                .trim()
                .parse()
                .map(Answer::Shoot)
                .map_err(|_| format!("{line:?}: SHOOT needs an entity number"));
        }
        Direction::ALL
            .into_iter()
            .find(|d| d.name().eq_ignore_ascii_case(line))
            .map(Answer::Go)
            .ok_or_else(|| format!("unknown move {line:?}"))
    }
}

impl From<Answer> for String {
    fn from(answer: Answer) -> String {
        answer.to_string()
    }
}

impl TryFrom<String> for Answer {
    type Error = String;

    fn try_from(line: String) -> Result<Answer, String> {
        line.parse()
    }
}

/// The request line of a call.
pub fn request(ctx: &Context<'_>) -> String {
    let mut line = Request::of(ctx).to_string();
    line.push('\n');
    line
}

/// The action in an answer line.
pub fn read_answer(ctx: &Context<'_>, line: &str) -> Result<Action, BotError> {
    match line.parse().map_err(BotError::Invalid)? {
        Answer::Go(d) => Ok(Action::go(d)),
        Answer::Shoot(number) => ctx
            .visible()
            .find(|(_, _, id)| id.number == number)
            .map(|(_, _, id)| Action::shoot(id))
            .ok_or_else(|| BotError::Invalid(format!("{:?}: no entity {number} in view", line.trim()))),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_line_reads_back_as_the_request() {
        let request = Request {
            clock: 3,
            owner: 1,
            number: 12,
            x: 40,
            y: 7,
            bullets: 2,
            side: 64,
            seen: vec![Seen { dx: -8, dy: 0, owner: -1, number: 30 }, Seen { dx: 0, dy: 0, owner: 1, number: 12 }],
        };
        let line = request.to_string();
        assert_eq!(line, "3 1 12 40 7 2 64 2 -8 0 -1 30 0 0 1 12");
        assert_eq!(line.parse::<Request>(), Ok(request.clone()));
        let json = serde_json::to_string(&request).unwrap();
        assert_eq!(serde_json::from_str::<Request>(&json).unwrap(), request);
        assert!("3 1 12 40 7 2 64 1 0 0".parse::<Request>().is_err());
        assert!("3 1 12 40 7 2 64 0 5".parse::<Request>().is_err());
    }

    #[test]
    fn an_answer_line_reads_back_as_the_answer() {
        for answer in Direction::ALL.into_iter().map(Answer::Go).chain([Answer::Shoot(17)]) {
            assert_eq!(answer.to_string().parse::<Answer>(), Ok(answer));
            let json = serde_json::to_string(&answer).unwrap();
            assert_eq!(serde_json::from_str::<Answer>(&json).unwrap(), answer);
        }
        assert_eq!(" stay ".parse::<Answer>(), Ok(Answer::Go(Direction::Stay)));
        assert_eq!("shoot 4".parse::<Answer>(), Ok(Answer::Shoot(4)));
        assert!("SHOOT".parse::<Answer>().unwrap_err().contains("needs an entity number"));
        assert!("JUMP".parse::<Answer>().unwrap_err().contains("unknown move"));
    }
}
