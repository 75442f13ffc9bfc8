//! The eggs game's Rhai bindings. `do_turn(ctx)` gets a map: `ctx.view` (five strings,
//! north to south, each five characters west to east, the player at `view[2][2]`),
//! `ctx.memory` (the string of its previous answer), `ctx.turn`, `ctx.max_turns` and
//! `ctx.player`. It answers a map `#{dir: 1..9, action: "A" | "C" | "N", memory: ".."}`
//! (a missing action is `N`, a missing memory is empty, as in the seed's protocol) or
//! just a direction number. The sandbox and limits are `loaders::scripts::rhai`'s.

use std::sync::Arc;

use rhai::{Array, Dynamic, ImmutableString, Map};
use zombies_plugin_abi::eggs::{EggsAnswer, EggsContext};

use super::{Eggs, action_code, answer};
use crate::bot::{Bot, BotError, BotFactory};
use crate::loaders::scripts::Script;
use crate::loaders::scripts::rhai::RhaiVm;

/// Checks the script now (syntax, top-level code, `do_turn`) and makes its bots.
pub(super) fn bots(script: Script) -> Result<Arc<dyn BotFactory<Eggs>>, String> {
    RhaiVm::<EggsContext<'static>>::new(&script, |_, _| {})?;
    let factory = move || {
        RhaiVm::new(&script, |_, _| {}).map(|vm| Box::new(RhaiBot(vm)) as Box<dyn Bot<Eggs>>).map_err(BotError::Failed)
    };
    Ok(Arc::new(factory))
}

struct RhaiBot(RhaiVm<EggsContext<'static>>);

impl Bot<Eggs> for RhaiBot {
    fn turn(&mut self, ctx: &EggsContext<'_>) -> Result<EggsAnswer, BotError> {
        let view: Array = (0..5).map(|r| Dynamic::from(ImmutableString::from(ctx.row(r)))).collect();
        let mut map = Map::new();
        map.insert("view".into(), Dynamic::from_array(view));
        map.insert("memory".into(), Dynamic::from(String::from_utf8_lossy(ctx.memory.as_slice()).into_owned()));
        map.insert("turn".into(), Dynamic::from(i64::from(ctx.turn)));
        map.insert("max_turns".into(), Dynamic::from(i64::from(ctx.max_turns)));
        map.insert("player".into(), Dynamic::from(i64::from(ctx.player)));
        let result = self.0.call(ctx, ctx.random, Dynamic::from_map(map))?;
        read_answer(result)
    }
}

fn read_answer(value: Dynamic) -> Result<EggsAnswer, BotError> {
    let direction = |d: &Dynamic| -> Result<u32, BotError> {
        d.as_int()
            .ok()
            .and_then(|n| u32::try_from(n).ok())
            .or_else(|| d.clone().try_cast::<ImmutableString>().and_then(|s| s.trim().parse().ok()))
            .ok_or_else(|| BotError::Invalid(format!("dir is a {}, not a number 1..9", d.type_name())))
    };
    if let Some(map) = value.clone().try_cast::<Map>() {
        let dir = map.get("dir").ok_or_else(|| BotError::Invalid("the answer has no dir".into()))?;
        let action = match map.get("action") {
            None => action_code("")?,
            Some(a) => {
                action_code(&a.clone().try_cast::<ImmutableString>().map_or_else(|| a.to_string(), |s| s.to_string()))?
            }
        };
        let memory = map.get("memory").map(|m| m.to_string()).unwrap_or_default();
        return Ok(answer(direction(dir)?, action, memory.as_bytes()));
    }
    if value.is_int() {
        return Ok(answer(direction(&value)?, action_code("")?, b""));
    }
    Err(BotError::Invalid(format!(
        "do_turn returned {}, not #{{dir, action, memory}} or a direction",
        value.type_name()
    )))
}
