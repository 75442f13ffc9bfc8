//! The hex text protocol for program bots, and the JSON shape the script bindings share.
//!
//! One process plays a whole game (one per entry per game, started at its first call).
//! Each call is one line of JSON on the program's standard input; the program answers
//! with one line of JSON, the command list ([`answer_from_json`]), and flushes. A call's
//! line carries the call's header ([`header_json`]: kind, side, t, the unit, the counters)
//! and the side's sight in one of two forms: the side's **first call of a half-turn**
//! carries the whole sight as `"world"` (five lists); every **later call of that
//! half-turn** carries only what changed since the previous call as `"delta"`: objects
//! `added` and `changed` (whole objects, by list) and the ids `removed` (gone from sight
//! or destroyed). A program keeps its own copy of the world (`docs/games/hex.md` has a
//! complete Python bot that does). For example:
//!
//! ```text
//! > {"kind":"unit","side":"humans","t":3,"unit":120,"me":{"id":120,...},...,"world":{"humans":[...],"zombies":[...],...}}
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
//! This module is the protocol only: what a call may send is decided by the play loop
//! (`games::hex`), the process by `crate::process`.

use std::io::Write as _;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Map, Value, json};
use zombies_plugin_abi::hex::{
    self as abi, HexAirstrike, HexAnswer, HexCommand, HexContext, HexCrate, HexHuman, HexWall, HexZombie, cmd,
};

use super::side::{SideChannel, SideInfo, Verdict};
use super::{HexCall, HexGame};
use crate::bot::{Bot, BotError, BotFactory};
use crate::loaders::log::{EntryLog, game_marker};
use crate::loaders::program::{Heard, Program};
use crate::process::{CallError, Process};

/// The bots of a program (always one persistent process per game).
pub(super) fn bots(program: Program) -> Result<Arc<dyn BotFactory<HexGame>>, String> {
    let program = Program { persistent: true, ..program };
    let factory = move || Ok(Box::new(ProgramBot::new(Link::new(program.clone()))) as Box<dyn Bot<HexGame>>);
    Ok(Arc::new(factory))
}

struct ProgramBot {
    link: Link,
    /// The sight as the program last received it (its copy of the world), or `None`
    /// before the first call and after a failed one (the next call sends the world).
    sent: Option<Sight>,
    /// The request line's buffer, kept between calls.
    line: Vec<u8>,
    /// The game's static data went in the first line.
    greeted: bool,
    /// The program declared that it plays whole sides.
    sides: bool,
    /// The own time of this call's exchanges so far (`crate::clock`): a call may ask
    /// for random numbers, each an exchange of its own.
    spent: Duration,
}

impl ProgramBot {
    fn new(link: Link) -> ProgramBot {
        ProgramBot { link, sent: None, line: Vec::new(), greeted: false, sides: false, spent: Duration::ZERO }
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
    marker: Arc<Mutex<Option<String>>>,
    /// Standard error since the last answer (what the call says).
    heard: Heard,
}

impl Link {
    fn new(program: Program) -> Link {
        let marker = Arc::new(Mutex::new(Some(game_marker())));
        Link { program, process: None, ended: None, marker, heard: Heard::default() }
    }

    /// Sends `request` and reads one line within `timeout` of the program's own time:
    /// the line, and the own time the exchange took.
    fn ask(&mut self, request: &[u8], timeout: Duration) -> (Result<String, BotError>, Duration) {
        if let Some(why) = &self.ended {
            return (Err(BotError::Failed(why.clone())), Duration::ZERO);
        }
        if self.process.is_none() {
            let sink = Box::new(LogSink {
                log: Arc::clone(&self.program.log),
                marker: Arc::clone(&self.marker),
                heard: self.heard.clone(),
            });
            match Process::spawn(&self.program.spec(), &self.program.process_limits(), sink) {
                Ok(p) => self.process = Some(p),
                Err(e) => return (Err(self.error(e)), Duration::ZERO),
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
        if let Err(CallError::Exited(how)) = &result {
            self.ended = Some(format!(
                "{}: the program ended during the game ({how}) and is not restarted: its units stay for the \
                 rest of the game (its standard error: {})",
                self.program.file_name(),
                self.program.log.describe()
            ));
        }
        let result = result.map(|mut lines| lines.pop().unwrap_or_default()).map_err(|e| self.error(e));
        (result, time)
    }

    /// A call's failure as the entry's stats count it.
    fn error(&self, err: CallError) -> BotError {
        match err {
            CallError::Timeout => BotError::Timeout,
            CallError::Flood | CallError::Garbage(_) => {
                BotError::Invalid(format!("{}: {err}", self.program.file_name()))
            }
            _ => BotError::Failed(format!("{}: {err}", self.program.file_name())),
        }
    }
}

/// Standard error of a program, into its entry's log (after the game's marker line).
struct LogSink {
    log: Arc<EntryLog>,
    marker: Arc<Mutex<Option<String>>>,
    heard: Heard,
}

impl std::io::Write for LogSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Some(marker) = self.marker.lock().ok().and_then(|mut m| m.take()) {
            self.log.append(&marker);
        }
        self.log.append(&String::from_utf8_lossy(buf));
        self.heard.feed(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A side's sight as a call shows it: the five lists, in id order, with the half-turn
/// and side they belong to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sight {
    /// The lists hold a sight (else the next call sends the world).
    pub valid: bool,
    /// The half-turn.
    pub t: u32,
    /// The side ([`abi::HUMANS`] or [`abi::ZOMBIES`]).
    pub side: u32,
    pub humans: Vec<HexHuman>,
    pub zombies: Vec<HexZombie>,
    pub walls: Vec<HexWall>,
    pub crates: Vec<HexCrate>,
    pub airstrikes: Vec<HexAirstrike>,
}

impl Sight {
    /// The sight of a call.
    pub fn of(ctx: &HexContext<'_>) -> Sight {
        Sight {
            valid: true,
            t: ctx.t,
            side: ctx.side,
            humans: ctx.humans.to_vec(),
            zombies: ctx.zombies.to_vec(),
            walls: ctx.walls.to_vec(),
            crates: ctx.crates.to_vec(),
            airstrikes: ctx.airstrikes.to_vec(),
        }
    }

    /// Makes `self` the sight of a call, reusing its buffers.
    pub fn set(&mut self, ctx: &HexContext<'_>) {
        fn copy<T: Copy>(to: &mut Vec<T>, from: &[T]) {
            to.clear();
            to.extend_from_slice(from);
        }
        self.valid = true;
        self.t = ctx.t;
        self.side = ctx.side;
        copy(&mut self.humans, ctx.humans.as_slice());
        copy(&mut self.zombies, ctx.zombies.as_slice());
        copy(&mut self.walls, ctx.walls.as_slice());
        copy(&mut self.crates, ctx.crates.as_slice());
        copy(&mut self.airstrikes, ctx.airstrikes.as_slice());
    }

    /// Writes the whole sight of `ctx` as JSON: `{"humans": [...], "zombies": [...],
    /// "walls": [...], "crates": [...], "airstrikes": [...]}`.
    pub fn write_world(ctx: &HexContext<'_>, out: &mut Vec<u8>) {
        fn all<T: Listed>(out: &mut Vec<u8>, name: &str, list: &[T]) {
            let _ = write!(out, "\"{name}\":[");
            for (i, o) in list.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                o.write_json(out);
            }
            out.push(b']');
        }
        out.push(b'{');
        all(out, "humans", ctx.humans.as_slice());
        out.push(b',');
        all(out, "zombies", ctx.zombies.as_slice());
        out.push(b',');
        all(out, "walls", ctx.walls.as_slice());
        out.push(b',');
        all(out, "crates", ctx.crates.as_slice());
        out.push(b',');
        all(out, "airstrikes", ctx.airstrikes.as_slice());
        out.push(b'}');
    }

    /// Writes what changed from `self` to the sight of `ctx` as JSON: `{"added": {list:
    /// [objects]}, "changed": {list: [objects]}, "removed": [ids]}`, lists without an
    /// object and an empty `removed` left out. Object ids are unique across the lists.
    pub fn write_delta(&self, ctx: &HexContext<'_>, out: &mut Vec<u8>) {
        let mut d = Delta::default();
        d.list("humans", &self.humans, ctx.humans.as_slice());
        d.list("zombies", &self.zombies, ctx.zombies.as_slice());
        d.list("walls", &self.walls, ctx.walls.as_slice());
        d.list("crates", &self.crates, ctx.crates.as_slice());
        d.list("airstrikes", &self.airstrikes, ctx.airstrikes.as_slice());
        out.push(b'{');
        let mut first = true;
        for (key, part, open, close) in
            [("added", &d.added, b'{', b'}'), ("changed", &d.changed, b'{', b'}'), ("removed", &d.removed, b'[', b']')]
        {
            if part.is_empty() {
                continue;
            }
            if !first {
                out.push(b',');
            }
            first = false;
            let _ = write!(out, "\"{key}\":");
            out.push(open);
            out.extend_from_slice(part);
            out.push(close);
        }
        out.push(b'}');
    }

    /// The whole sight of `ctx` as a JSON value (see [`Sight::write_world`]).
    pub fn world_json(ctx: &HexContext<'_>) -> Value {
        let mut out = Vec::new();
        Sight::write_world(ctx, &mut out);
        serde_json::from_slice(&out).expect("the world is JSON")
    }

    /// What changed as a JSON value (see [`Sight::write_delta`]).
    pub fn delta_json(&self, ctx: &HexContext<'_>) -> Value {
        let mut out = Vec::new();
        self.write_delta(ctx, &mut out);
        serde_json::from_slice(&out).expect("the delta is JSON")
    }
}

/// The parts of a delta as they are written: the entries of the `added` and `changed`
/// maps (`"list":[...]`, joined by commas) and the `removed` ids (joined by commas).
#[derive(Default)]
struct Delta {
    added: Vec<u8>,
    changed: Vec<u8>,
    removed: Vec<u8>,
}

/// Appends object `o` to list `name` of `part`, opening the list at its first object.
fn item<T: Listed>(part: &mut Vec<u8>, count: &mut usize, name: &str, o: &T) {
    if *count == 0 {
        if !part.is_empty() {
            part.push(b',');
        }
        let _ = write!(part, "\"{name}\":[");
    } else {
        part.push(b',');
    }
    *count += 1;
    o.write_json(part);
}

impl Delta {
    /// One list's part: both lists are in id order, so one merge walk finds the objects
    /// added, changed and removed.
    fn list<T: Listed>(&mut self, name: &str, before: &[T], now: &[T]) {
        if before == now {
            return;
        }
        let (mut added, mut changed) = (0, 0);
        let (mut i, mut j) = (0, 0);
        loop {
            match (before.get(i), now.get(j)) {
                (Some(b), Some(n)) if b.id() == n.id() => {
                    if b != n {
                        item(&mut self.changed, &mut changed, name, n);
                    }
                    i += 1;
                    j += 1;
                }
                (Some(b), n) if n.is_none_or(|n| b.id() < n.id()) => {
                    if !self.removed.is_empty() {
                        self.removed.push(b',');
                    }
                    let _ = write!(self.removed, "{}", b.id());
                    i += 1;
                }
                (_, Some(n)) => {
                    item(&mut self.added, &mut added, name, n);
                    j += 1;
                }
                (_, None) => break,
            }
        }
        if added > 0 {
            self.added.push(b']');
        }
        if changed > 0 {
            self.changed.push(b']');
        }
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

    /// Answers a `{"random": n}` line, if `value` is one: the reply line.
    fn random_reply(value: &Value, call: &HexCall<'_>) -> Option<Result<String, BotError>> {
        let n = value.as_object().filter(|m| m.len() == 1).and_then(|m| m.get("random"))?;
        Some(
            n.as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .map(|n| format!("{{\"random\":{}}}\n", call.ctx.random(n)))
                .ok_or_else(|| BotError::Invalid(format!("random {n} is not a count 0..2^32"))),
        )
    }

    /// One whole side's half-turn over the protocol (the module's doc).
    fn side_call(&mut self, call: &HexCall<'_>, channel: &mut (dyn SideChannel + '_)) -> Result<HexAnswer, BotError> {
        channel.claim();
        let info = channel.info();
        let budget = info.share(Some(self.link.program.limits.call_timeout)).unwrap_or(Duration::MAX);
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        let ctx = HexContext { random: call.ctx.random, ..channel.context() };
        write_header(&ctx, &mut line);
        write_clocks(call.clocks, &mut line);
        write_side_info(&info, self.link.program.limits.call_timeout, &mut line);
        line.extend_from_slice(b",\"world\":");
        Sight::write_world(&ctx, &mut line);
        line.extend_from_slice(b"}\n");
        let mut sight = Sight::of(&ctx);
        let mut text = self.exchange(&line, budget);
        let result = (|| {
            // Commands (the cap's and a few more), random numbers, and malformed lines.
            for _ in 0..(info.max_commands as usize + MAX_RANDOM_REQUESTS + 100) {
                let answer = text?;
                let answer = answer.trim();
                if matches!(answer, "" | "done" | "\"done\"") {
                    return Ok(HexAnswer::default());
                }
                line.clear();
                let value: Result<Value, _> = serde_json::from_str(answer);
                if let Some(reply) = value.as_ref().ok().and_then(|v| Self::random_reply(v, call)) {
                    text = reply.and_then(|r| self.exchange(r.as_bytes(), budget));
                    continue;
                }
                let parsed = value
                    .map_err(|e| BotError::Invalid(format!("not JSON ({e}): {answer:.60}")))
                    .and_then(|v| side_command_from_json(&v));
                match parsed {
                    Ok((unit, command)) => {
                        let verdict = channel.command(unit, &command);
                        let ctx = HexContext { random: call.ctx.random, ..channel.context() };
                        let _ = write!(line, "{{\"verdict\":\"{}\"", verdict.name());
                        if verdict != Verdict::Accepted {
                            line.extend_from_slice(b",\"reason\":");
                            serde_json::to_writer(&mut line, verdict.reason_str()).expect("a Vec takes JSON");
                        }
                        line.extend_from_slice(b",\"delta\":");
                        sight.write_delta(&ctx, &mut line);
                        sight.set(&ctx);
                        write_counters(&ctx, &mut line);
                    }
                    Err(e) => {
                        let _ = write!(line, "{{\"verdict\":\"{}\",\"reason\":", Verdict::Invalid.name());
                        serde_json::to_writer(&mut line, &e.to_string()).expect("a Vec takes JSON");
                        line.extend_from_slice(b",\"delta\":{}");
                        let ctx = HexContext { random: call.ctx.random, ..channel.context() };
                        write_counters(&ctx, &mut line);
                    }
                }
                line.extend_from_slice(b"}\n");
                text = self.exchange(&line, budget);
            }
            Err(BotError::Invalid("too many lines in one side call".into()))
        })();
        self.line = line;
        result
    }
}

impl Bot<HexGame> for ProgramBot {
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
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        write_header(ctx, &mut line);
        write_clocks(call.clocks, &mut line);
        if !self.greeted {
            line.extend_from_slice(b",\"game\":");
            serde_json::to_writer(&mut line, &game_json()).expect("writing to a Vec cannot fail");
            self.greeted = true;
        }
        // Taken: a failed call leaves no copy, so the next call sends the world.
        let mut sight = self.sent.take().unwrap_or_default();
        if sight.valid && sight.t == ctx.t && sight.side == ctx.side {
            line.extend_from_slice(b",\"delta\":");
            sight.write_delta(ctx, &mut line);
        } else {
            line.extend_from_slice(b",\"world\":");
            Sight::write_world(ctx, &mut line);
        }
        line.extend_from_slice(b"}\n");
        let limit = self.link.program.limits.call_timeout;
        let asked = self.exchange(&line, limit);
        self.line = line;
        let mut text = asked?;
        sight.set(ctx);
        self.sent = Some(sight);
        for _ in 0..=MAX_RANDOM_REQUESTS {
            let answer = text.trim();
            if answer.is_empty() {
                return Ok(HexAnswer::default());
            }
            let value: Value = serde_json::from_str(answer)
                .map_err(|e| BotError::Invalid(format!("not JSON ({e}): {:.60}", answer)))?;
            // `{"random": n}` asks for a number of the game's generator: the answer is
            // `{"random": k}`, k uniform in 0..n, and the call goes on.
            if let Some(reply) = Self::random_reply(&value, call) {
                text = self.exchange(reply?.as_bytes(), limit)?;
                continue;
            }
            // `{"plays": "sides"}`, in answer to the first line: the program plays whole
            // sides, from this half-turn on.
            if value.as_object().and_then(|m| m.get("plays")).and_then(Value::as_str) == Some("sides") {
                let channel = offered.filter(|_| first_line).ok_or_else(|| {
                    BotError::Invalid("{\"plays\": \"sides\"} answers the first line of a game only".into())
                })?;
                self.sides = true;
                return self.side_call(call, channel);
            }
            return answer_from_json(&value);
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

/// Writes `,"clocks":{"humans":s,"zombies":s}` (seconds left in each time bank, null
/// without one).
fn write_clocks(clocks: [Option<Duration>; 2], out: &mut Vec<u8>) {
    out.extend_from_slice(b",\"clocks\":{\"humans\":");
    write_secs(out, clocks[0]);
    out.extend_from_slice(b",\"zombies\":");
    write_secs(out, clocks[1]);
    out.push(b'}');
}

fn write_secs(out: &mut Vec<u8>, d: Option<Duration>) {
    match d {
        Some(d) => write_f64(out, (d.as_secs_f64() * 1e6).round() / 1e6),
        None => out.extend_from_slice(b"null"),
    }
}

/// Writes a side call's `,"calls":n,"max_commands":n,"time":s` (`time`: its share in
/// seconds, null when unlimited).
fn write_side_info(info: &SideInfo, own_limit: Duration, out: &mut Vec<u8>) {
    let _ = write!(out, ",\"calls\":{},\"max_commands\":{},\"time\":", info.calls, info.max_commands);
    write_secs(out, info.share(Some(own_limit)));
}

/// Writes the counters of a verdict line: `,"humans_to_spawn":…,"zombies_to_spawn":…,
/// "zombie_cap":…,"airdrops_held":…,"zombies_ready":…`.
fn write_counters(ctx: &HexContext<'_>, out: &mut Vec<u8>) {
    let _ = write!(
        out,
        ",\"humans_to_spawn\":{},\"zombies_to_spawn\":{},\"zombie_cap\":{},\"airdrops_held\":",
        ctx.humans_to_spawn, ctx.zombies_to_spawn, ctx.zombie_cap
    );
    write_f64(out, ctx.airdrops_held);
    out.extend_from_slice(b",\"zombies_ready\":");
    write_f64(out, ctx.zombies_ready);
}

/// What never changes in a game, as the 2009 client library knew it from the first
/// status: `radius` (the board is |x|, |y| ≤ radius), `turn_limit`, `humans` (placed per
/// side), `weapons` (the table of section 5: `id`, `name`, `range`, `ammo`, `delay`,
/// `direct`, `vertical`, `horizontal`, `radius`, `spawn_with`, `call_in`) and `zones`
/// (`id`, `from` and `to`: the edge's end hexes h0 and h26, `inward`: the facing into
/// the board). Programs get it as `"game"` in their first line; scripts as `ctx.game`.
pub fn game_json() -> Value {
    use super::data;
    let weapons: Vec<Value> = data::WEAPONS
        .iter()
        .map(|w| {
            json!({"id": w.id, "name": w.name, "range": w.range, "ammo": w.ammo, "delay": w.delay,
                   "direct": w.direct, "vertical": w.vertical, "horizontal": w.horizontal, "radius": w.radius,
                   "spawn_with": w.spawn_with, "call_in": w.call_in})
        })
        .collect();
    let zones: Vec<Value> = data::ZONES
        .iter()
        .zip(INWARD)
        .map(|(&id, inward)| {
            let end = |k| data::zone_hex(id, k).map(|(x, y)| json!([x, y]));
            json!({"id": id, "from": end(0), "to": end(26), "inward": inward})
        })
        .collect();
    json!({"radius": abi::BOUND, "turn_limit": data::TURN_LIMIT, "humans": data::HUMANS_PER_GAME,
           "weapons": weapons, "zones": zones})
}

/// The facing into the board from each zone (7, 8, 9, 10).
pub const INWARD: [u32; 4] = [0, 4, 3, 1];

/// Random numbers a program may ask for in one call.
pub const MAX_RANDOM_REQUESTS: usize = 1000;

fn contents_json(c: u32) -> Value {
    if c == abi::AMMO { json!("ammo") } else { json!(c) }
}

/// An object of a context's lists, with its id and its JSON object.
pub trait Listed: Copy + PartialEq {
    /// Its id.
    fn id(&self) -> u32;
    /// Its JSON object.
    fn json(&self) -> Value;
    /// Its JSON object, written straight to `out` (the protocol's hot path: the same
    /// text as serialising [`Listed::json`], but for the order of the keys).
    fn write_json(&self, out: &mut Vec<u8>);
}

/// Writes `v` as JSON (finite floats keep a fraction: `1.0`, as serde_json writes them).
fn write_f64(out: &mut Vec<u8>, v: f64) {
    serde_json::to_writer(&mut *out, &v).expect("writing to a Vec cannot fail");
}

fn write_contents(out: &mut Vec<u8>, c: u32) {
    if c == abi::AMMO {
        out.extend_from_slice(b"\"ammo\"");
    } else {
        let _ = write!(out, "{c}");
    }
}

impl Listed for HexHuman {
    fn id(&self) -> u32 {
        self.id
    }
    fn json(&self) -> Value {
        let h = self;
        json!({"id": h.id, "x": h.x, "y": h.y, "hp": h.hp, "ammo": h.ammo, "weapon": h.weapon,
               "specialty": h.specialty, "moves": h.moves, "idle": h.idle})
    }
    fn write_json(&self, out: &mut Vec<u8>) {
        let h = self;
        let _ = write!(
            out,
            "{{\"id\":{},\"x\":{},\"y\":{},\"hp\":{},\"ammo\":{},\"weapon\":{},\"specialty\":{},\"moves\":{},\"idle\":",
            h.id, h.x, h.y, h.hp, h.ammo, h.weapon, h.specialty, h.moves
        );
        write_f64(out, h.idle);
        out.push(b'}');
    }
}

impl Listed for HexZombie {
    fn id(&self) -> u32 {
        self.id
    }
    fn json(&self) -> Value {
        let z = self;
        json!({"id": z.id, "x": z.x, "y": z.y, "hp": z.hp, "facing": z.facing, "moves": z.moves,
               "idle": z.idle, "scent": z.scent})
    }
    fn write_json(&self, out: &mut Vec<u8>) {
        let z = self;
        let _ = write!(
            out,
            "{{\"id\":{},\"x\":{},\"y\":{},\"hp\":{},\"facing\":{},\"moves\":{},\"idle\":",
            z.id, z.x, z.y, z.hp, z.facing, z.moves
        );
        write_f64(out, z.idle);
        out.extend_from_slice(b",\"scent\":");
        write_f64(out, z.scent);
        out.push(b'}');
    }
}

impl Listed for HexWall {
    fn id(&self) -> u32 {
        self.id
    }
    fn json(&self) -> Value {
        json!({"id": self.id, "x": self.x, "y": self.y, "hp": self.hp, "cap": self.cap})
    }
    fn write_json(&self, out: &mut Vec<u8>) {
        let w = self;
        let _ = write!(out, "{{\"id\":{},\"x\":{},\"y\":{},\"hp\":{},\"cap\":{}}}", w.id, w.x, w.y, w.hp, w.cap);
    }
}

impl Listed for HexCrate {
    fn id(&self) -> u32 {
        self.id
    }
    fn json(&self) -> Value {
        let c = self;
        json!({"id": c.id, "x": c.x, "y": c.y, "hp": c.hp, "cap": c.cap, "contents": contents_json(c.contents)})
    }
    fn write_json(&self, out: &mut Vec<u8>) {
        let c = self;
        let _ = write!(
            out,
            "{{\"id\":{},\"x\":{},\"y\":{},\"hp\":{},\"cap\":{},\"contents\":",
            c.id, c.x, c.y, c.hp, c.cap
        );
        write_contents(out, c.contents);
        out.push(b'}');
    }
}

impl Listed for HexAirstrike {
    fn id(&self) -> u32 {
        self.id
    }
    fn json(&self) -> Value {
        let a = self;
        json!({"id": a.id, "x": a.x, "y": a.y, "delay": a.delay, "contents": contents_json(a.contents)})
    }
    fn write_json(&self, out: &mut Vec<u8>) {
        let a = self;
        let _ = write!(out, "{{\"id\":{},\"x\":{},\"y\":{},\"delay\":{},\"contents\":", a.id, a.x, a.y, a.delay);
        write_contents(out, a.contents);
        out.push(b'}');
    }
}

/// The call's header as JSON: `kind` ("spawn_humans", "spawn_zombies", "unit"), `side`
/// ("humans", "zombies"), `t`, `unit` (null in spawn calls), `me` (the unit's object, or
/// null), `humans_to_spawn`, `zombies_to_spawn`, `zombie_cap`, `airdrops_held`,
/// `zombies_ready`.
pub fn header_json(ctx: &HexContext<'_>) -> Value {
    let call = match ctx.call {
        abi::CALL_SPAWN_HUMANS => "spawn_humans",
        abi::CALL_SPAWN_ZOMBIES => "spawn_zombies",
        abi::CALL_SIDE => "side",
        _ => "unit",
    };
    let side = if ctx.side == abi::HUMANS { "humans" } else { "zombies" };
    let unit = (ctx.unit != abi::NO_UNIT).then_some(ctx.unit);
    let me = if ctx.call != abi::CALL_UNIT {
        Value::Null
    } else if ctx.side == abi::HUMANS {
        ctx.me_human().map_or(Value::Null, Listed::json)
    } else {
        ctx.me_zombie().map_or(Value::Null, Listed::json)
    };
    json!({
        "kind": call, "side": side, "t": ctx.t, "unit": unit, "me": me,
        "humans_to_spawn": ctx.humans_to_spawn, "zombies_to_spawn": ctx.zombies_to_spawn,
        "zombie_cap": ctx.zombie_cap, "airdrops_held": ctx.airdrops_held, "zombies_ready": ctx.zombies_ready,
    })
}

/// Writes the call's header (the keys of [`header_json`]) as the start of a JSON object,
/// without its closing brace.
fn write_header(ctx: &HexContext<'_>, out: &mut Vec<u8>) {
    let call = match ctx.call {
        abi::CALL_SPAWN_HUMANS => "spawn_humans",
        abi::CALL_SPAWN_ZOMBIES => "spawn_zombies",
        abi::CALL_SIDE => "side",
        _ => "unit",
    };
    let side = if ctx.side == abi::HUMANS { "humans" } else { "zombies" };
    let _ = write!(out, "{{\"kind\":\"{call}\",\"side\":\"{side}\",\"t\":{},\"unit\":", ctx.t);
    if ctx.unit == abi::NO_UNIT {
        out.extend_from_slice(b"null");
    } else {
        let _ = write!(out, "{}", ctx.unit);
    }
    out.extend_from_slice(b",\"me\":");
    let me = match (ctx.call, ctx.side) {
        (abi::CALL_UNIT, abi::HUMANS) => ctx.me_human().map(|h| h.write_json(out)),
        (abi::CALL_UNIT, _) => ctx.me_zombie().map(|z| z.write_json(out)),
        _ => None,
    };
    if me.is_none() {
        out.extend_from_slice(b"null");
    }
    let _ = write!(
        out,
        ",\"humans_to_spawn\":{},\"zombies_to_spawn\":{},\"zombie_cap\":{},\"airdrops_held\":",
        ctx.humans_to_spawn, ctx.zombies_to_spawn, ctx.zombie_cap
    );
    write_f64(out, ctx.airdrops_held);
    out.extend_from_slice(b",\"zombies_ready\":");
    write_f64(out, ctx.zombies_ready);
}

/// The whole context as one JSON object: the header ([`header_json`]) and the five lists
/// `humans`, `zombies`, `walls`, `crates`, `airstrikes` of objects (the shape the scripts'
/// `ctx` has).
pub fn context_json(ctx: &HexContext<'_>) -> Value {
    let mut v = header_json(ctx);
    if let (Value::Object(m), Value::Object(lists)) = (&mut v, Sight::world_json(ctx)) {
        m.extend(lists);
    }
    v
}

fn int(m: &Map<String, Value>, key: &str) -> Result<i64, BotError> {
    match m.get(key) {
        Some(Value::Number(n)) => n
            .as_i64()
            .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9e15).map(|f| f as i64))
            .ok_or_else(|| BotError::Invalid(format!("{key} = {n} is not an integer"))),
        Some(other) => Err(BotError::Invalid(format!("{key} is {other}, not an integer"))),
        None => Err(BotError::Invalid(format!("the command has no {key}"))),
    }
}

fn coord(m: &Map<String, Value>, key: &str) -> Result<i32, BotError> {
    int(m, key).map(|v| v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32)
}

fn id(m: &Map<String, Value>, key: &str) -> Result<u32, BotError> {
    int(m, key).map(|v| u32::try_from(v).unwrap_or(u32::MAX))
}

/// One command from its JSON object.
pub fn command_from_json(v: &Value) -> Result<HexCommand, BotError> {
    let m = v.as_object().ok_or_else(|| BotError::Invalid(format!("a command is an object, not {v:.40}")))?;
    let name = m.get("cmd").and_then(Value::as_str).ok_or_else(|| BotError::Invalid("a command without cmd".into()))?;
    let xy = || Ok::<_, BotError>((coord(m, "x")?, coord(m, "y")?));
    let target = || id(m, "id").or_else(|_| id(m, "target"));
    Ok(match name {
        "move" => {
            let (x, y) = xy()?;
            HexCommand::step(x, y)
        }
        "attack" => HexCommand::attack(target()?),
        "attack_ground" => {
            let (x, y) = xy()?;
            HexCommand::attack_ground(x, y)
        }
        "grab" => HexCommand::grab(target()?),
        "give" => HexCommand::give(target()?, int(m, "amount")?),
        "throw_weapon" => {
            let (x, y) = xy()?;
            HexCommand::throw_weapon(x, y)
        }
        "throw_ammo" => {
            let (x, y) = xy()?;
            HexCommand::throw_ammo(x, y, int(m, "amount")?)
        }
        "build" => {
            let (x, y) = xy()?;
            HexCommand::build(x, y)
        }
        "call_drop" => {
            let (x, y) = xy()?;
            let contents = match m.get("contents") {
                Some(Value::String(s)) if s == "ammo" => abi::AMMO,
                None => abi::AMMO,
                Some(_) => id(m, "contents")?.min(abi::AMMO + 1),
            };
            HexCommand::call_drop(x, y, contents)
        }
        "spawn" | "spawn_human" => {
            let (x, y) = xy()?;
            HexCommand::spawn_human(x, y, id(m, "weapon")?)
        }
        "spawn_zombie" => HexCommand::spawn_zombie(id(m, "zone")?, id(m, "facing")?),
        "forward" => HexCommand::forward(),
        "turn" => {
            let by = int(m, "by").or_else(|_| int(m, "direction"))?;
            HexCommand { kind: cmd::TURN, amount: by, ..HexCommand::default() }
        }
        "eat" => HexCommand::eat(target()?),
        other => return Err(BotError::Invalid(format!("unknown command {other:?}"))),
    })
}

/// One command of a side call from its JSON object: the command, and its `unit` (absent:
/// [`abi::NO_UNIT`], for the side commands).
pub fn side_command_from_json(v: &Value) -> Result<(u32, HexCommand), BotError> {
    let command = command_from_json(v)?;
    let unit = match v.get("unit") {
        None | Some(Value::Null) => abi::NO_UNIT,
        Some(_) => id(v.as_object().expect("a command is an object"), "unit")?,
    };
    Ok((unit, command))
}

/// An answer from JSON: a list of commands (or `{"commands": [...]}`, or null for none).
/// Commands past the 16th are refused (not read, counted in the answer's `reserved`):
/// the play loop runs the first ones and counts the call as one error.
pub fn answer_from_json(v: &Value) -> Result<HexAnswer, BotError> {
    let list = match v {
        Value::Null => return Ok(HexAnswer::default()),
        Value::Array(a) => a,
        Value::Object(m) if m.contains_key("commands") => match &m["commands"] {
            Value::Array(a) => a,
            Value::Null => return Ok(HexAnswer::default()),
            other => return Err(BotError::Invalid(format!("commands is {other:.40}, not a list"))),
        },
        Value::Object(_) => std::slice::from_ref(v),
        other => return Err(BotError::Invalid(format!("the answer is {other:.40}, not a list of commands"))),
    };
    let mut answer = HexAnswer::default();
    for c in list.iter().take(abi::MAX_COMMANDS) {
        answer.push(command_from_json(c)?);
    }
    answer.reserved = u32::try_from(list.len().saturating_sub(abi::MAX_COMMANDS)).unwrap_or(u32::MAX);
    Ok(answer)
}
