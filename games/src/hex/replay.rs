//! What a hex replay records of each bot call: the commands answered (up to the call's
//! limit; a failed call as none), whether the bot was out of the game at that call (its
//! time bank spent or cut off: the engine then applies the clock's effect), and how many
//! random numbers the call drew. A whole-side call (`side::SideChannel`) records every
//! command it gave, with the unit and the verdict. The engine re-plays the commands exactly
//! (it has no randomness of its own); a side call's verdicts are checked as it re-plays.
//!
//! Bytes per call: a varint `draws * 2 + out`, a byte with the number of commands, then per
//! command its kind byte and the zigzag varints of `id`, `x`, `y`, `amount`. A side call's
//! count byte is [`SIDE_CALL`], then a varint with the number of commands, and per command
//! the varint of its unit, the command as above, and its verdict's byte
//! ([`Verdict::byte`]). Replays without side calls are the bytes they were before side
//! calls existed.

use std::time::Duration;

use zombies_plugin_abi::hex::{HexAnswer, HexCommand, HexContext, MAX_COMMANDS};

use super::side::{SideChannel, SideInfo, Verdict};
use super::{Hex, HexCall, command_limit};
use crate::bot::{Bot, BotError, TimeLeft};
use crate::game::{PlaybackTape, Tape, count_draws};
use crate::replay::{ReplayError, get_varint, put_varint};

/// The count byte of a side call.
const SIDE_CALL: u8 = 0xFF;

/// One command of a side call: its unit, the command, what became of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SideCommand {
    /// The unit it was given for ([`abi::NO_UNIT`](zombies_plugin_abi::hex::NO_UNIT) for
    /// a side command).
    pub unit: u32,
    /// The command.
    pub command: HexCommand,
    /// Its verdict.
    pub verdict: Verdict,
}

/// One bot call as the engine used it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Call {
    /// The commands, in order (at most 16).
    pub commands: Vec<HexCommand>,
    /// A whole-side call: every command it gave, in order (`commands` is then empty).
    pub side: Option<Vec<SideCommand>>,
    /// The bot was out of the game (disqualified) at this call.
    pub out: bool,
    /// Random numbers drawn.
    pub draws: u32,
}

/// Wraps a bot and writes each call to the shared tape.
pub(super) struct Recording<'a> {
    pub(super) inner: Box<dyn Bot<Hex> + 'a>,
    pub(super) tape: Tape<Call>,
}

/// A side channel that notes every command and verdict, and hands the bot contexts whose
/// random numbers are counted.
struct Noting<'c, 'r> {
    inner: &'c mut (dyn SideChannel + 'c),
    random: zombies_plugin_abi::Random<'r>,
    claimed: bool,
    log: Vec<SideCommand>,
}

impl SideChannel for Noting<'_, '_> {
    fn claim(&mut self) {
        self.claimed = true;
        self.inner.claim();
    }
    fn info(&self) -> SideInfo {
        self.inner.info()
    }
    fn context(&mut self) -> HexContext<'_> {
        let random = self.random;
        HexContext { random, ..self.inner.context() }
    }
    fn command(&mut self, unit: u32, command: &HexCommand) -> Verdict {
        let verdict = self.inner.command(unit, command);
        self.log.push(SideCommand { unit, command: *command, verdict });
        verdict
    }
    fn refuse(&mut self, unit: u32, command: &HexCommand, verdict: Verdict) {
        self.inner.refuse(unit, command, verdict);
        self.log.push(SideCommand { unit, command: *command, verdict });
    }
}

impl Bot<Hex> for Recording<'_> {
    fn turn(&mut self, call: &HexCall<'_>) -> Result<HexAnswer, BotError> {
        let offered = call.take_side();
        let ((result, side), draws) = count_draws(call.ctx.random, |random| {
            let ctx = HexContext { random, ..call.ctx };
            match offered {
                Some(inner) => {
                    let mut noting = Noting { inner, random, claimed: false, log: Vec::new() };
                    let result = self.inner.turn(&HexCall::with_side(ctx, call.clocks, &mut noting));
                    (result, noting.claimed.then_some(noting.log))
                }
                None => (self.inner.turn(&HexCall::new(ctx, call.clocks)), None),
            }
        });
        let out = matches!(result, Err(BotError::Disqualified(_)));
        let commands = match (&result, &side) {
            (Ok(a), None) => a.commands().iter().take(command_limit(&call.ctx)).copied().collect(),
            _ => Vec::new(),
        };
        self.tape.borrow_mut().push(Call { commands, side, out, draws });
        result
    }

    fn remaining_time(&self, clock: u32) -> TimeLeft {
        self.inner.remaining_time(clock)
    }

    fn times_itself(&self) -> bool {
        self.inner.times_itself()
    }

    fn call_time(&self) -> Option<Duration> {
        self.inner.call_time()
    }
}

/// Plays the calls of a tape back, drawing as many random numbers as recorded.
pub(super) struct Playback {
    pub(super) tape: PlaybackTape<Call>,
}

impl Bot<Hex> for Playback {
    fn turn(&mut self, call: &HexCall<'_>) -> Result<HexAnswer, BotError> {
        let recorded = crate::game::next_call(&self.tape, call.ctx.random, |c| c.draws)?;
        if let Some(commands) = &recorded.side {
            let side = call.take_side().ok_or_else(|| {
                BotError::Failed("the replay diverged: a side call where the game makes a unit call".into())
            })?;
            side.claim();
            for c in commands {
                if c.verdict == Verdict::Time {
                    side.refuse(c.unit, &c.command, c.verdict);
                    continue;
                }
                let verdict = side.command(c.unit, &c.command);
                if verdict != c.verdict {
                    return Err(BotError::Failed(format!(
                        "the replay diverged: a side call's command {:?} was {:?}, recorded {:?}",
                        c.command, verdict, c.verdict
                    )));
                }
            }
        }
        if recorded.out {
            return Err(BotError::Disqualified("out of the game (replayed)".into()));
        }
        let mut answer = HexAnswer::default();
        for c in recorded.commands {
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

fn put_command(body: &mut Vec<u8>, k: &HexCommand) {
    body.push(k.kind.min(255) as u8);
    put_varint(body, u64::from(k.id));
    put_varint(body, zigzag(i64::from(k.x)));
    put_varint(body, zigzag(i64::from(k.y)));
    put_varint(body, zigzag(k.amount));
}

/// The calls as bytes.
pub(super) fn write_calls(calls: &[Call], body: &mut Vec<u8>) {
    for c in calls {
        put_varint(body, u64::from(c.draws) * 2 + u64::from(c.out));
        match &c.side {
            Some(side) => {
                body.push(SIDE_CALL);
                put_varint(body, side.len() as u64);
                for s in side {
                    put_varint(body, u64::from(s.unit));
                    put_command(body, &s.command);
                    body.push(s.verdict.byte());
                }
            }
            None => {
                body.push(c.commands.len().min(MAX_COMMANDS) as u8);
                for k in c.commands.iter().take(MAX_COMMANDS) {
                    put_command(body, k);
                }
            }
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
    let command = |at: &mut usize| -> Result<HexCommand, ReplayError> {
        let kind = u32::from(*body.get(*at).ok_or(ReplayError::Truncated("in a command"))?);
        *at += 1;
        let id = u32::try_from(get_varint(body, at)?).map_err(|_| ReplayError::Corrupt("id out of range".into()))?;
        let x = small(get_varint(body, at)?, "x")?;
        let y = small(get_varint(body, at)?, "y")?;
        let amount = unzigzag(get_varint(body, at)?);
        Ok(HexCommand { kind, id, x, y, amount })
    };
    while at < body.len() {
        let head = get_varint(body, &mut at)?;
        let draws = u32::try_from(head / 2).map_err(|_| ReplayError::Corrupt("draw count out of range".into()))?;
        let n = *body.get(at).ok_or(ReplayError::Truncated("in a call"))?;
        at += 1;
        if n == SIDE_CALL {
            let n = get_varint(body, &mut at)?;
            // Every command takes at least 7 bytes: a count past what is left is corrupt
            // (and must not be allocated).
            if n > (body.len() - at) as u64 / 7 {
                return Err(ReplayError::Corrupt(format!("{n} commands in a side call")));
            }
            let mut side = Vec::with_capacity(n as usize);
            for _ in 0..n {
                let unit = u32::try_from(get_varint(body, &mut at)?)
                    .map_err(|_| ReplayError::Corrupt("unit out of range".into()))?;
                let command = command(&mut at)?;
                let byte = *body.get(at).ok_or(ReplayError::Truncated("in a verdict"))?;
                at += 1;
                let verdict =
                    Verdict::from_byte(byte).ok_or_else(|| ReplayError::Corrupt(format!("verdict {byte}")))?;
                side.push(SideCommand { unit, command, verdict });
            }
            calls.push(Call { commands: Vec::new(), side: Some(side), out: head & 1 == 1, draws });
            continue;
        }
        let n = usize::from(n);
        if n > MAX_COMMANDS {
            return Err(ReplayError::Corrupt(format!("{n} commands in a call")));
        }
        let mut commands = Vec::with_capacity(n);
        for _ in 0..n {
            commands.push(command(&mut at)?);
        }
        calls.push(Call { commands, side: None, out: head & 1 == 1, draws });
    }
    Ok(calls)
}
