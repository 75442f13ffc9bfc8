//! What an eggs replay records of each bot call: the answer the engine applied
//! (direction and action; a failed call as "stay, N") and how many random numbers the
//! call drew. Memories are not recorded: they change nothing on the board.
//!
//! Bytes per call: one byte, direction (1-9) in the low 4 bits and the action (0 A,
//! 1 C, 2 N) in bits 4-5, bits 6-7 the draws (3 meaning a varint of draws - 3 follows).

use zombies_plugin_abi::eggs::{ATTACK, COUNTER, EggsAnswer, EggsContext, NOTHING};

use super::{Eggs, answer, engine, validate};
use crate::bot::{Bot, BotError};
use crate::game::{PlaybackTape, Tape, count_draws};
use crate::replay::{ReplayError, get_varint, put_varint};

/// One bot call as the engine applied it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Call {
    /// `1..=9`.
    pub direction: u8,
    /// `A`, `C` or `N`.
    pub action: u8,
    /// Random numbers drawn.
    pub draws: u32,
}

/// Wraps a bot and writes each call to the shared tape.
pub(super) struct Recording<'a> {
    pub(super) inner: Box<dyn Bot<Eggs> + 'a>,
    pub(super) tape: Tape<Call>,
}

impl Bot<Eggs> for Recording<'_> {
    fn turn(&mut self, ctx: &EggsContext<'_>) -> Result<EggsAnswer, BotError> {
        let (result, draws) = count_draws(ctx.random, |random| self.inner.turn(&EggsContext { random, ..*ctx }));
        let applied = result.as_ref().ok().and_then(|a| validate(a).ok()).unwrap_or(engine::Answer::STAY);
        let action = match applied.act {
            engine::Act::Attack => b'A',
            engine::Act::Counter => b'C',
            engine::Act::Nothing => b'N',
        };
        self.tape.borrow_mut().push(Call { direction: applied.dir, action, draws });
        result
    }
}

/// Plays the calls of a tape back, drawing as many random numbers as recorded.
pub(super) struct Playback {
    pub(super) tape: PlaybackTape<Call>,
}

impl Bot<Eggs> for Playback {
    fn turn(&mut self, ctx: &EggsContext<'_>) -> Result<EggsAnswer, BotError> {
        let call = crate::game::next_call(&self.tape, ctx.random, |c| c.draws)?;
        Ok(answer(u32::from(call.direction), u32::from(call.action), &[]))
    }
}

/// The calls as bytes.
pub(super) fn write_calls(calls: &[Call], body: &mut Vec<u8>) {
    for c in calls {
        let act = match u32::from(c.action) {
            ATTACK => 0,
            COUNTER => 1,
            _ => 2,
        };
        body.push((c.direction & 15) | act << 4 | (c.draws.min(3) as u8) << 6);
        if c.draws >= 3 {
            put_varint(body, u64::from(c.draws - 3));
        }
    }
}

/// The calls from bytes.
pub(super) fn read_calls(body: &[u8]) -> Result<Vec<Call>, ReplayError> {
    let mut calls = Vec::with_capacity(body.len());
    let mut at = 0;
    while at < body.len() {
        let b = body[at];
        at += 1;
        let direction = b & 15;
        if !(1..=9).contains(&direction) {
            return Err(ReplayError::Corrupt(format!("direction {direction} in a call")));
        }
        let action = match (b >> 4) & 3 {
            0 => ATTACK,
            1 => COUNTER,
            2 => NOTHING,
            _ => return Err(ReplayError::Corrupt("unknown action code 3".into())),
        } as u8;
        let mut draws = u32::from(b >> 6);
        if draws == 3 {
            draws = u32::try_from(3 + get_varint(body, &mut at)?)
                .map_err(|_| ReplayError::Corrupt("draw count out of range".into()))?;
        }
        calls.push(Call { direction, action, draws });
    }
    Ok(calls)
}
