//! The target game's Rhai bindings. `do_turn(ctx)` gets a map: `ctx.me` (its position,
//! `64 * y + x`), `ctx.new_wall` (the wall added since its previous turn, or 4096),
//! `ctx.others` (an array of the other players' positions, in the turn order starting
//! after it), `ctx.copy` (which of its entry's copies it is), `ctx.copies` and
//! `ctx.round`. It answers a move, an integer `0..4` (0 north, 1 west, 2 stay, 3 east,
//! 4 south). One VM per entry and game: its globals are shared by all the entry's copies.
//! The sandbox and limits are `loaders::scripts::rhai`'s.

use std::sync::Arc;

use rhai::{Array, Dynamic, ImmutableString, Map};
use zombies_plugin_abi::target::TargetContext;

use super::{InvisibleTarget, parse_move};
use crate::bot::{Bot, BotError, BotFactory};
use crate::loaders::scripts::Script;
use crate::loaders::scripts::rhai::RhaiVm;

/// Checks the script now (syntax, top-level code, `do_turn`) and makes its bots.
pub(super) fn bots(script: Script) -> Result<Arc<dyn BotFactory<InvisibleTarget>>, String> {
    RhaiVm::<TargetContext<'static>>::new(&script, |_, _| {})?;
    let factory = move || {
        RhaiVm::new(&script, |_, _| {})
            .map(|vm| Box::new(RhaiBot(vm)) as Box<dyn Bot<InvisibleTarget>>)
            .map_err(BotError::Failed)
    };
    Ok(Arc::new(factory))
}

struct RhaiBot(RhaiVm<TargetContext<'static>>);

impl Bot<InvisibleTarget> for RhaiBot {
    fn turn(&mut self, ctx: &TargetContext<'_>) -> Result<u32, BotError> {
        let others: Array = ctx.others.iter().map(|&p| Dynamic::from(i64::from(p))).collect();
        let mut map = Map::new();
        map.insert("me".into(), Dynamic::from(i64::from(ctx.me)));
        map.insert("new_wall".into(), Dynamic::from(i64::from(ctx.new_wall)));
        map.insert("others".into(), Dynamic::from_array(others));
        map.insert("copy".into(), Dynamic::from(i64::from(ctx.copy)));
        map.insert("copies".into(), Dynamic::from(i64::from(ctx.copies)));
        map.insert("round".into(), Dynamic::from(i64::from(ctx.round)));
        let result = self.0.call(ctx, ctx.random, Dynamic::from_map(map))?;
        read_answer(&result)
    }
}

fn read_answer(value: &Dynamic) -> Result<u32, BotError> {
    if let Ok(n) = value.as_int() {
        return u32::try_from(n).map_err(|_| BotError::Invalid(format!("move {n} is not 0..4")));
    }
    if let Some(s) = value.clone().try_cast::<ImmutableString>() {
        return parse_move(&s);
    }
    Err(BotError::Invalid(format!("do_turn returned {}, not a move 0..4", value.type_name())))
}
