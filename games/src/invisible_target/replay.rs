//! What a target replay records of each bot call: the move the engine applied (`0..=4`;
//! a failed or invalid call as `2`, stay) and how many random numbers the call drew.
//! Whether the move was blocked by a wall or a player the engine works out again.
//!
//! Bytes per call: one byte, the move in the low 3 bits and the draws in the high 5 (31
//! meaning a varint of draws - 31 follows).

use zombies_plugin_abi::target::TargetContext;

use super::{InvisibleTarget, engine, validate};
use crate::bot::{Bot, BotError};
use crate::game::{PlaybackTape, Tape, count_draws};
use crate::replay::{ReplayError, get_varint, put_varint};

/// One bot call as the engine applied it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Call {
    /// `0..=4`.
    pub mv: u8,
    /// Random numbers drawn.
    pub draws: u32,
}

/// Draws counted in the call's byte; more take a varint.
const INLINE_DRAWS: u32 = 31;

/// Wraps a bot and writes each call to the shared tape.
pub(super) struct Recording<'a> {
    pub(super) inner: Box<dyn Bot<InvisibleTarget> + 'a>,
    pub(super) tape: Tape<Call>,
}

impl Bot<InvisibleTarget> for Recording<'_> {
    fn turn(&mut self, ctx: &TargetContext<'_>) -> Result<u32, BotError> {
        let (result, draws) = count_draws(ctx.random, |random| self.inner.turn(&TargetContext { random, ..*ctx }));
        let mv = result.as_ref().ok().and_then(|&a| validate(a).ok()).unwrap_or(engine::STAY);
        self.tape.borrow_mut().push(Call { mv, draws });
        result
    }
}

/// Plays the calls of a tape back, drawing as many random numbers as recorded.
pub(super) struct Playback {
    pub(super) tape: PlaybackTape<Call>,
}

impl Bot<InvisibleTarget> for Playback {
    fn turn(&mut self, ctx: &TargetContext<'_>) -> Result<u32, BotError> {
        let call = crate::game::next_call(&self.tape, ctx.random, |c| c.draws)?;
        Ok(u32::from(call.mv))
    }
}

/// The calls as bytes.
pub(super) fn write_calls(calls: &[Call], body: &mut Vec<u8>) {
    for c in calls {
        body.push((c.mv & 7) | (c.draws.min(INLINE_DRAWS) as u8) << 3);
        if c.draws >= INLINE_DRAWS {
            put_varint(body, u64::from(c.draws - INLINE_DRAWS));
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
        let mv = b & 7;
        if mv > engine::SOUTH {
            return Err(ReplayError::Corrupt(format!("move {mv} in a call")));
        }
        let mut draws = u32::from(b >> 3);
        if draws == INLINE_DRAWS {
            draws = u32::try_from(u64::from(INLINE_DRAWS) + get_varint(body, &mut at)?)
                .map_err(|_| ReplayError::Corrupt("draw count out of range".into()))?;
        }
        calls.push(Call { mv, draws });
    }
    Ok(calls)
}
