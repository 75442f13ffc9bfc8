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
//! This module is the protocol only: what a call may send is decided by the play loop
//! (`games::hex`), the process by `loaders::program`.

use std::io::Write as _;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use zombies_plugin_abi::hex::{
    self as abi, HexAirstrike, HexAnswer, HexCommand, HexContext, HexCrate, HexHuman, HexWall, HexZombie, cmd,
};

use super::HexGame;
use crate::bot::{Bot, BotError, BotFactory};
use crate::loaders::program::{Program, Talker};

/// The bots of a program (always one persistent process per game).
pub(super) fn bots(program: Program) -> Result<Arc<dyn BotFactory<HexGame>>, String> {
    let program = Program { persistent: true, ..program };
    let factory = move || Ok(Box::new(ProgramBot::new(Talker::new(program.clone()))) as Box<dyn Bot<HexGame>>);
    Ok(Arc::new(factory))
}

struct ProgramBot {
    talker: Talker,
    /// The sight as the program last received it (its copy of the world), or `None`
    /// before the first call and after a failed one (the next call sends the world).
    sent: Option<Sight>,
    /// The request line's buffer, kept between calls.
    line: Vec<u8>,
    /// The game's static data went in the first line.
    greeted: bool,
    /// The own time of this call's exchanges so far (`crate::clock`): a call may ask
    /// for random numbers, each an exchange of its own.
    spent: std::time::Duration,
}

impl ProgramBot {
    fn new(talker: Talker) -> ProgramBot {
        ProgramBot { talker, sent: None, line: Vec::new(), greeted: false, spent: std::time::Duration::ZERO }
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

impl Bot<HexGame> for ProgramBot {
    fn turn(&mut self, ctx: &HexContext<'_>) -> Result<HexAnswer, BotError> {
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        write_header(ctx, &mut line);
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
        let asked = self.talker.ask(&line, 1);
        self.spent = self.talker.last_time().unwrap_or_default();
        self.line = line;
        let mut lines = asked?;
        sight.set(ctx);
        self.sent = Some(sight);
        for _ in 0..=MAX_RANDOM_REQUESTS {
            let text = lines.first().map_or("", |l| l.trim());
            if text.is_empty() {
                return Ok(HexAnswer::default());
            }
            let value: Value =
                serde_json::from_str(text).map_err(|e| BotError::Invalid(format!("not JSON ({e}): {:.60}", text)))?;
            // `{"random": n}` asks for a number of the game's generator: the answer is
            // `{"random": k}`, k uniform in 0..n, and the call goes on.
            let Some(n) = value.as_object().filter(|m| m.len() == 1).and_then(|m| m.get("random")) else {
                return answer_from_json(&value);
            };
            let n = n
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| BotError::Invalid(format!("random {n} is not a count 0..2^32")))?;
            let reply = format!("{{\"random\":{}}}\n", ctx.random(n));
            let asked = self.talker.ask(reply.as_bytes(), 1);
            self.spent += self.talker.last_time().unwrap_or_default();
            lines = asked?;
        }
        Err(BotError::Invalid(format!("more than {MAX_RANDOM_REQUESTS} random numbers asked in one call")))
    }

    fn times_itself(&self) -> bool {
        true
    }

    fn call_time(&self) -> Option<std::time::Duration> {
        Some(self.spent)
    }
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
