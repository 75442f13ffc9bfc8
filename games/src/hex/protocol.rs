//! The hex program protocol's messages as types (serde), in the style of
//! nu-plugin-protocol: what the host writes to a program bot ([`CallLine`], [`VerdictLine`],
//! [`RandomLine`]), the objects of a side's sight in them ([`Human`], ..., [`World`],
//! [`Delta`]), the game's static data ([`GameData`]), and how a program's lines are read
//! ([`Reply`], [`SideReply`], [`answer_from_json`]). Each object has one encoder, its serde
//! derive: the program's lines, and the JSON the script bindings turn into their tables
//! ([`Listed::json`], [`game_json`]), are written by it. The protocol's version is
//! [`VERSION`]; the first line of a game states it.
//!
//! This module is the shape of the lines only: the conversation (processes, deadlines,
//! which line goes when) is `program.rs`, the rules are the engine's.

use std::borrow::Cow;
use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use zombies_plugin_abi::hex::{
    self as abi, HexAirstrike, HexAnswer, HexCommand, HexContext, HexCrate, HexHuman, HexWall, HexZombie, cmd,
};

use super::side::SideInfo;
use crate::bot::BotError;

/// The version of the hex program protocol this host speaks, stated as `"protocol"` in
/// the first line of a game. Version 1 is the protocol as it was before it had a number:
/// a bot written for it reads every line unchanged.
pub const VERSION: u32 = 1;

/// Random numbers a program may ask for in one call.
pub const MAX_RANDOM_REQUESTS: usize = 1000;

/// A human as programs and scripts see it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct Human {
    pub id: u32,
    pub x: i32,
    pub y: i32,
    pub hp: i64,
    pub ammo: i64,
    pub weapon: u32,
    pub specialty: u32,
    pub moves: i32,
    pub idle: f64,
}

/// A zombie as programs and scripts see it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct Zombie {
    pub id: u32,
    pub x: i32,
    pub y: i32,
    pub hp: i64,
    pub facing: u32,
    pub moves: i32,
    pub idle: f64,
    pub scent: f64,
}

/// A wall as programs and scripts see it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct Wall {
    pub id: u32,
    pub x: i32,
    pub y: i32,
    pub hp: i64,
    pub cap: i64,
}

/// A crate as programs and scripts see it (`contents`: `"ammo"` or a weapon id).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct Crate {
    pub id: u32,
    pub x: i32,
    pub y: i32,
    pub hp: i64,
    pub cap: i64,
    #[serde(with = "contents")]
    pub contents: u32,
}

/// An airstrike as programs and scripts see it (`contents`: `"ammo"` or a weapon id).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct Airstrike {
    pub id: u32,
    pub x: i32,
    pub y: i32,
    pub delay: i32,
    #[serde(with = "contents")]
    pub contents: u32,
}

/// A crate's or an airstrike's contents: `"ammo"` ([`abi::AMMO`]) or a weapon id.
mod contents {
    use super::*;

    pub fn serialize<S: Serializer>(c: &u32, s: S) -> Result<S::Ok, S::Error> {
        if *c == abi::AMMO { s.serialize_str("ammo") } else { s.serialize_u32(*c) }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Contents {
            Weapon(u32),
            Named(String),
        }
        match Contents::deserialize(d)? {
            Contents::Weapon(w) => Ok(w),
            Contents::Named(s) if s == "ammo" => Ok(abi::AMMO),
            Contents::Named(s) => Err(serde::de::Error::custom(format!("contents {s:?} is neither ammo nor a weapon"))),
        }
    }
}

/// An object of a context's lists (the ABI's type), with its id and its form in the
/// protocol ([`Listed::Wire`], whose serde derive is its one encoder).
pub trait Listed: Copy + PartialEq {
    /// Its form in the protocol.
    type Wire: Copy + PartialEq + Serialize + Object;
    /// Its id.
    fn id(&self) -> u32;
    /// Its form in the protocol.
    fn wire(&self) -> Self::Wire;
    /// Its JSON object (the scripts' tables are made from it).
    fn json(&self) -> Value {
        serde_json::to_value(self.wire()).expect("an object is JSON")
    }
}

/// An object of the protocol's lists: its id.
pub trait Object {
    /// Its id (unique across the five lists).
    fn id(&self) -> u32;
}

macro_rules! listed {
    ($abi:ty => $wire:ident { $($field:ident),* }) => {
        impl Object for $wire {
            fn id(&self) -> u32 {
                self.id
            }
        }
        impl Listed for $abi {
            type Wire = $wire;
            fn id(&self) -> u32 {
                self.id
            }
            fn wire(&self) -> $wire {
                $wire { $($field: self.$field),* }
            }
        }
    };
}

listed!(HexHuman => Human { id, x, y, hp, ammo, weapon, specialty, moves, idle });
listed!(HexZombie => Zombie { id, x, y, hp, facing, moves, idle, scent });
listed!(HexWall => Wall { id, x, y, hp, cap });
listed!(HexCrate => Crate { id, x, y, hp, cap, contents });
listed!(HexAirstrike => Airstrike { id, x, y, delay, contents });

/// A side's whole sight: the five lists, each in id order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct World {
    pub humans: Vec<Human>,
    pub zombies: Vec<Zombie>,
    pub walls: Vec<Wall>,
    pub crates: Vec<Crate>,
    pub airstrikes: Vec<Airstrike>,
}

/// Objects by list, a list without an object left out (a delta's `added` and `changed`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct Lists {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub humans: Vec<Human>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub zombies: Vec<Zombie>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub walls: Vec<Wall>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub crates: Vec<Crate>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub airstrikes: Vec<Airstrike>,
}

impl Lists {
    /// No object in any list.
    pub fn is_empty(&self) -> bool {
        self.humans.is_empty()
            && self.zombies.is_empty()
            && self.walls.is_empty()
            && self.crates.is_empty()
            && self.airstrikes.is_empty()
    }
}

/// What changed in a side's sight between two lines: objects `added` and `changed`
/// (whole), and the ids `removed` (destroyed or gone from sight); empty parts left out.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Delta {
    /// Objects new in sight.
    #[serde(default, skip_serializing_if = "Lists::is_empty")]
    pub added: Lists,
    /// Objects still in sight that changed.
    #[serde(default, skip_serializing_if = "Lists::is_empty")]
    pub changed: Lists,
    /// Ids gone from sight, list by list, each list's in id order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub removed: Vec<u32>,
}

impl World {
    /// The sight of a call.
    pub fn of(ctx: &HexContext<'_>) -> World {
        let mut world = World::default();
        world.set(ctx);
        world
    }

    /// Makes `self` the sight of a call, reusing its buffers.
    pub fn set(&mut self, ctx: &HexContext<'_>) {
        fn copy<T: Listed>(to: &mut Vec<T::Wire>, from: &[T]) {
            to.clear();
            to.extend(from.iter().map(Listed::wire));
        }
        copy(&mut self.humans, ctx.humans.as_slice());
        copy(&mut self.zombies, ctx.zombies.as_slice());
        copy(&mut self.walls, ctx.walls.as_slice());
        copy(&mut self.crates, ctx.crates.as_slice());
        copy(&mut self.airstrikes, ctx.airstrikes.as_slice());
    }

    /// What changed from `self` to `now`, into `delta` (emptied first, its buffers kept).
    pub fn delta_into(&self, now: &World, delta: &mut Delta) {
        let Delta { added, changed, removed } = delta;
        removed.clear();
        diff(&self.humans, &now.humans, &mut added.humans, &mut changed.humans, removed);
        diff(&self.zombies, &now.zombies, &mut added.zombies, &mut changed.zombies, removed);
        diff(&self.walls, &now.walls, &mut added.walls, &mut changed.walls, removed);
        diff(&self.crates, &now.crates, &mut added.crates, &mut changed.crates, removed);
        diff(&self.airstrikes, &now.airstrikes, &mut added.airstrikes, &mut changed.airstrikes, removed);
    }

    /// What changed from `self` to `now`.
    pub fn delta(&self, now: &World) -> Delta {
        let mut delta = Delta::default();
        self.delta_into(now, &mut delta);
        delta
    }

    /// Applies `delta` as a program does: upserts `added` and `changed` by id, drops
    /// `removed`, each list kept in id order.
    pub fn apply(&mut self, delta: &Delta) {
        fn upsert<T: Object + Copy>(list: &mut Vec<T>, added: &[T], changed: &[T], removed: &[u32]) {
            list.retain(|o| !removed.contains(&o.id()));
            for o in added.iter().chain(changed) {
                match list.binary_search_by_key(&o.id(), Object::id) {
                    Ok(i) => list[i] = *o,
                    Err(i) => list.insert(i, *o),
                }
            }
        }
        let (a, c, r) = (&delta.added, &delta.changed, &delta.removed[..]);
        upsert(&mut self.humans, &a.humans, &c.humans, r);
        upsert(&mut self.zombies, &a.zombies, &c.zombies, r);
        upsert(&mut self.walls, &a.walls, &c.walls, r);
        upsert(&mut self.crates, &a.crates, &c.crates, r);
        upsert(&mut self.airstrikes, &a.airstrikes, &c.airstrikes, r);
    }
}

/// One list's part of a delta: both lists are in id order, so one merge walk finds the
/// objects added, changed and removed.
fn diff<T: Object + Copy + PartialEq>(
    before: &[T],
    now: &[T],
    added: &mut Vec<T>,
    changed: &mut Vec<T>,
    removed: &mut Vec<u32>,
) {
    added.clear();
    changed.clear();
    if before == now {
        return;
    }
    let (mut i, mut j) = (0, 0);
    loop {
        match (before.get(i), now.get(j)) {
            (Some(b), Some(n)) if b.id() == n.id() => {
                if b != n {
                    changed.push(*n);
                }
                i += 1;
                j += 1;
            }
            (Some(b), n) if n.is_none_or(|n| b.id() < n.id()) => {
                removed.push(b.id());
                i += 1;
            }
            (_, Some(n)) => {
                added.push(*n);
                j += 1;
            }
            (_, None) => break,
        }
    }
}

/// What a call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub enum Kind {
    SpawnHumans,
    SpawnZombies,
    Side,
    Unit,
}

/// A side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub enum Side {
    Humans,
    Zombies,
}

/// The unit a unit call is for, whole.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[allow(missing_docs)]
pub enum Me {
    Human(Human),
    Zombie(Zombie),
}

/// The side's counters (hex.md, section 9), in every call line and verdict line.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct Counters {
    pub humans_to_spawn: u32,
    pub zombies_to_spawn: u32,
    pub zombie_cap: u32,
    pub airdrops_held: f64,
    pub zombies_ready: f64,
}

impl Counters {
    /// The counters of a call.
    pub fn of(ctx: &HexContext<'_>) -> Counters {
        Counters {
            humans_to_spawn: ctx.humans_to_spawn,
            zombies_to_spawn: ctx.zombies_to_spawn,
            zombie_cap: ctx.zombie_cap,
            airdrops_held: ctx.airdrops_held,
            zombies_ready: ctx.zombies_ready,
        }
    }
}

/// A call's header: what the call is (`kind`, `side`, `t`, `unit`, `me`) and the
/// counters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// What the call is.
    pub kind: Kind,
    /// The side called.
    pub side: Side,
    /// The half-turn.
    pub t: u32,
    /// The unit's id (null but in unit calls).
    pub unit: Option<u32>,
    /// The unit's object (null but in unit calls).
    pub me: Option<Me>,
    /// The side's counters.
    #[serde(flatten)]
    pub counters: Counters,
}

impl Header {
    /// The header of a call.
    pub fn of(ctx: &HexContext<'_>) -> Header {
        let kind = match ctx.call {
            abi::CALL_SPAWN_HUMANS => Kind::SpawnHumans,
            abi::CALL_SPAWN_ZOMBIES => Kind::SpawnZombies,
            abi::CALL_SIDE => Kind::Side,
            _ => Kind::Unit,
        };
        let side = if ctx.side == abi::HUMANS { Side::Humans } else { Side::Zombies };
        let me = match (ctx.call, ctx.side) {
            (abi::CALL_UNIT, abi::HUMANS) => ctx.me_human().map(|h| Me::Human(h.wire())),
            (abi::CALL_UNIT, _) => ctx.me_zombie().map(|z| Me::Zombie(z.wire())),
            _ => None,
        };
        let unit = (ctx.unit != abi::NO_UNIT).then_some(ctx.unit);
        Header { kind, side, t: ctx.t, unit, me, counters: Counters::of(ctx) }
    }
}

/// Seconds as a line gives them: rounded to the microsecond (null: none).
fn seconds(d: Option<Duration>) -> Option<f64> {
    d.map(|d| (d.as_secs_f64() * 1e6).round() / 1e6)
}

/// Both sides' clocks: seconds of own time left in each time bank (null without banks).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct Clocks {
    pub humans: Option<f64>,
    pub zombies: Option<f64>,
}

impl Clocks {
    /// The clocks of a call (indexed by [`abi::HUMANS`] and [`abi::ZOMBIES`]).
    pub fn of(clocks: [Option<Duration>; 2]) -> Clocks {
        Clocks { humans: seconds(clocks[0]), zombies: seconds(clocks[1]) }
    }
}

/// What a side call stands for: the calls, the half-turn's command cap, and its time (its
/// share in seconds, null when unlimited).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct SideCall {
    pub calls: u32,
    pub max_commands: u32,
    pub time: Option<f64>,
}

impl SideCall {
    /// What a side call with `info` stands for, for a program with limit `own_limit`.
    pub fn of(info: &SideInfo, own_limit: Duration) -> SideCall {
        SideCall { calls: info.calls, max_commands: info.max_commands, time: seconds(info.share(Some(own_limit))) }
    }
}

/// The line of a call: `protocol` and `game` in a game's first line only, the header,
/// the clocks, what a side call stands for (side calls only), and the sight, whole
/// (`world`: the first line of a side's half-turn) or as what changed since the previous
/// line (`delta`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallLine<'a> {
    /// The protocol's version ([`VERSION`]): in the first line of a game only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<u32>,
    /// What the call is.
    #[serde(flatten)]
    pub header: Header,
    /// Both sides' clocks.
    pub clocks: Clocks,
    /// What a side call stands for.
    #[serde(flatten)]
    pub side_call: Option<SideCall>,
    /// The game's static data: in the first line of a game only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<Cow<'a, GameData>>,
    /// The side's whole sight.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub world: Option<Cow<'a, World>>,
    /// What changed in the side's sight since the previous line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta: Option<Cow<'a, Delta>>,
}

/// The host's answer to each command of a side call: the verdict's name (`accepted`,
/// `refused`, `invalid`, `cap`, `time`), why when it was not accepted, what the command
/// changed in the sight, and the counters after it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerdictLine<'a> {
    /// The verdict's name.
    pub verdict: Cow<'a, str>,
    /// Why it was not accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<Cow<'a, str>>,
    /// What changed in the sight since the previous line.
    pub delta: Cow<'a, Delta>,
    /// The side's counters after it.
    #[serde(flatten)]
    pub counters: Counters,
}

/// A request of the game's generator (`{"random": n}`, from the program: a number in
/// `0..n`) and its answer (`{"random": k}`, from the host).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RandomLine {
    /// The count asked for, or the number drawn.
    pub random: u32,
}

/// Writes `message` as one line of JSON to `out`.
pub fn write_line(message: &impl Serialize, out: &mut Vec<u8>) {
    serde_json::to_writer(&mut *out, message).expect("a message is JSON, and a Vec takes it");
    out.push(b'\n');
}

/// A weapon of the table (hex.md, section 5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct Weapon {
    pub id: u32,
    pub name: String,
    pub range: i32,
    pub ammo: i64,
    pub delay: f64,
    pub direct: i64,
    pub vertical: i64,
    pub horizontal: i64,
    pub radius: i32,
    pub spawn_with: bool,
    pub call_in: bool,
}

/// A spawn zone: its id, its edge's end hexes h0 (`from`) and h26 (`to`), and the facing
/// into the board (`inward`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct Zone {
    pub id: u32,
    pub from: Option<(i32, i32)>,
    pub to: Option<(i32, i32)>,
    pub inward: u32,
}

/// What never changes in a game, as the 2009 client library knew it from the first
/// status: `radius` (the board is |x|, |y| ≤ radius), `turn_limit`, `humans` (placed per
/// side), `weapons` (the table of section 5) and `zones`. Programs get it as `"game"` in
/// their first line; scripts as `ctx.game`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct GameData {
    pub radius: i32,
    pub turn_limit: u32,
    pub humans: usize,
    pub weapons: Vec<Weapon>,
    pub zones: Vec<Zone>,
}

impl GameData {
    /// This host's game.
    pub fn new() -> GameData {
        use super::data;
        let weapons = data::WEAPONS
            .iter()
            .map(|w| Weapon {
                id: w.id,
                name: w.name.to_owned(),
                range: w.range,
                ammo: w.ammo,
                delay: w.delay,
                direct: w.direct,
                vertical: w.vertical,
                horizontal: w.horizontal,
                radius: w.radius,
                spawn_with: w.spawn_with,
                call_in: w.call_in,
            })
            .collect();
        let zones = data::ZONES
            .iter()
            .zip(INWARD)
            .map(|(&id, inward)| Zone { id, from: data::zone_hex(id, 0), to: data::zone_hex(id, 26), inward })
            .collect();
        GameData { radius: abi::BOUND, turn_limit: data::TURN_LIMIT, humans: data::HUMANS_PER_GAME, weapons, zones }
    }
}

impl Default for GameData {
    fn default() -> GameData {
        GameData::new()
    }
}

/// The game's static data ([`GameData`]) as a JSON value (scripts' `ctx.game`).
pub fn game_json() -> Value {
    serde_json::to_value(GameData::new()).expect("the game's data is JSON")
}

/// The facing into the board from each zone (7, 8, 9, 10).
pub const INWARD: [u32; 4] = [0, 4, 3, 1];

/// The whole context as one JSON object: the header ([`Header`]) and the five lists
/// `humans`, `zombies`, `walls`, `crates`, `airstrikes` of objects (the shape the scripts'
/// `ctx` has).
pub fn context_json(ctx: &HexContext<'_>) -> Value {
    #[derive(Serialize)]
    struct Whole {
        #[serde(flatten)]
        header: Header,
        #[serde(flatten)]
        world: World,
    }
    serde_json::to_value(Whole { header: Header::of(ctx), world: World::of(ctx) }).expect("a context is JSON")
}

/// A line a program writes in a unit or spawn call.
// Read and taken apart at once, never stored: boxing the answer would cost an allocation
// per call for nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// `{"random": n}`: a number of the game's generator in `0..n`; the call goes on.
    Random(u32),
    /// `{"plays": "sides"}` (the first line of a game only): it plays whole sides.
    PlaysSides,
    /// Its answer: the commands (a list, `{"commands": [...]}`, one command, or an empty
    /// line or null for none).
    Answer(HexAnswer),
}

impl Reply {
    /// Reads one line.
    pub fn read(line: &str) -> Result<Reply, BotError> {
        let line = line.trim();
        if line.is_empty() {
            return Ok(Reply::Answer(HexAnswer::default()));
        }
        let value: Value =
            serde_json::from_str(line).map_err(|e| BotError::Invalid(format!("not JSON ({e}): {line:.60}")))?;
        if let Some(n) = random_request(&value) {
            return n.map(Reply::Random);
        }
        if value.as_object().and_then(|m| m.get("plays")).and_then(Value::as_str) == Some("sides") {
            return Ok(Reply::PlaysSides);
        }
        answer_from_json(&value).map(Reply::Answer)
    }
}

/// A line a program writes in a side call.
#[derive(Debug, Clone, PartialEq)]
pub enum SideReply {
    /// `"done"` (or an empty line): the half-turn is over.
    Done,
    /// `{"random": n}`: a number of the game's generator in `0..n`.
    Random(u32),
    /// A command for `unit` ([`abi::NO_UNIT`] for the side commands).
    Command(u32, HexCommand),
}

impl SideReply {
    /// Reads one line.
    pub fn read(line: &str) -> Result<SideReply, BotError> {
        let line = line.trim();
        if matches!(line, "" | "done" | "\"done\"") {
            return Ok(SideReply::Done);
        }
        let value: Result<Value, _> = serde_json::from_str(line);
        if let Some(n) = value.as_ref().ok().and_then(random_request) {
            return n.map(SideReply::Random);
        }
        let value = value.map_err(|e| BotError::Invalid(format!("not JSON ({e}): {line:.60}")))?;
        side_command_from_json(&value).map(|(unit, command)| SideReply::Command(unit, command))
    }
}

/// The count of a `{"random": n}` line, if `value` is one (an object of that one key).
fn random_request(value: &Value) -> Option<Result<u32, BotError>> {
    let n = value.as_object().filter(|m| m.len() == 1).and_then(|m| m.get("random"))?;
    Some(
        n.as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| BotError::Invalid(format!("random {n} is not a count 0..2^32"))),
    )
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

/// One command from its JSON object (also the scripts' command tables, turned to JSON).
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

#[cfg(test)]
mod tests {
    use super::*;

    fn human(id: u32, x: i32) -> Human {
        Human { id, x, y: -1, hp: 10, ammo: 6, weapon: 0, specialty: 1, moves: 2, idle: 1.0 }
    }

    fn zombie(id: u32, facing: u32) -> Zombie {
        Zombie { id, x: 3, y: 4, hp: 5, facing, moves: 1, idle: 0.5, scent: 2.25 }
    }

    fn world() -> World {
        World {
            humans: vec![human(1, 0), human(2, 1)],
            zombies: vec![zombie(5, 0)],
            walls: vec![Wall { id: 7, x: 0, y: 0, hp: 3, cap: 4 }],
            crates: vec![Crate { id: 8, x: 1, y: 1, hp: 2, cap: 2, contents: abi::AMMO }],
            airstrikes: vec![Airstrike { id: 9, x: -2, y: 2, delay: 3, contents: 4 }],
        }
    }

    fn header() -> Header {
        Header {
            kind: Kind::Unit,
            side: Side::Zombies,
            t: 12,
            unit: Some(5),
            me: Some(Me::Zombie(zombie(5, 0))),
            counters: Counters {
                humans_to_spawn: 0,
                zombies_to_spawn: 3,
                zombie_cap: 40,
                airdrops_held: 0.0,
                zombies_ready: 1.5,
            },
        }
    }

    /// A message read back from its line is the message.
    fn round_trip<T: Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug>(message: &T) -> String {
        let mut line = Vec::new();
        write_line(message, &mut line);
        let text = String::from_utf8(line).unwrap();
        assert!(text.ends_with('\n') && !text[..text.len() - 1].contains('\n'), "one line: {text}");
        let back: T = serde_json::from_str(&text).unwrap();
        assert_eq!(&back, message, "{text}");
        text
    }

    #[test]
    fn a_games_first_line_states_the_protocol_first_and_reads_back_whole() {
        let game = GameData::new();
        let world = world();
        let line = CallLine {
            protocol: Some(VERSION),
            header: header(),
            clocks: Clocks::of([Some(Duration::from_micros(1_500_001)), None]),
            side_call: None,
            game: Some(Cow::Borrowed(&game)),
            world: Some(Cow::Borrowed(&world)),
            delta: None,
        };
        let text = round_trip(&line);
        assert!(
            text.starts_with("{\"protocol\":1,\"kind\":\"unit\",\"side\":\"zombies\",\"t\":12,\"unit\":5,"),
            "{text}"
        );
        assert!(text.contains(",\"clocks\":{\"humans\":1.500001,\"zombies\":null},\"game\":{\"radius\":13,"), "{text}");
        assert!(!text.contains("\"delta\"") && !text.contains("\"calls\""), "{text}");
    }

    #[test]
    fn later_lines_carry_no_version_and_a_side_line_says_what_it_stands_for() {
        let delta = world().delta(&World::default());
        let line = CallLine {
            protocol: None,
            header: Header { kind: Kind::Side, unit: None, me: None, ..header() },
            clocks: Clocks::of([None, None]),
            side_call: Some(SideCall { calls: 4, max_commands: 64, time: Some(0.25) }),
            game: None,
            world: None,
            delta: Some(Cow::Borrowed(&delta)),
        };
        let text = round_trip(&line);
        assert!(
            text.starts_with("{\"kind\":\"side\",\"side\":\"zombies\",\"t\":12,\"unit\":null,\"me\":null,"),
            "{text}"
        );
        assert!(text.contains("\"calls\":4,\"max_commands\":64,\"time\":0.25,\"delta\":{\"removed\":[1,2,5,7,8,9]}}"));
    }

    /// Each object's one encoder writes its keys in the protocol's order, contents as
    /// `"ammo"` or a weapon id, and floats with a fraction; the scripts' JSON is the same.
    #[test]
    fn each_object_has_one_encoding_for_programs_and_scripts() {
        let w = world();
        let text = serde_json::to_string(&w).unwrap();
        assert!(text.starts_with(
            "{\"humans\":[{\"id\":1,\"x\":0,\"y\":-1,\"hp\":10,\"ammo\":6,\"weapon\":0,\"specialty\":1,\"moves\":2,\"idle\":1.0},"
        ));
        assert!(
            text.contains("{\"id\":5,\"x\":3,\"y\":4,\"hp\":5,\"facing\":0,\"moves\":1,\"idle\":0.5,\"scent\":2.25}")
        );
        assert!(text.contains("{\"id\":8,\"x\":1,\"y\":1,\"hp\":2,\"cap\":2,\"contents\":\"ammo\"}"));
        assert!(text.contains("{\"id\":9,\"x\":-2,\"y\":2,\"delay\":3,\"contents\":4}"));
        let abi_crate = HexCrate { id: 8, x: 1, y: 1, hp: 2, cap: 2, contents: abi::AMMO };
        assert_eq!(abi_crate.json(), serde_json::to_value(w.crates[0]).unwrap());
        assert_eq!(abi_crate.json()["contents"], "ammo");
        round_trip(&w);
    }

    #[test]
    fn a_delta_applied_to_the_sight_before_gives_the_sight_after() {
        let before = world();
        let mut after = world();
        after.humans.remove(0);
        after.humans[0].hp = 1;
        after.zombies.push(zombie(6, 2));
        after.crates.clear();
        let delta = before.delta(&after);
        assert_eq!(delta.removed, vec![1, 8]);
        assert_eq!((delta.added.zombies.len(), delta.changed.humans.len()), (1, 1));
        let text = round_trip(&delta);
        assert!(text.starts_with("{\"added\":{\"zombies\":[{\"id\":6,"), "{text}");
        let mut copy = before.clone();
        copy.apply(&delta);
        assert_eq!(copy, after);
        assert_eq!(serde_json::to_string(&after.delta(&after)).unwrap(), "{}");
    }

    #[test]
    fn verdict_and_random_lines_round_trip() {
        let delta = Delta { removed: vec![3], ..Delta::default() };
        let refused = VerdictLine {
            verdict: "refused".into(),
            reason: Some("out of range".into()),
            delta: Cow::Borrowed(&delta),
            counters: header().counters,
        };
        let text = round_trip(&refused);
        assert!(text.starts_with("{\"verdict\":\"refused\",\"reason\":\"out of range\",\"delta\":{\"removed\":[3]},"));
        let accepted = VerdictLine { verdict: "accepted".into(), reason: None, ..refused };
        assert!(!round_trip(&accepted).contains("reason"));
        assert_eq!(round_trip(&RandomLine { random: 7 }), "{\"random\":7}\n");
        assert!(serde_json::from_str::<RandomLine>("{\"random\":7,\"x\":1}").is_err());
    }

    #[test]
    fn a_programs_lines_are_read_as_what_they_ask() {
        assert_eq!(Reply::read("{\"random\": 6}").unwrap(), Reply::Random(6));
        assert_eq!(Reply::read(" {\"plays\": \"sides\"} ").unwrap(), Reply::PlaysSides);
        assert_eq!(Reply::read("").unwrap(), Reply::Answer(HexAnswer::default()));
        let Reply::Answer(a) = Reply::read("[{\"cmd\":\"move\",\"x\":1,\"y\":0},{\"cmd\":\"forward\"}]").unwrap()
        else {
            panic!("an answer")
        };
        assert_eq!(a.commands().len(), 2);
        assert!(Reply::read("{\"random\": -1}").is_err());
        assert!(Reply::read("nonsense").is_err());
        assert_eq!(SideReply::read("done").unwrap(), SideReply::Done);
        assert_eq!(SideReply::read("{\"random\":2}").unwrap(), SideReply::Random(2));
        assert_eq!(
            SideReply::read("{\"cmd\":\"attack\",\"unit\":4,\"id\":9}").unwrap(),
            SideReply::Command(4, HexCommand::attack(9))
        );
    }

    #[test]
    fn the_games_data_reads_back_and_is_the_scripts_ctx_game() {
        let game = GameData::new();
        round_trip(&game);
        assert_eq!(game_json(), serde_json::to_value(&game).unwrap());
        assert_eq!(game_json()["zones"][0]["from"].as_array().map(Vec::len), Some(2));
    }
}
