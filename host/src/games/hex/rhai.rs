//! The hex game's Rhai bindings. `do_turn(ctx)` gets a map shaped like the program
//! protocol's whole context (`program::context_json`): `ctx.kind` ("spawn_humans",
//! "spawn_zombies", "unit"), `ctx.side` ("humans", "zombies"), `ctx.t`, `ctx.unit`,
//! `ctx.me`, the counters, and the arrays `ctx.humans`, `ctx.zombies`, `ctx.walls`,
//! `ctx.crates`, `ctx.airstrikes` of maps with `id`, `x`, `y`, .... It answers an array of
//! command maps, `[#{cmd: "move", x: 1, y: 0}, #{cmd: "attack", id: 131}]` (`()`: nothing).
//! The sandbox and limits are `loaders::scripts::rhai`'s.
//!
//! The context is not rebuilt per call: each object's map is made once and kept (shared,
//! read-only) until the object changes, and a list's array is made again only when one
//! of its objects changed, came or went, as Lua's tables are; a call costs little more
//! than the script itself.

use std::collections::HashMap;
use std::sync::Arc;

use rhai::{Array, Dynamic, ImmutableString, Map};
use serde_json::{Number, Value as Json};
use zombies_plugin_abi::hex::{
    self as abi, HexAirstrike, HexAnswer, HexContext, HexCrate, HexHuman, HexWall, HexZombie,
};

use super::HexGame;
use super::program::{Listed, answer_from_json};
use crate::bot::{Bot, BotError, BotFactory};
use crate::loaders::scripts::Script;
use crate::loaders::scripts::rhai::RhaiVm;

/// Checks the script now (syntax, top-level code, `do_turn`) and makes its bots.
pub(super) fn bots(script: Script) -> Result<Arc<dyn BotFactory<HexGame>>, String> {
    RhaiVm::<HexContext<'static>>::new(&script, |_, _| {})?;
    let factory = move || {
        RhaiVm::new(&script, |_, _| {})
            .map(|vm| Box::new(RhaiBot::new(vm)) as Box<dyn Bot<HexGame>>)
            .map_err(BotError::Failed)
    };
    Ok(Arc::new(factory))
}

struct RhaiBot {
    vm: RhaiVm<HexContext<'static>>,
    humans: Cache<HexHuman>,
    zombies: Cache<HexZombie>,
    walls: Cache<HexWall>,
    crates: Cache<HexCrate>,
    airstrikes: Cache<HexAirstrike>,
    /// The strings of `kind` and `side`, made once.
    names: [Dynamic; 5],
    /// `ctx.game`, made once.
    game: Dynamic,
}

impl RhaiBot {
    fn new(vm: RhaiVm<HexContext<'static>>) -> RhaiBot {
        let names = ["spawn_humans", "spawn_zombies", "unit", "humans", "zombies"]
            .map(|n| Dynamic::from(ImmutableString::from(n)));
        RhaiBot {
            vm,
            humans: Cache::default(),
            zombies: Cache::default(),
            walls: Cache::default(),
            crates: Cache::default(),
            airstrikes: Cache::default(),
            names,
            game: to_dynamic(&super::program::game_json()).into_read_only().into_shared(),
        }
    }
}

/// One list of the context as a Rhai array, and each object's map by id.
struct Cache<T> {
    prev: Vec<T>,
    array: Dynamic,
    by_id: HashMap<u32, (T, Dynamic)>,
}

impl<T> Default for Cache<T> {
    fn default() -> Self {
        Cache { prev: Vec::new(), array: Dynamic::from_array(Array::new()).into_read_only(), by_id: HashMap::new() }
    }
}

impl<T: Listed> Cache<T> {
    /// Makes the array hold `cur`, making maps only for objects that changed.
    fn sync(&mut self, cur: &[T]) {
        if cur == self.prev.as_slice() {
            return;
        }
        let mut array = Array::with_capacity(cur.len());
        for o in cur {
            let map = match self.by_id.get(&o.id()) {
                Some((old, map)) if old == o => map.clone(),
                _ => {
                    let map = to_dynamic(&o.json()).into_read_only().into_shared();
                    self.by_id.insert(o.id(), (*o, map.clone()));
                    map
                }
            };
            array.push(map);
        }
        self.array = Dynamic::from_array(array).into_read_only().into_shared();
        if self.by_id.len() > 2 * cur.len() + 64 {
            let ids: std::collections::HashSet<u32> = cur.iter().map(Listed::id).collect();
            self.by_id.retain(|id, _| ids.contains(id));
        }
        self.prev.clear();
        self.prev.extend_from_slice(cur);
    }

    fn map_of(&self, id: u32) -> Dynamic {
        self.by_id.get(&id).map_or(Dynamic::UNIT, |(_, map)| map.clone())
    }
}

/// A JSON value as a Rhai value (null is `()`).
fn to_dynamic(v: &Json) -> Dynamic {
    match v {
        Json::Null => Dynamic::UNIT,
        Json::Bool(b) => Dynamic::from(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Dynamic::from(i),
            None => Dynamic::from(n.as_f64().unwrap_or(0.0)),
        },
        Json::String(s) => Dynamic::from(ImmutableString::from(s.as_str())),
        Json::Array(a) => Dynamic::from_array(a.iter().map(to_dynamic).collect::<Array>()),
        Json::Object(m) => {
            Dynamic::from_map(m.iter().map(|(k, x)| (k.as_str().into(), to_dynamic(x))).collect::<Map>())
        }
    }
}

/// A Rhai answer as JSON.
fn to_json(v: &Dynamic, depth: u32) -> Result<Json, BotError> {
    if depth > 4 {
        return Err(BotError::Invalid("the answer is nested too deeply".into()));
    }
    if v.is_unit() {
        return Ok(Json::Null);
    }
    if let Ok(i) = v.as_int() {
        return Ok(Json::Number(i.into()));
    }
    if let Ok(f) = v.as_float() {
        return Ok(Number::from_f64(f).map_or(Json::Null, Json::Number));
    }
    if let Ok(b) = v.as_bool() {
        return Ok(Json::Bool(b));
    }
    if let Some(s) = v.clone().try_cast::<ImmutableString>() {
        return Ok(Json::String(s.to_string()));
    }
    if let Some(a) = v.clone().try_cast::<Array>() {
        return a.iter().map(|x| to_json(x, depth + 1)).collect::<Result<Vec<_>, _>>().map(Json::Array);
    }
    if let Some(m) = v.clone().try_cast::<Map>() {
        let mut out = serde_json::Map::new();
        for (k, x) in &m {
            out.insert(k.to_string(), to_json(x, depth + 1)?);
        }
        return Ok(Json::Object(out));
    }
    Err(BotError::Invalid(format!("a {} in the answer", v.type_name())))
}

impl Bot<HexGame> for RhaiBot {
    fn turn(&mut self, ctx: &HexContext<'_>) -> Result<HexAnswer, BotError> {
        self.humans.sync(ctx.humans.as_slice());
        self.zombies.sync(ctx.zombies.as_slice());
        self.walls.sync(ctx.walls.as_slice());
        self.crates.sync(ctx.crates.as_slice());
        self.airstrikes.sync(ctx.airstrikes.as_slice());
        let kind = match ctx.call {
            abi::CALL_SPAWN_HUMANS => 0,
            abi::CALL_SPAWN_ZOMBIES => 1,
            _ => 2,
        };
        let unit = (ctx.unit != abi::NO_UNIT).then_some(ctx.unit);
        let me = match unit {
            Some(id) if ctx.call == abi::CALL_UNIT && ctx.side == abi::HUMANS => self.humans.map_of(id),
            Some(id) if ctx.call == abi::CALL_UNIT => self.zombies.map_of(id),
            _ => Dynamic::UNIT,
        };
        let mut m = Map::new();
        m.insert("kind".into(), self.names[kind].clone());
        m.insert("side".into(), self.names[if ctx.side == abi::HUMANS { 3 } else { 4 }].clone());
        m.insert("t".into(), Dynamic::from(i64::from(ctx.t)));
        m.insert("unit".into(), unit.map_or(Dynamic::UNIT, |u| Dynamic::from(i64::from(u))));
        m.insert("me".into(), me);
        m.insert("humans_to_spawn".into(), Dynamic::from(i64::from(ctx.humans_to_spawn)));
        m.insert("zombies_to_spawn".into(), Dynamic::from(i64::from(ctx.zombies_to_spawn)));
        m.insert("zombie_cap".into(), Dynamic::from(i64::from(ctx.zombie_cap)));
        m.insert("airdrops_held".into(), Dynamic::from(ctx.airdrops_held));
        m.insert("zombies_ready".into(), Dynamic::from(ctx.zombies_ready));
        m.insert("humans".into(), self.humans.array.clone());
        m.insert("zombies".into(), self.zombies.array.clone());
        m.insert("walls".into(), self.walls.array.clone());
        m.insert("crates".into(), self.crates.array.clone());
        m.insert("airstrikes".into(), self.airstrikes.array.clone());
        m.insert("game".into(), self.game.clone());
        let arg = Dynamic::from_map(m);
        let result = self.vm.call(ctx, ctx.random, arg)?;
        answer_from_json(&to_json(&result, 0)?)
    }
}
