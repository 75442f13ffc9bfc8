//! What a hex replay records of each bot call: the commands answered (up to the call's
//! limit; a failed call as none), whether the bot was out of the game at that call (its
//! time bank spent or cut off: the engine then applies the clock's effect), and how many
//! random numbers the call drew. The engine re-plays the commands exactly (it has no
//! randomness of its own).
//!
//! Bytes per call: a varint `draws * 2 + out`, a byte with the number of commands, then per
//! command its kind byte and the zigzag varints of `id`, `x`, `y`, `amount`.

use zombies_plugin_abi::hex::{HexAnswer, HexCommand, HexContext, MAX_COMMANDS};

use super::{HexGame, command_limit};
use crate::bot::{Bot, BotError};
use crate::game::{PlaybackTape, Tape, count_draws};
use crate::replay::{ReplayError, get_varint, put_varint};

/// One bot call as the engine used it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Call {
    /// The commands, in order (at most 16).
    pub commands: Vec<HexCommand>,
    /// The bot was out of the game (disqualified) at this call.
    pub out: bool,
    /// Random numbers drawn.
    pub draws: u32,
}

/// Wraps a bot and writes each call to the shared tape.
pub(super) struct Recording<'a> {
    pub(super) inner: Box<dyn Bot<HexGame> + 'a>,
    pub(super) tape: Tape<Call>,
}

impl Bot<HexGame> for Recording<'_> {
    fn turn(&mut self, ctx: &HexContext<'_>) -> Result<HexAnswer, BotError> {
        let (result, draws) = count_draws(ctx.random, |random| self.inner.turn(&HexContext { random, ..*ctx }));
        let call = match &result {
            Ok(a) => {
                Call { commands: a.commands().iter().take(command_limit(ctx)).copied().collect(), out: false, draws }
            }
            Err(BotError::Disqualified(_)) => Call { commands: Vec::new(), out: true, draws },
            Err(_) => Call { commands: Vec::new(), out: false, draws },
        };
        self.tape.borrow_mut().push(call);
        result
    }
}

/// Plays the calls of a tape back, drawing as many random numbers as recorded.
pub(super) struct Playback {
    pub(super) tape: PlaybackTape<Call>,
}

impl Bot<HexGame> for Playback {
    fn turn(&mut self, ctx: &HexContext<'_>) -> Result<HexAnswer, BotError> {
        let call = crate::game::next_call(&self.tape, ctx.random, |c| c.draws)?;
        if call.out {
            return Err(BotError::Disqualified("out of the game (replayed)".into()));
        }
        let mut answer = HexAnswer::default();
        for c in call.commands {
            answer.push(c);
        }
        Ok(answer)
    }
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// The calls as bytes.
pub(super) fn write_calls(calls: &[Call], body: &mut Vec<u8>) {
    for c in calls {
        put_varint(body, u64::from(c.draws) * 2 + u64::from(c.out));
        body.push(c.commands.len().min(MAX_COMMANDS) as u8);
        for k in c.commands.iter().take(MAX_COMMANDS) {
            body.push(k.kind.min(255) as u8);
            put_varint(body, u64::from(k.id));
            put_varint(body, zigzag(i64::from(k.x)));
            put_varint(body, zigzag(i64::from(k.y)));
            put_varint(body, zigzag(k.amount));
        }
    }
}

/// The calls from bytes.
pub(super) fn read_calls(body: &[u8]) -> Result<Vec<Call>, ReplayError> {
    let mut calls = Vec::new();
    let mut at = 0;
    let small = |v: u64, what: &str| -> Result<i32, ReplayError> {
        i32::try_from(unzigzag(v)).map_err(|_| ReplayError::Corrupt(format!("{what} out of range")))
    };
    while at < body.len() {
        let head = get_varint(body, &mut at)?;
        let draws = u32::try_from(head / 2).map_err(|_| ReplayError::Corrupt("draw count out of range".into()))?;
        let n = *body.get(at).ok_or(ReplayError::Truncated("in a call"))? as usize;
        at += 1;
        if n > MAX_COMMANDS {
            return Err(ReplayError::Corrupt(format!("{n} commands in a call")));
        }
        let mut commands = Vec::with_capacity(n);
        for _ in 0..n {
            let kind = u32::from(*body.get(at).ok_or(ReplayError::Truncated("in a command"))?);
            at += 1;
            let id = u32::try_from(get_varint(body, &mut at)?)
                .map_err(|_| ReplayError::Corrupt("id out of range".into()))?;
            let x = small(get_varint(body, &mut at)?, "x")?;
            let y = small(get_varint(body, &mut at)?, "y")?;
            let amount = unzigzag(get_varint(body, &mut at)?);
            commands.push(HexCommand { kind, id, x, y, amount });
        }
        calls.push(Call { commands, out: head & 1 == 1, draws });
    }
    Ok(calls)
}
