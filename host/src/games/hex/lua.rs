//! The hex game's Lua bindings. `do_turn(ctx)` gets a table shaped like the program
//! protocol's JSON (`program::context_json`): `ctx.kind` ("spawn_humans", "spawn_zombies",
//! "unit"), `ctx.side` ("humans", "zombies"), `ctx.t`, `ctx.unit`, `ctx.me`, the counters,
//! and the lists `ctx.humans`, `ctx.zombies`, `ctx.walls`, `ctx.crates`, `ctx.airstrikes`
//! (arrays from 1 of tables with `id`, `x`, `y`, ...). It answers a list of command tables,
//! `{ {cmd = "move", x = 1, y = 0}, {cmd = "attack", id = 131} }` (nil: nothing). The
//! sandbox, budgets and limits are `loaders::scripts::lua`'s.

use std::sync::Arc;

use std::collections::HashMap;

use mlua::{Lua, Table, Value};
use serde_json::{Map, Number, Value as Json};
use zombies_plugin_abi::hex::{
    self as abi, HexAirstrike, HexAnswer, HexContext, HexCrate, HexHuman, HexWall, HexZombie,
};

use super::HexGame;
use super::program::{Listed, answer_from_json};
use crate::bot::{Bot, BotError, BotFactory};
use crate::loaders::scripts::Script;
use crate::loaders::scripts::lua::LuaVm;

/// Checks the script now (syntax, top-level code, `do_turn`) and makes its bots.
pub(super) fn bots(script: Script) -> Result<Arc<dyn BotFactory<HexGame>>, String> {
    LuaBot::new(&script)?;
    let factory = move || LuaBot::new(&script).map(|b| Box::new(b) as Box<dyn Bot<HexGame>>).map_err(BotError::Failed);
    Ok(Arc::new(factory))
}

struct LuaBot {
    vm: LuaVm<HexContext<'static>>,
    /// `ctx`, one table per VM, and its lists, kept between calls: an object's table is
    /// made again only when the object changed (a zombie side of hundreds of zombies
    /// would otherwise cost hundreds of tables a call).
    ctx: Table,
    humans: Cache<HexHuman>,
    zombies: Cache<HexZombie>,
    walls: Cache<HexWall>,
    crates: Cache<HexCrate>,
    airstrikes: Cache<HexAirstrike>,
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
        let vm = LuaVm::new(script, |_, _| Ok(()))?;
        let make = |lua: &Lua| -> mlua::Result<_> {
            Ok((
                lua.create_table()?,
                Cache::new(lua)?,
                Cache::new(lua)?,
                Cache::new(lua)?,
                Cache::new(lua)?,
                Cache::new(lua)?,
            ))
        };
        let (ctx, humans, zombies, walls, crates, airstrikes) =
            make(&vm.lua).map_err(|e| format!("{}: cannot set up Lua: {e}", script.file_name()))?;
        let bot = LuaBot { vm, ctx, humans, zombies, walls, crates, airstrikes };
        bot.link().map_err(|e| format!("{}: cannot set up Lua: {e}", script.file_name()))?;
        Ok(bot)
    }

    fn link(&self) -> mlua::Result<()> {
        self.ctx.raw_set("humans", &self.humans.array)?;
        self.ctx.raw_set("zombies", &self.zombies.array)?;
        self.ctx.raw_set("walls", &self.walls.array)?;
        self.ctx.raw_set("crates", &self.crates.array)?;
        self.ctx.raw_set("airstrikes", &self.airstrikes.array)?;
        self.ctx.raw_set("game", to_lua(&self.vm.lua, &super::program::game_json())?)
    }
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

impl Bot<HexGame> for LuaBot {
    fn turn(&mut self, ctx: &HexContext<'_>) -> Result<HexAnswer, BotError> {
        let value = self.vm.call(ctx, ctx.random, || {
            let lua = &self.vm.lua;
            self.humans.sync(lua, ctx.humans.as_slice())?;
            self.zombies.sync(lua, ctx.zombies.as_slice())?;
            self.walls.sync(lua, ctx.walls.as_slice())?;
            self.crates.sync(lua, ctx.crates.as_slice())?;
            self.airstrikes.sync(lua, ctx.airstrikes.as_slice())?;
            let c = &self.ctx;
            let kind = match ctx.call {
                abi::CALL_SPAWN_HUMANS => "spawn_humans",
                abi::CALL_SPAWN_ZOMBIES => "spawn_zombies",
                _ => "unit",
            };
            c.raw_set("kind", kind)?;
            c.raw_set("side", if ctx.side == abi::HUMANS { "humans" } else { "zombies" })?;
            c.raw_set("t", ctx.t)?;
            let unit = (ctx.unit != abi::NO_UNIT).then_some(ctx.unit);
            c.raw_set("unit", unit)?;
            let me = unit.and_then(|id| {
                if ctx.side == abi::HUMANS { self.humans.table_of(id) } else { self.zombies.table_of(id) }
            });
            c.raw_set("me", me)?;
            c.raw_set("humans_to_spawn", ctx.humans_to_spawn)?;
            c.raw_set("zombies_to_spawn", ctx.zombies_to_spawn)?;
            c.raw_set("zombie_cap", ctx.zombie_cap)?;
            c.raw_set("airdrops_held", ctx.airdrops_held)?;
            c.raw_set("zombies_ready", ctx.zombies_ready)?;
            self.vm.do_turn.call::<Value>(c)
        })?;
        answer_from_json(&to_json(&value, 0)?)
    }
}
