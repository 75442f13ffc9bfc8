//! Replays: a game recorded as its seed plus every bot decision, and redrawn by playing
//! it again through the engine.
//!
//! A game is a function of its seed and of what its bots answer (including how many
//! random numbers each call drew from the game's generator). So a replay stores only
//! that: a header (seed, entries, options, the result) and, per bot call in call order,
//! the effective action and the number of draws. Zombie walks, spawns and the call order
//! are recomputed. A 3,000-turn, 20-entry game takes a few hundred kilobytes, where
//! storing every zombie's every step could not fit in 2 MB.
//!
//! The file: `ZRPL`, format version (u16 LE), rules version (u16 LE), header length
//! (u32 LE), the header as JSON, then the calls, deflate-compressed. Each call is one
//! byte (low 4 bits: direction 0-8 or 9 for a shot; high 4 bits: draws, 15 meaning a
//! varint of draws - 15 follows), then for a shot the target's owner and number as
//! varints.
//!
//! This module records, reads, writes and re-plays; drawing is in [`html`].
//!
//! **Architecture Invariant:** reading never panics on any input: every defect is a
//! [`ReplayError`], one line. A replay that does not re-play to the result in its header
//! (corrupt, or recorded by another version of the rules) is an error too.

pub mod html;

use std::cell::RefCell;
use std::ffi::c_void;
use std::io::{Read, Write};
use std::rc::Rc;

use flate2::Compression;
use flate2::read::DeflateDecoder;
use flate2::write::DeflateEncoder;
use zombies_plugin_abi::{Action, Context, Direction, Id, Random};

use crate::bot::{Bot, BotError, Entry};
use crate::zombies::{Game, GameConfig, GameOutcome};

/// Version of the file layout.
pub const FORMAT_VERSION: u16 = 1;
/// Version of how the engine plays a seed: the rules, and every order they leave free
/// (such as the order in which bitten players get their new numbers). Bumped whenever
/// the same seed and answers would make another game; replays re-play only under the
/// same. 2: bitten players are turned row by row.
pub const RULES_VERSION: u16 = 2;
const MAGIC: &[u8; 4] = b"ZRPL";

/// What is wrong with a replay file: one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// Not a replay at all.
    #[error("not a zombies replay (no ZRPL signature)")]
    NotAReplay,
    /// Written by another version.
    #[error("replay format {0} / rules {1}, this program reads format {FORMAT_VERSION} / rules {RULES_VERSION}")]
    Version(u16, u16),
    /// The file ends early.
    #[error("truncated replay: {0}")]
    Truncated(&'static str),
    /// A part cannot be decoded.
    #[error("corrupt replay: {0}")]
    Corrupt(String),
    /// It does not re-play to the result it records.
    #[error("replay does not re-play to its recorded result ({0}): corrupt, or recorded by another engine")]
    Mismatch(String),
}

/// The facts of a recorded game.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Header {
    /// The game's seed.
    pub seed: u64,
    /// Entry names, by owner index.
    pub names: Vec<String>,
    /// Players per entry.
    pub players_per_entry: u32,
    /// The turn limit, if any.
    pub max_turns: Option<u32>,
    /// Turns played.
    pub turns: u32,
    /// Final scores, by owner index.
    pub scores: Vec<u32>,
}

/// One bot call: the action the engine applied and the random numbers drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Call {
    /// A move (a failed or invalid call is recorded as staying) or a shot.
    pub action: Action,
    /// How many 64-bit random numbers the call drew from the game's generator.
    pub draws: u32,
}

/// A recorded game.
#[derive(Debug, Clone, PartialEq)]
pub struct Replay {
    /// The game's facts.
    pub header: Header,
    /// Every bot call, in call order.
    pub calls: Vec<Call>,
}

/// Plays one game like [`crate::tournament::play_game`] and records it.
pub fn play_recorded(entries: &[Entry], seed: u64, config: GameConfig) -> (GameOutcome, Replay) {
    play_recorded_with(entries, seed, config, |_, bot| bot)
}

/// [`play_recorded`] with every bot passed through `wrap` first (the recording sees
/// what the wrapped bot answers).
pub fn play_recorded_with<'a>(
    entries: &[Entry],
    seed: u64,
    config: GameConfig,
    wrap: impl Fn(usize, Box<dyn Bot>) -> Box<dyn Bot + 'a>,
) -> (GameOutcome, Replay) {
    let tape = Rc::new(RefCell::new(Vec::new()));
    let outcome = crate::tournament::play_game_with(entries, seed, config, |i, bot| {
        Box::new(Recording { inner: wrap(i, bot), tape: Rc::clone(&tape) }) as Box<dyn Bot + 'a>
    });
    let names: Vec<String> = entries.iter().map(|e| e.name.clone()).collect();
    let calls = Rc::try_unwrap(tape).map(RefCell::into_inner).unwrap_or_else(|rc| rc.borrow().clone());
    let header = Header {
        seed,
        names,
        players_per_entry: config.players_per_entry,
        max_turns: config.max_turns,
        turns: outcome.turns,
        scores: outcome.scores.clone(),
    };
    (outcome, Replay { header, calls })
}

/// Counts the draws a bot makes through the context it is given.
struct Counter<'a> {
    inner: Random<'a>,
    draws: u32,
}

extern "C" fn counted(state: *mut c_void) -> u64 {
    // SAFETY: `state` is the `Counter` of the call in progress (see `Recording::turn`).
    let counter = unsafe { &mut *state.cast::<Counter<'_>>() };
    counter.draws += 1;
    counter.inner.next_u64()
}

/// Wraps a bot and writes each call to the shared tape.
struct Recording<'a> {
    inner: Box<dyn Bot + 'a>,
    tape: Rc<RefCell<Vec<Call>>>,
}

impl Bot for Recording<'_> {
    fn turn(&mut self, ctx: &Context<'_>) -> Result<Action, BotError> {
        let mut counter = Counter { inner: ctx.random, draws: 0 };
        // SAFETY: the counter outlives the call, and only this call uses it.
        let random = unsafe { Random::from_raw((&mut counter as *mut Counter<'_>).cast::<c_void>(), counted) };
        let answer = self.inner.turn(&Context { random, ..*ctx });
        self.tape.borrow_mut().push(Call { action: crate::zombies::game::applied(&answer), draws: counter.draws });
        answer
    }
}

/// Plays the calls of a tape back, drawing as many random numbers as recorded.
struct Playback {
    tape: Rc<RefCell<(usize, Vec<Call>)>>,
}

impl Bot for Playback {
    fn turn(&mut self, ctx: &Context<'_>) -> Result<Action, BotError> {
        let mut tape = self.tape.borrow_mut();
        let (next, calls) = &mut *tape;
        let call = calls.get(*next).copied().ok_or_else(|| BotError::Failed("the replay ran out of calls".into()))?;
        *next += 1;
        for _ in 0..call.draws {
            ctx.random.next_u64();
        }
        Ok(call.action)
    }
}

impl Replay {
    /// Plays the game again, calling `each_turn` with the game before the first turn
    /// and after every turn, and checks that it ends as recorded.
    pub fn replay(&self, mut each_turn: impl FnMut(&Game)) -> Result<GameOutcome, ReplayError> {
        let h = &self.header;
        if h.scores.len() != h.names.len() || h.names.is_empty() {
            return Err(ReplayError::Corrupt("the header's names and scores do not match".into()));
        }
        let config = GameConfig { players_per_entry: h.players_per_entry, max_turns: h.max_turns };
        let players = u64::from(config.players_per_entry) * h.names.len() as u64;
        if config.players_per_entry == 0 || players > 200_000 {
            return Err(ReplayError::Corrupt("implausible game size in the header".into()));
        }
        let tape = Rc::new(RefCell::new((0, self.calls.clone())));
        let mut bots: Vec<Box<dyn Bot>> =
            h.names.iter().map(|_| Box::new(Playback { tape: Rc::clone(&tape) }) as Box<dyn Bot>).collect();
        let mut game = Game::new(h.names.clone(), h.seed, config);
        each_turn(&game);
        while !game.is_over() && config.max_turns.is_none_or(|m| game.clock() < m) {
            if game.clock() > h.turns {
                return Err(ReplayError::Mismatch(format!("still playing after turn {}", h.turns)));
            }
            game.turn(&mut bots);
            each_turn(&game);
            if game.stats().iter().any(|s| s.errors > 0) {
                return Err(ReplayError::Mismatch(format!("calls ran out in turn {}", game.clock())));
            }
        }
        let outcome = game.outcome();
        let used = tape.borrow().0;
        if used != self.calls.len() {
            return Err(ReplayError::Mismatch(format!("{} of {} calls used", used, self.calls.len())));
        }
        if outcome.turns != h.turns || outcome.scores != h.scores {
            return Err(ReplayError::Mismatch(format!(
                "{} turns and scores {:?}, recorded {} and {:?}",
                outcome.turns, outcome.scores, h.turns, h.scores
            )));
        }
        Ok(outcome)
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let header = serde_json::to_vec(&self.header).expect("a header serialises");
        let mut body = Vec::with_capacity(self.calls.len() * 2);
        for c in &self.calls {
            let code = if c.action.kind == Action::SHOOT { 9 } else { c.action.direction.min(8) as u8 };
            body.push(code | (c.draws.min(15) as u8) << 4);
            if c.draws >= 15 {
                put_varint(&mut body, u64::from(c.draws - 15));
            }
            if code == 9 {
                put_varint(&mut body, u64::from(c.action.target.owner));
                put_varint(&mut body, u64::from(c.action.target.number));
            }
        }
        let mut out = Vec::with_capacity(header.len() + body.len() / 3 + 16);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&RULES_VERSION.to_le_bytes());
        out.extend_from_slice(&(header.len() as u32).to_le_bytes());
        out.extend_from_slice(&header);
        let mut enc = DeflateEncoder::new(out, Compression::best());
        enc.write_all(&body).expect("writing to memory");
        enc.finish().expect("writing to memory")
    }

    /// Reads a replay from its bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Replay, ReplayError> {
        if bytes.len() < 4 || &bytes[..4] != MAGIC {
            return Err(if bytes.len() < 4 && MAGIC.starts_with(bytes) {
                ReplayError::Truncated("in the signature")
            } else {
                ReplayError::NotAReplay
            });
        }
        let fixed = bytes.get(4..12).ok_or(ReplayError::Truncated("in the versions"))?;
        let format = u16::from_le_bytes([fixed[0], fixed[1]]);
        let rules = u16::from_le_bytes([fixed[2], fixed[3]]);
        if (format, rules) != (FORMAT_VERSION, RULES_VERSION) {
            return Err(ReplayError::Version(format, rules));
        }
        let len = u32::from_le_bytes([fixed[4], fixed[5], fixed[6], fixed[7]]) as usize;
        let header = bytes.get(12..12 + len).ok_or(ReplayError::Truncated("in the header"))?;
        let header: Header =
            serde_json::from_slice(header).map_err(|e| ReplayError::Corrupt(format!("header: {e}")))?;
        let mut body = Vec::new();
        // A bound on the inflated size keeps a "zip bomb" from eating memory.
        DeflateDecoder::new(&bytes[12 + len..]).take(1 << 30).read_to_end(&mut body).map_err(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => ReplayError::Truncated("in the calls"),
            _ => ReplayError::Corrupt(format!("calls: {e}")),
        })?;
        let mut calls = Vec::new();
        let mut at = 0;
        while at < body.len() {
            let b = body[at];
            at += 1;
            let code = u32::from(b & 15);
            let mut draws = u32::from(b >> 4);
            if draws == 15 {
                draws = u32::try_from(15 + get_varint(&body, &mut at)?)
                    .map_err(|_| ReplayError::Corrupt("draw count out of range".into()))?;
            }
            let action = match code {
                0..=8 => Action::go(Direction::ALL[code as usize]),
                9 => {
                    let owner = get_varint(&body, &mut at)?;
                    let number = get_varint(&body, &mut at)?;
                    let (Ok(owner), Ok(number)) = (u32::try_from(owner), u32::try_from(number)) else {
                        return Err(ReplayError::Corrupt("shot target out of range".into()));
                    };
                    Action::shoot(Id { owner, number })
                }
                c => return Err(ReplayError::Corrupt(format!("unknown action code {c}"))),
            };
            calls.push(Call { action, draws });
        }
        Ok(Replay { header, calls })
    }
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get_varint(bytes: &[u8], at: &mut usize) -> Result<u64, ReplayError> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at).ok_or(ReplayError::Truncated("in a call"))?;
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Ok(v);
        }
    }
    Err(ReplayError::Corrupt("varint too long".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip() {
        for v in [0u64, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            let mut b = Vec::new();
            put_varint(&mut b, v);
            assert_eq!(get_varint(&b, &mut 0), Ok(v));
        }
    }
}
