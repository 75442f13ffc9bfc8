//! The eggs text protocol for program bots: the seed's, exactly. Each call sends six
//! lines (the five view rows, north to south, then the memory line) and reads three
//! (the direction digit, the action letter, the new memory); a program that prints one
//! line only answers action `N` and an empty memory.
//!
//! By default the program is run once per turn, as in the original contest, so
//! answers written for it play unchanged. With `arena: eggs persistent` among its
//! first lines, one process plays the whole game and answers each request with exactly
//! three lines (flushing after each answer).
//!
//! The lines are typed: [`Request`] and [`Answer`], each written and read in one place
//! (serde gives them a JSON form too). The protocol's version is [`VERSION`]; a program
//! that declares it (`arena: eggs protocol 1`) gets the line `arena eggs protocol 1`
//! first in each of its processes, one that declares none the six lines only.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use zombies_plugin_abi::eggs::{EggsAnswer, EggsContext};

use super::{Eggs, answer, engine};
use crate::bot::{Bot, BotError, BotFactory};
use crate::game::Rules as _;
use crate::loaders::program::{Program, Talker};

/// The version of the eggs program protocol this host speaks: the seed's lines, which a
/// program that declares `arena: eggs protocol 1` gets after the line `arena eggs
/// protocol 1` in each of its processes.
pub const VERSION: u32 = 1;

/// The bots of a program (refused when it asks for another version of the protocol).
pub(super) fn bots(program: Program) -> Result<Arc<dyn BotFactory<Eggs>>, String> {
    let program = program.speaking(Eggs::NAME, VERSION)?;
    let factory = move || Ok(Box::new(ProgramBot(Talker::new(program.clone()))) as Box<dyn Bot<Eggs>>);
    Ok(Arc::new(factory))
}

struct ProgramBot(Talker);

/// A call's six lines: the five view rows, north to south, then the memory (bytes: a
/// memory is what the bot gave back, cut at its cap, without line breaks).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    /// The 5x5 view, north to south.
    pub view: [[u8; 5]; 5],
    /// The memory the bot gave back last turn, `\n` and `\r` left out.
    pub memory: Vec<u8>,
}

impl Request {
    /// The request of a call.
    pub fn of(ctx: &EggsContext<'_>) -> Request {
        let memory = ctx.memory.as_slice().iter().copied().filter(|&b| b != b'\n' && b != b'\r').collect();
        Request { view: ctx.view, memory }
    }

    /// Its six lines, as sent.
    pub fn write(&self, text: &mut Vec<u8>) {
        for row in &self.view {
            text.extend_from_slice(row);
            text.push(b'\n');
        }
        text.extend_from_slice(&self.memory);
        text.push(b'\n');
    }

    /// A request from its six lines.
    pub fn read(text: &[u8]) -> Result<Request, String> {
        let lines: Vec<&[u8]> = text.strip_suffix(b"\n").unwrap_or(text).split(|&b| b == b'\n').collect();
        let [rows @ .., memory] = &lines[..] else { return Err("no line".into()) };
        let rows: Vec<[u8; 5]> = rows
            .iter()
            .map(|row| <[u8; 5]>::try_from(*row).map_err(|_| format!("a view row of {} bytes, not 5", row.len())))
            .collect::<Result<_, _>>()?;
        let view = rows.try_into().map_err(|rows: Vec<_>| format!("{} view rows, not 5", rows.len()))?;
        Ok(Request { view, memory: memory.to_vec() })
    }
}

/// The six lines of a call.
pub fn request(ctx: &EggsContext<'_>) -> Vec<u8> {
    let mut text = Vec::with_capacity(40 + ctx.memory.len());
    Request::of(ctx).write(&mut text);
    text
}

/// A program's answer: three lines, the direction digit (`1`..`9`), the action letter
/// (`A`, `C`, `N`; blank or missing: `N`) and the new memory (missing: empty).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    /// `1` NW, `2` N, `3` NE, `4` E, `5` SE, `6` S, `7` SW, `8` W, `9` stay.
    pub direction: u8,
    /// The action.
    pub action: Action,
    /// The memory given back next turn.
    pub memory: String,
}

/// An answer's action, by its letter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub enum Action {
    #[serde(rename = "A")]
    Attack,
    #[serde(rename = "C")]
    Counter,
    #[serde(rename = "N")]
    Nothing,
}

impl Answer {
    /// The answer in a program's lines.
    pub fn read(lines: &[String]) -> Result<Answer, String> {
        let parts: Vec<&str> = lines.iter().map(String::as_str).collect();
        let parsed = engine::parse_answer(&parts[..parts.len().min(2)])?;
        let action = match parsed.act {
            engine::Act::Attack => Action::Attack,
            engine::Act::Counter => Action::Counter,
            engine::Act::Nothing => Action::Nothing,
        };
        let memory = parts.get(2).copied().unwrap_or("").trim_end_matches('\r').to_owned();
        Ok(Answer { direction: parsed.dir, action, memory })
    }

    /// Its three lines, as a program writes them.
    pub fn lines(&self) -> [String; 3] {
        let letter = match self.action {
            Action::Attack => "A",
            Action::Counter => "C",
            Action::Nothing => "N",
        };
        [self.direction.to_string(), letter.to_owned(), self.memory.clone()]
    }

    /// The answer as the game takes it.
    pub fn to_abi(&self) -> EggsAnswer {
        let action = match self.action {
            Action::Attack => zombies_plugin_abi::eggs::ATTACK,
            Action::Counter => zombies_plugin_abi::eggs::COUNTER,
            Action::Nothing => zombies_plugin_abi::eggs::NOTHING,
        };
        answer(u32::from(self.direction), action, self.memory.as_bytes())
    }
}

/// The answer in a program's lines: direction, action (blank or missing: `N`), memory.
pub fn read_answer(lines: &[String]) -> Result<EggsAnswer, BotError> {
    Answer::read(lines).map(|a| a.to_abi()).map_err(BotError::Invalid)
}

impl Bot<Eggs> for ProgramBot {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_requests_six_lines_read_back_as_the_request() {
        let request =
            Request { view: [*b"#####", *b"#  o#", *b"# * #", *b"#P  #", *b"#####"], memory: b"12\xff".to_vec() };
        let mut text = Vec::new();
        request.write(&mut text);
        assert_eq!(text, b"#####\n#  o#\n# * #\n#P  #\n#####\n12\xff\n");
        assert_eq!(Request::read(&text), Ok(request.clone()));
        let json = serde_json::to_string(&request).unwrap();
        assert_eq!(serde_json::from_str::<Request>(&json).unwrap(), request);
        assert!(Request::read(b"#####\n###\n").is_err());
    }

    #[test]
    fn an_answers_three_lines_read_back_as_the_answer() {
        for action in [Action::Attack, Action::Counter, Action::Nothing] {
            let answer = Answer { direction: 4, action, memory: "n=3".into() };
            assert_eq!(Answer::read(&answer.lines()), Ok(answer.clone()));
            let json = serde_json::to_string(&answer).unwrap();
            assert_eq!(serde_json::from_str::<Answer>(&json).unwrap(), answer);
        }
        let short = Answer::read(&["9".into()]).unwrap();
        assert_eq!((short.action, short.memory.as_str()), (Action::Nothing, ""));
        assert!(Answer::read(&["0".into()]).is_err());
    }
}
