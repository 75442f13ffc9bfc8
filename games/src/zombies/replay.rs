//! What a zombies replay records of each bot call: the action the engine applied and
//! how many random numbers the call drew (so zombie walks, spawns and the call order
//! need no storage: the engine recomputes them from the seed).
//!
//! Bytes per call: one byte (low 4 bits: direction 0-8 or 9 for a shot; high 4 bits:
//! draws, 15 meaning a varint of draws - 15 follows), then for a shot the target's
//! owner and number as varints. The file around the calls is `replay`'s.

use zombies_plugin_abi::{Action, Context, Direction, Id};

use super::Zombies;
use crate::bot::{Bot, BotError};
use crate::game::{PlaybackTape, Tape, count_draws};
use crate::replay::{ReplayError, get_varint, put_varint};

/// One bot call: the action the engine applied and the random numbers drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Call {
    /// A move (a failed or invalid call is recorded as staying) or a shot.
    pub action: Action,
    /// How many 64-bit random numbers the call drew from the game's generator.
    pub draws: u32,
}

/// Wraps a bot and writes each call to the shared tape.
pub(super) struct Recording<'a> {
    pub(super) inner: Box<dyn Bot<Zombies> + 'a>,
    pub(super) tape: Tape<Call>,
}

impl Bot<Zombies> for Recording<'_> {
    fn turn(&mut self, ctx: &Context<'_>) -> Result<Action, BotError> {
        let (answer, draws) = count_draws(ctx.random, |random| self.inner.turn(&Context { random, ..*ctx }));
        self.tape.borrow_mut().push(Call { action: super::engine::applied(&answer), draws });
        answer
    }

    fn prefetches(&self) -> bool {
        self.inner.prefetches()
    }

    fn prefetch(&mut self, ctx: &Context<'_>) {
        self.inner.prefetch(ctx);
    }
}

/// Plays the calls of a tape back, drawing as many random numbers as recorded.
pub(super) struct Playback {
    pub(super) tape: PlaybackTape<Call>,
}

impl Bot<Zombies> for Playback {
    fn turn(&mut self, ctx: &Context<'_>) -> Result<Action, BotError> {
        let call = crate::game::next_call(&self.tape, ctx.random, |c| c.draws)?;
        Ok(call.action)
    }
}

/// The calls as bytes.
pub(super) fn write_calls(calls: &[Call], body: &mut Vec<u8>) {
    for c in calls {
        let code = if c.action.kind == Action::SHOOT { 9 } else { c.action.direction.min(8) as u8 };
        body.push(code | (c.draws.min(15) as u8) << 4);
        if c.draws >= 15 {
            put_varint(body, u64::from(c.draws - 15));
        }
        if code == 9 {
            put_varint(body, u64::from(c.action.target.owner));
            put_varint(body, u64::from(c.action.target.number));
        }
    }
}

/// The calls from bytes.
pub(super) fn read_calls(body: &[u8]) -> Result<Vec<Call>, ReplayError> {
    let mut calls = Vec::new();
    let mut at = 0;
    while at < body.len() {
        let b = body[at];
        at += 1;
        let code = u32::from(b & 15);
        let mut draws = u32::from(b >> 4);
        if draws == 15 {
            draws = u32::try_from(15 + get_varint(body, &mut at)?)
                .map_err(|_| ReplayError::Corrupt("draw count out of range".into()))?;
        }
        let action = match code {
            0..=8 => Action::go(Direction::ALL[code as usize]),
            9 => {
                let owner = get_varint(body, &mut at)?;
                let number = get_varint(body, &mut at)?;
                let (Ok(owner), Ok(number)) = (u32::try_from(owner), u32::try_from(number)) else {
                    return Err(ReplayError::Corrupt("shot target out of range".into()));
                };
                Action::shoot(Id { owner, number })
            }
            c => return Err(ReplayError::Corrupt(format!("unknown action code {c}"))),
        };
        calls.push(Call { action, draws });
    }
    Ok(calls)
}
