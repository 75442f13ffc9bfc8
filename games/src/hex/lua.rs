//! The hex game's Lua bindings. `do_turn(ctx)` gets a table shaped like the program
//! protocol's JSON (`protocol::context_json`): `ctx.kind` ("spawn_humans", "spawn_zombies",
//! "unit"), `ctx.side` ("humans", "zombies"), `ctx.t`, `ctx.unit`, `ctx.me`, the counters,
//! `ctx.clocks` (`{humans = s, zombies = s}`: seconds left in each side's time bank, absent
//! without banks), and the lists `ctx.humans`, `ctx.zombies`, `ctx.walls`, `ctx.crates`,
//! `ctx.airstrikes` (arrays from 1 of tables with `id`, `x`, `y`, ...). It answers a list of
//! command tables, `{ {cmd = "move", x = 1, y = 0}, {cmd = "attack", id = 131} }` (nil:
//! nothing). The sandbox, budgets and limits are `loaders::scripts::lua`'s.
//!
//! A script that defines `play_side(side)` plays whole sides (hex.md, "Whole sides"): it is
//! called once per half-turn of its side, `do_turn` never. `side.ctx` is the context
//! (`kind` "side"), kept up to date after every command; `side:command{cmd = "attack",
//! unit = 130, id = 131}` runs one command and returns its verdict, `{ok = true, verdict =
//! "accepted"}` or `{ok = false, verdict = "refused", reason = "out of range"}`;
//! `side.max_commands`, `side.calls` and `side.time` (seconds, nil when unlimited) say
//! what the call stands for. Its time is the side's share (the VM's deadline); its
//! instruction budget the per-call budget times [`SIDE_BUDGET`].

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use mlua::{Function, Lua, Table, Value};
use serde_json::{Map, Number, Value as Json};
use zombies_plugin_abi::hex::{
    self as abi, HexAirstrike, HexAnswer, HexContext, HexCrate, HexHuman, HexWall, HexZombie,
};

use super::protocol::{Listed, answer_from_json, side_command_from_json};
use super::side::{SideLink, Verdict};
use super::{Hex, HexCall};
use crate::bot::{Bot, BotError, BotFactory};
use crate::clock::Stopwatch;
use crate::loaders::scripts::Script;
use crate::loaders::scripts::lua::LuaVm;

/// A side call's instruction budget, in per-call budgets: the most calls a half-turn can
/// have (the zombies' spawn call and 420 zombies at the cap). The VM's budget is fixed
/// when it is made, so it is this many for every side call; its time is the call's share.
pub const SIDE_BUDGET: u64 = 421;

/// Checks the script now (syntax, top-level code, `do_turn` or `play_side`) and makes its
/// bots. A script that plays whole sides gets VMs with [`SIDE_BUDGET`] per-call budgets.
pub(super) fn bots(script: Script) -> Result<Arc<dyn BotFactory<Hex>>, String> {
    let sides = LuaBot::new(&script)?.play_side.is_some();
    let mut script = script;
    if sides {
        script.limits.op_budget = script.limits.op_budget.saturating_mul(SIDE_BUDGET);
    }
    let factory = move || LuaBot::new(&script).map(|b| Box::new(b) as Box<dyn Bot<Hex>>).map_err(BotError::Failed);
    Ok(Arc::new(factory))
}

struct LuaBot {
    vm: LuaVm<HexContext<'static>>,
    /// `ctx` and its lists, kept between calls (and refreshed by `side:command`).
    tables: Rc<RefCell<Tables>>,
    /// The script's `play_side`, if it plays whole sides, and the `side` table handed to it.
    play_side: Option<(Function, Table)>,
    /// The side call in progress, for `side:command`.
    link: Rc<SideLink>,
    /// The script's own limit per call (a side call's share counts calls of it).
    limit: Duration,
    /// The own time of the last side call.
    spent: Option<Duration>,
}

/// `ctx`, one table per VM, and its lists: an object's table is made again only when the
/// object changed (a zombie side of hundreds of zombies would otherwise cost hundreds of
/// tables a call).
struct Tables {
    ctx: Table,
    humans: Cache<HexHuman>,
    zombies: Cache<HexZombie>,
    walls: Cache<HexWall>,
    crates: Cache<HexCrate>,
    airstrikes: Cache<HexAirstrike>,
}

impl Tables {
    /// Makes `ctx` the context of `c`, touching only what changed.
    fn fill(&mut self, lua: &Lua, c: &HexContext<'_>, clocks: [Option<Duration>; 2]) -> mlua::Result<()> {
        self.humans.sync(lua, c.humans.as_slice())?;
        self.zombies.sync(lua, c.zombies.as_slice())?;
        self.walls.sync(lua, c.walls.as_slice())?;
        self.crates.sync(lua, c.crates.as_slice())?;
        self.airstrikes.sync(lua, c.airstrikes.as_slice())?;
        let t = &self.ctx;
        let kind = match c.call {
            abi::CALL_SPAWN_HUMANS => "spawn_humans",
            abi::CALL_SPAWN_ZOMBIES => "spawn_zombies",
            abi::CALL_SIDE => "side",
            _ => "unit",
        };
        t.raw_set("kind", kind)?;
        t.raw_set("side", if c.side == abi::HUMANS { "humans" } else { "zombies" })?;
        t.raw_set("t", c.t)?;
        let unit = (c.unit != abi::NO_UNIT).then_some(c.unit);
        t.raw_set("unit", unit)?;
        let me = unit
            .and_then(|id| if c.side == abi::HUMANS { self.humans.table_of(id) } else { self.zombies.table_of(id) });
        t.raw_set("me", me)?;
        t.raw_set("humans_to_spawn", c.humans_to_spawn)?;
        t.raw_set("zombies_to_spawn", c.zombies_to_spawn)?;
        t.raw_set("zombie_cap", c.zombie_cap)?;
        t.raw_set("airdrops_held", c.airdrops_held)?;
        t.raw_set("zombies_ready", c.zombies_ready)?;
        let clocks = match clocks {
            [None, None] => Value::Nil,
            [h, z] => {
                let table = lua.create_table_with_capacity(0, 2)?;
                table.raw_set("humans", h.map(|d| d.as_secs_f64()))?;
                table.raw_set("zombies", z.map(|d| d.as_secs_f64()))?;
                Value::Table(table)
            }
        };
        t.raw_set("clocks", clocks)
    }
}

/// The Lua array of one list of the context, and each object's table by id.
struct Cache<T> {
    prev: Vec<T>,
    array: Table,
    by_id: HashMap<u32, (T, Table)>,
}

impl<T: Listed> Cache<T> {
    fn new(lua: &Lua) -> mlua::Result<Cache<T>> {
        Ok(Cache { prev: Vec::new(), array: lua.create_table()?, by_id: HashMap::new() })
    }

    /// Makes the array hold `cur`, touching only what changed since the last call.
    fn sync(&mut self, lua: &Lua, cur: &[T]) -> mlua::Result<()> {
        if cur == self.prev.as_slice() {
            return Ok(());
        }
        for (i, o) in cur.iter().enumerate() {
            if self.prev.get(i) == Some(o) {
                continue;
            }
            let t = match self.by_id.get(&o.id()) {
                Some((old, t)) if old == o => t.clone(),
                _ => {
                    let t = match to_lua(lua, &o.json())? {
                        Value::Table(t) => t,
                        _ => lua.create_table()?,
                    };
                    self.by_id.insert(o.id(), (*o, t.clone()));
                    t
                }
            };
            self.array.raw_set(i + 1, t)?;
        }
        for i in cur.len()..self.prev.len() {
            self.array.raw_set(i + 1, Value::Nil)?;
        }
        if self.by_id.len() > 2 * cur.len() + 64 {
            let ids: std::collections::HashSet<u32> = cur.iter().map(Listed::id).collect();
            self.by_id.retain(|id, _| ids.contains(id));
        }
        self.prev.clear();
        self.prev.extend_from_slice(cur);
        Ok(())
    }

    fn table_of(&self, id: u32) -> Option<Table> {
        self.by_id.get(&id).map(|(_, t)| t.clone())
    }
}

impl LuaBot {
    fn new(script: &Script) -> Result<LuaBot, String> {
        // A script that plays whole sides need not define `do_turn`: the VM asks for one,
        // so a stand-in is defined before the script runs (which may replace it).
        let vm = LuaVm::new(script, |lua, _| {
            let stand_in = lua.create_function(|_, _: Value| -> mlua::Result<()> {
                Err(mlua::Error::runtime("this script plays whole sides (play_side)"))
            })?;
            lua.globals().raw_set("do_turn", stand_in)
        })?;
        let link = Rc::new(SideLink::default());
        let setup = |lua: &Lua| -> mlua::Result<_> {
            let tables = Tables {
                ctx: lua.create_table()?,
                humans: Cache::new(lua)?,
                zombies: Cache::new(lua)?,
                walls: Cache::new(lua)?,
                crates: Cache::new(lua)?,
                airstrikes: Cache::new(lua)?,
            };
            let t = &tables.ctx;
            t.raw_set("humans", &tables.humans.array)?;
            t.raw_set("zombies", &tables.zombies.array)?;
            t.raw_set("walls", &tables.walls.array)?;
            t.raw_set("crates", &tables.crates.array)?;
            t.raw_set("airstrikes", &tables.airstrikes.array)?;
            t.raw_set("game", to_lua(lua, &super::protocol::game_json())?)?;
            let tables = Rc::new(RefCell::new(tables));
            let play_side = match lua.globals().raw_get::<Value>("play_side")? {
                Value::Function(f) => {
                    let side = lua.create_table()?;
                    side.raw_set("ctx", &tables.borrow().ctx)?;
                    side.raw_set("command", side_command(lua, &link, &tables)?)?;
                    Some((f, side))
                }
                _ => None,
            };
            Ok((tables, play_side))
        };
        let (tables, play_side) =
            setup(&vm.lua).map_err(|e| format!("{}: cannot set up Lua: {e}", script.file_name()))?;
        let limit = script.limits.call_timeout;
        Ok(LuaBot { vm, tables, play_side, link, limit, spent: None })
    }

    /// One whole side's half-turn: `play_side(side)`, with the side's share of time.
    fn side_call(&mut self, call: &HexCall<'_>) -> Result<HexAnswer, BotError> {
        let Some((play, side)) = &self.play_side else { unreachable!("a side call of a per-unit script") };
        let Some(channel) = call.take_side() else {
            return Err(BotError::Failed("a script that plays whole sides was called for one unit".into()));
        };
        channel.claim();
        let info = channel.info();
        let share = info.share(Some(self.limit)).unwrap_or(self.limit);
        let (tables, link, lua) = (&self.tables, &self.link, &self.vm.lua);
        let fill = || -> mlua::Result<()> {
            side.raw_set("max_commands", info.max_commands)?;
            side.raw_set("calls", info.calls)?;
            side.raw_set("time", info.share(Some(self.limit)).map(|d| d.as_secs_f64()))?;
            let filled = link.with(|ch, random| {
                let ctx = HexContext { random, ..ch.context() };
                tables.borrow_mut().fill(lua, &ctx, call.clocks)
            });
            filled.ok_or_else(|| mlua::Error::runtime("no side call in progress"))?
        };
        // The call's deadline is its share (the VM reads it from the script's limits).
        let watch = Stopwatch::start();
        self.vm.script.limits.call_timeout = share;
        let result = link.during(channel, call.ctx.random, call.clocks, || {
            self.vm.call(&call.ctx, call.ctx.random, || {
                fill()?;
                play.call::<Value>(side)
            })
        });
        self.vm.script.limits.call_timeout = self.limit;
        self.spent = Some(watch.own());
        result.map(|_| HexAnswer::default())
    }
}

/// The `command` function of the `side` table: runs one command through the side call in
/// progress, refreshes `ctx`, and returns the verdict table.
fn side_command(lua: &Lua, link: &Rc<SideLink>, tables: &Rc<RefCell<Tables>>) -> mlua::Result<Function> {
    let (link, tables) = (Rc::clone(link), Rc::clone(tables));
    lua.create_function(move |lua, (_side, command): (Value, Value)| {
        let verdict = lua.create_table_with_capacity(0, 3)?;
        let parsed = to_json(&command, 0).and_then(|c| side_command_from_json(&c));
        let (unit, command) = match parsed {
            Ok(c) => c,
            Err(e) => {
                verdict.raw_set("ok", false)?;
                verdict.raw_set("verdict", Verdict::Invalid.name())?;
                verdict.raw_set("reason", e.to_string())?;
                return Ok(verdict);
            }
        };
        let clocks = link.clocks.get();
        let ran = link.with(|ch, random| {
            let v = ch.command(unit, &command);
            let ctx = HexContext { random, ..ch.context() };
            tables.borrow_mut().fill(lua, &ctx, clocks).map(|()| v)
        });
        let v = ran.ok_or_else(|| mlua::Error::runtime("side:command exists only during play_side"))??;
        verdict.raw_set("ok", v == Verdict::Accepted)?;
        verdict.raw_set("verdict", v.name())?;
        if v != Verdict::Accepted {
            verdict.raw_set("reason", v.reason_str())?;
        }
        Ok(verdict)
    })
}

/// A JSON value as a Lua value (arrays from index 1; null is nil).
fn to_lua(lua: &Lua, v: &Json) -> mlua::Result<Value> {
    Ok(match v {
        Json::Null => Value::Nil,
        Json::Bool(b) => Value::Boolean(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Value::Integer(i),
            None => Value::Number(n.as_f64().unwrap_or(0.0)),
        },
        Json::String(s) => Value::String(lua.create_string(s)?),
        Json::Array(a) => {
            let t = lua.create_table_with_capacity(a.len(), 0)?;
            for (i, x) in a.iter().enumerate() {
                t.raw_set(i + 1, to_lua(lua, x)?)?;
            }
            Value::Table(t)
        }
        Json::Object(m) => {
            let t = lua.create_table_with_capacity(0, m.len())?;
            for (k, x) in m {
                t.raw_set(k.as_str(), to_lua(lua, x)?)?;
            }
            Value::Table(t)
        }
    })
}

/// A Lua answer as JSON: a table with a length is a list, else a map with string keys.
fn to_json(v: &Value, depth: u32) -> Result<Json, BotError> {
    if depth > 4 {
        return Err(BotError::Invalid("the answer is nested too deeply".into()));
    }
    Ok(match v {
        Value::Nil => Json::Null,
        Value::Boolean(b) => Json::Bool(*b),
        Value::Integer(i) => Json::Number((*i).into()),
        Value::Number(f) => Number::from_f64(*f).map_or(Json::Null, Json::Number),
        Value::String(s) => Json::String(s.to_string_lossy()),
        Value::Table(t) => {
            let n = t.raw_len();
            if n > 0 {
                let mut list = Vec::with_capacity(n);
                for i in 1..=n {
                    let x: Value = t.raw_get(i).map_err(|e| BotError::Invalid(e.to_string()))?;
                    list.push(to_json(&x, depth + 1)?);
                }
                Json::Array(list)
            } else {
                let mut m = Map::new();
                for pair in t.pairs::<Value, Value>() {
                    let (k, x) = pair.map_err(|e| BotError::Invalid(e.to_string()))?;
                    if let Value::String(k) = k {
                        m.insert(k.to_string_lossy(), to_json(&x, depth + 1)?);
                    }
                }
                if m.is_empty() { Json::Array(Vec::new()) } else { Json::Object(m) }
            }
        }
        other => return Err(BotError::Invalid(format!("a {} in the answer", other.type_name()))),
    })
}

impl Bot<Hex> for LuaBot {
    fn turn(&mut self, call: &HexCall<'_>) -> Result<HexAnswer, BotError> {
        if self.play_side.is_some() {
            return self.side_call(call);
        }
        let ctx = &call.ctx;
        let value = self.vm.call(ctx, ctx.random, || {
            self.tables.borrow_mut().fill(&self.vm.lua, ctx, call.clocks)?;
            let c = self.tables.borrow().ctx.clone();
            self.vm.do_turn.call::<Value>(c)
        })?;
        answer_from_json(&to_json(&value, 0)?)
    }

    fn times_itself(&self) -> bool {
        self.play_side.is_some()
    }

    fn call_time(&self) -> Option<Duration> {
        self.spent.filter(|_| self.play_side.is_some())
    }
}
