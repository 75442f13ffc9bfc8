//! The hex text protocol for program bots: the conversation (which line goes when, and
//! within which time). The lines themselves are typed in `protocol.rs`, which the script
//! bindings share.
//!
//! One process plays a whole game (one per entry per game, started at its first call).
//! Each call is one line of JSON on the program's standard input ([`CallLine`]); the
//! program answers with one line of JSON, the command list ([`Reply`]), and flushes. The
//! game's first line states the protocol's version (`"protocol": 1`, [`VERSION`]) and
//! carries the game's static data (`"game"`). A call's line carries the call's header
//! ([`Header`]: kind, side, t, the unit, the counters) and the side's sight in one of two
//! forms: the side's **first call of a half-turn** carries the whole sight as `"world"`
//! (five lists); every **later call of that half-turn** carries only what changed since
//! the previous call as `"delta"`: objects `added` and `changed` (whole objects, by list)
//! and the ids `removed` (gone from sight or destroyed). A program keeps its own copy of
//! the world (`docs/games/hex.md` has a complete Python bot that does). For example:
//!
//! ```text
//! > {"protocol":1,"kind":"unit","side":"humans","t":3,"unit":120,"me":{"id":120,...},...,"game":{...},"world":{"humans":[...],"zombies":[...],...}}
//! < [{"cmd":"build","x":1,"y":0},{"cmd":"attack","id":131}]
//! > {"kind":"unit","side":"humans","t":3,"unit":121,"me":{"id":121,...},...,"delta":{"changed":{"humans":[...],"walls":[...]},"removed":[131]}}
//! ```
//!
//! A command is an object with `cmd` and its fields: `move` (x, y), `attack` (id),
//! `attack_ground` (x, y), `grab` (id), `give` (id, amount), `throw_weapon` (x, y),
//! `throw_ammo` (x, y, amount), `build` (x, y), `call_drop` (x, y, contents: "ammo" or a
//! weapon id), `spawn` (x, y, weapon: the humans, half-turn 1), `spawn_zombie` (zone,
//! facing: the zombies), `forward`, `turn` (by: 1 or −1), `eat` (id). The answer may also
//! be an object `{"commands": [...]}`; an empty line or `[]` does nothing.
//!
//! Every call's line also carries both sides' clocks (`"clocks": {"humans": s,
//! "zombies": s}`, seconds left in each time bank; null without banks).
//!
//! **Whole sides.** A program that answers its first line with `{"plays": "sides"}` plays
//! whole sides (hex.md, "Whole sides"): at once, and then once per half-turn of its side,
//! it gets a line of kind `"side"` (the header, `calls`, `max_commands`, `time`, and the
//! side's whole `world`), and answers with commands one per line, each an object with
//! `cmd`, its fields and `unit` (left out for the side commands). After each, the host
//! writes the verdict line: `{"verdict": "accepted", "delta": {...}, counters}` or
//! `{"verdict": "refused", "reason": "...", "delta": {...}, counters}` (the delta as
//! above, from the sight the previous line left). The line `"done"` ends the half-turn;
//! `{"random": n}` is answered as in any call.
//!
//! A call's exchanges share its time: each is given what is left of it (the program's
//! limit per call, or a side call's share), never a fresh limit.
//!
//! This module is the conversation only: what a call may send is decided by the play loop
//! (`games::hex`), the lines' shape by `protocol.rs`, the process by `crate::process`.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use zombies_plugin_abi::hex::{HexAnswer, HexContext};

use super::protocol::{
    CallLine, Clocks, Counters, Delta, GameData, Header, MAX_RANDOM_REQUESTS, RandomLine, Reply, SideCall, SideReply,
    VERSION, VerdictLine, World, write_line,
};
use super::side::{SideChannel, Verdict};
use super::{Hex, HexCall};
use crate::bot::{Bot, BotError, BotFactory};
use crate::game::Rules as _;
use crate::loaders::program::{Heard, LogSink, Marker, Program, game_marker};
use crate::process::{CallError, Process};

/// The bots of a program (always one persistent process per game; refused when it asks
/// for another version of the protocol than [`VERSION`], which every game's first line
/// states: a hex program gets no [`Hello`](crate::loaders::program::Hello) line).
pub(super) fn bots(program: Program) -> Result<Arc<dyn BotFactory<Hex>>, String> {
    let program = Program { persistent: true, hello: None, ..program.speaking(Hex::NAME, VERSION)? };
    let factory = move || Ok(Box::new(ProgramBot::new(Link::new(program.clone()))) as Box<dyn Bot<Hex>>);
    Ok(Arc::new(factory))
}

struct ProgramBot {
    link: Link,
    /// The sight as the program last received it (its copy of the world), or `None`
    /// before the first call and after a failed one (the next call sends the world).
    sent: Option<Sent>,
    /// The sight of the line being written, and what changed from the sight sent (the
    /// buffers, kept between calls).
    now: World,
    delta: Delta,
    /// The request line's buffer, kept between calls.
    line: Vec<u8>,
    /// The first line (with the protocol's version and the game's static data) went.
    greeted: bool,
    /// The program declared that it plays whole sides.
    sides: bool,
    /// The own time of this call's exchanges so far (`crate::clock`): a call may ask
    /// for random numbers, each an exchange of its own.
    spent: Duration,
}

/// A side's sight as the program last received it: the half-turn and side it belongs to,
/// and the lists.
#[derive(Default)]
struct Sent {
    t: u32,
    side: u32,
    world: World,
}

impl ProgramBot {
    fn new(link: Link) -> ProgramBot {
        ProgramBot {
            link,
            sent: None,
            now: World::default(),
            delta: Delta::default(),
            line: Vec::new(),
            greeted: false,
            sides: false,
            spent: Duration::ZERO,
        }
    }
}

/// A program's one process for a game, asked with a deadline per exchange: the time left
/// of the call it belongs to (`loaders::program::Talker` gives every exchange the whole
/// limit per call). A process that ended is not started again (it would have lost the
/// game's state): every later exchange fails with one message saying so.
struct Link {
    program: Program,
    process: Option<Process>,
    /// Why the process is gone for the rest of the game, once it ended.
    ended: Option<String>,
    /// This game's marker line, until the first standard error of the game writes it.
    marker: Marker,
    /// Standard error since the last answer (what the call says).
    heard: Heard,
}

impl Link {
    fn new(program: Program) -> Link {
        let marker = game_marker();
        Link { program, process: None, ended: None, marker, heard: Heard::default() }
    }

    /// Sends `request` and reads one line within `timeout` of the program's own time:
    /// the line, and the own time the exchange took.
    fn ask(&mut self, request: &[u8], timeout: Duration) -> (Result<String, BotError>, Duration) {
        if let Some(why) = &self.ended {
            return (Err(BotError::Failed(why.clone())), Duration::ZERO);
        }
        if self.process.is_none() {
            let sink = Box::new(LogSink::new(
                Arc::clone(&self.program.log),
                Some(Arc::clone(&self.marker)),
                self.heard.clone(),
            ));
            match Process::spawn(&self.program.spec(), &self.program.process_limits(), sink) {
                Ok(p) => self.process = Some(p),
                Err(e) => return (Err(self.program.call_error(e)), Duration::ZERO),
            }
        }
        let process = self.process.as_mut().expect("started above");
        let result = if process.has_ended() {
            Err(CallError::Exited("it ended between calls".to_owned()))
        } else {
            process.ask(request, 1, timeout)
        };
        let time = process.last_call_time();
        self.heard.said();
        if let Some(how) = result.as_ref().err().and_then(CallError::ended) {
            self.ended = Some(format!(
                "{}: the program ended during the game ({how}) and is not restarted: its units stay for the \
                 rest of the game (its standard error: {})",
                self.program.file_name(),
                self.program.log.describe()
            ));
        }
        let result = result.map(|mut lines| lines.pop().unwrap_or_default()).map_err(|e| self.program.call_error(e));
        (result, time)
    }
}

impl ProgramBot {
    /// One exchange of the call in progress, given what is left of `budget`: the answer
    /// line (a timeout once the call's time is spent).
    fn exchange(&mut self, request: &[u8], budget: Duration) -> Result<String, BotError> {
        let Some(left) = budget.checked_sub(self.spent).filter(|l| !l.is_zero()) else {
            return Err(BotError::Timeout);
        };
        let (answer, time) = self.link.ask(request, left);
        self.spent += time;
        answer
    }

    /// The line answering a `{"random": n}` request: `{"random": k}`, k uniform in 0..n.
    fn random_line(n: u32, call: &HexCall<'_>) -> Vec<u8> {
        let mut line = Vec::with_capacity(24);
        write_line(&RandomLine { random: call.ctx.random(n) }, &mut line);
        line
    }

    /// One whole side's half-turn over the protocol (the module's doc).
    fn side_call(&mut self, call: &HexCall<'_>, channel: &mut (dyn SideChannel + '_)) -> Result<HexAnswer, BotError> {
        channel.claim();
        let info = channel.info();
        let limit = self.link.program.limits.call_timeout;
        let budget = info.share(Some(limit)).unwrap_or(Duration::MAX);
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        let ctx = HexContext { random: call.ctx.random, ..channel.context() };
        let mut sight = World::of(&ctx);
        let first = CallLine {
            protocol: None,
            header: Header::of(&ctx),
            clocks: Clocks::of(call.clocks),
            side_call: Some(SideCall::of(&info, limit)),
            game: None,
            world: Some(Cow::Borrowed(&sight)),
            delta: None,
        };
        write_line(&first, &mut line);
        let mut text = self.exchange(&line, budget);
        let result = (|| {
            // Commands (the cap's and a few more), random numbers, and malformed lines.
            for _ in 0..(info.max_commands as usize + MAX_RANDOM_REQUESTS + 100) {
                let answer = text?;
                let verdict = match SideReply::read(&answer) {
                    Ok(SideReply::Done) => return Ok(HexAnswer::default()),
                    Ok(SideReply::Random(n)) => {
                        text = self.exchange(&Self::random_line(n, call), budget);
                        continue;
                    }
                    Ok(SideReply::Command(unit, command)) => {
                        let verdict = channel.command(unit, &command);
                        let ctx = HexContext { random: call.ctx.random, ..channel.context() };
                        self.now.set(&ctx);
                        sight.delta_into(&self.now, &mut self.delta);
                        std::mem::swap(&mut sight, &mut self.now);
                        VerdictLine {
                            verdict: Cow::Borrowed(verdict.name()),
                            reason: (verdict != Verdict::Accepted).then_some(Cow::Borrowed(verdict.reason_str())),
                            delta: Cow::Borrowed(&self.delta),
                            counters: Counters::of(&ctx),
                        }
                    }
                    Err(e) => VerdictLine {
                        verdict: Cow::Borrowed(Verdict::Invalid.name()),
                        reason: Some(Cow::Owned(e.to_string())),
                        delta: Cow::Owned(Delta::default()),
                        counters: Counters::of(&channel.context()),
                    },
                };
                line.clear();
                write_line(&verdict, &mut line);
                text = self.exchange(&line, budget);
            }
            Err(BotError::Invalid("too many lines in one side call".into()))
        })();
        self.line = line;
        result
    }
}

impl Bot<Hex> for ProgramBot {
    fn turn(&mut self, call: &HexCall<'_>) -> Result<HexAnswer, BotError> {
        self.spent = Duration::ZERO;
        let offered = call.take_side();
        if self.sides {
            let channel = offered
                .ok_or_else(|| BotError::Failed("a program that plays whole sides was called for one unit".into()))?;
            return self.side_call(call, channel);
        }
        let ctx = &call.ctx;
        let first_line = !self.greeted;
        self.greeted = true;
        // Taken: a failed call leaves no copy, so the next call sends the world.
        let sent = self.sent.take();
        let same_half_turn = sent.as_ref().is_some_and(|s| s.t == ctx.t && s.side == ctx.side);
        let mut sent = sent.unwrap_or_default();
        self.now.set(ctx);
        if same_half_turn {
            sent.world.delta_into(&self.now, &mut self.delta);
        }
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        let game = first_line.then(GameData::new);
        let message = CallLine {
            protocol: first_line.then_some(VERSION),
            header: Header::of(ctx),
            clocks: Clocks::of(call.clocks),
            side_call: None,
            game: game.as_ref().map(Cow::Borrowed),
            world: (!same_half_turn).then_some(Cow::Borrowed(&self.now)),
            delta: same_half_turn.then_some(Cow::Borrowed(&self.delta)),
        };
        write_line(&message, &mut line);
        let limit = self.link.program.limits.call_timeout;
        let asked = self.exchange(&line, limit);
        self.line = line;
        let mut text = asked?;
        std::mem::swap(&mut sent.world, &mut self.now);
        (sent.t, sent.side) = (ctx.t, ctx.side);
        self.sent = Some(sent);
        for _ in 0..=MAX_RANDOM_REQUESTS {
            match Reply::read(&text)? {
                // `{"random": n}` asks for a number of the game's generator: the answer
                // is `{"random": k}`, k uniform in 0..n, and the call goes on.
                Reply::Random(n) => text = self.exchange(&Self::random_line(n, call), limit)?,
                // `{"plays": "sides"}`, in answer to the first line: the program plays
                // whole sides, from this half-turn on.
                Reply::PlaysSides => {
                    let channel = offered.filter(|_| first_line).ok_or_else(|| {
                        BotError::Invalid("{\"plays\": \"sides\"} answers the first line of a game only".into())
                    })?;
                    self.sides = true;
                    return self.side_call(call, channel);
                }
                Reply::Answer(answer) => return Ok(answer),
            }
        }
        Err(BotError::Invalid(format!("more than {MAX_RANDOM_REQUESTS} random numbers asked in one call")))
    }

    fn times_itself(&self) -> bool {
        true
    }

    fn call_time(&self) -> Option<Duration> {
        Some(self.spent)
    }
}
