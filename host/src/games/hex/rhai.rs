//! The hex game's Rhai bindings. `do_turn(ctx)` gets a map shaped like the program
//! protocol's JSON (`program::context_json`): `ctx.kind` ("spawn_humans", "spawn_zombies",
//! "unit"), `ctx.side` ("humans", "zombies"), `ctx.t`, `ctx.unit`, `ctx.me`, the counters,
//! and the arrays `ctx.humans`, `ctx.zombies`, `ctx.walls`, `ctx.crates`, `ctx.airstrikes`
//! of maps with `id`, `x`, `y`, .... It answers an array of command maps,
//! `[#{cmd: "move", x: 1, y: 0}, #{cmd: "attack", id: 131}]` (`()`: nothing). The sandbox
//! and limits are `loaders::scripts::rhai`'s.

use std::sync::Arc;

use rhai::{Array, Dynamic, ImmutableString, Map};
use serde_json::{Number, Value as Json};
use zombies_plugin_abi::hex::{HexAnswer, HexContext};

use super::HexGame;
use super::program::{answer_from_json, context_json};
use crate::bot::{Bot, BotError, BotFactory};
use crate::loaders::scripts::Script;
use crate::loaders::scripts::rhai::RhaiVm;

/// Checks the script now (syntax, top-level code, `do_turn`) and makes its bots.
pub(super) fn bots(script: Script) -> Result<Arc<dyn BotFactory<HexGame>>, String> {
    RhaiVm::<HexContext<'static>>::new(&script, |_, _| {})?;
    let factory = move || {
        RhaiVm::new(&script, |_, _| {})
            .map(|vm| Box::new(RhaiBot(vm)) as Box<dyn Bot<HexGame>>)
            .map_err(BotError::Failed)
    };
    Ok(Arc::new(factory))
}

struct RhaiBot(RhaiVm<HexContext<'static>>);

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
        let arg = to_dynamic(&context_json(ctx));
        let result = self.0.call(ctx, ctx.random, arg)?;
        answer_from_json(&to_json(&result, 0)?)
    }
}
