//! The target game's Lua bindings. `do_turn(ctx)` gets a table: `ctx.me` (its position,
//! `64 * y + x`), `ctx.new_wall` (the wall added since its previous turn, or 4096),
//! `ctx.others` (a sequence of the other players' positions, in the turn order starting
//! after it), `ctx.copy` (which of its entry's copies it is, from 0), `ctx.copies` and
//! `ctx.round`. It answers a move, an integer `0..4` (0 north, 1 west, 2 stay, 3 east,
//! 4 south). One VM per entry and game: its globals are shared by all the entry's copies.
//! The sandbox, budgets and limits are `loaders::scripts::lua`'s.

use std::sync::Arc;

use mlua::{Table, Value};
use zombies_plugin_abi::target::TargetContext;

use super::{InvisibleTarget, parse_move};
use crate::bot::{Bot, BotError, BotFactory};
use crate::loaders::scripts::Script;
use crate::loaders::scripts::lua::LuaVm;

/// Checks the script now (syntax, top-level code, `do_turn`) and makes its bots.
pub(super) fn bots(script: Script) -> Result<Arc<dyn BotFactory<InvisibleTarget>>, String> {
    LuaBot::new(&script)?;
    let factory =
        move || LuaBot::new(&script).map(|b| Box::new(b) as Box<dyn Bot<InvisibleTarget>>).map_err(BotError::Failed);
    Ok(Arc::new(factory))
}

struct LuaBot {
    vm: LuaVm<TargetContext<'static>>,
    /// `ctx`: one table per VM, refreshed every call (a fresh `others` each call, so a
    /// script may keep the one it got).
    ctx: Table,
}

impl LuaBot {
    fn new(script: &Script) -> Result<LuaBot, String> {
        let vm = LuaVm::new(script, |_, _| Ok(()))?;
        let ctx = vm.lua.create_table().map_err(|e| format!("{}: cannot set up Lua: {e}", script.file_name()))?;
        Ok(LuaBot { vm, ctx })
    }
}

impl Bot<InvisibleTarget> for LuaBot {
    fn turn(&mut self, ctx: &TargetContext<'_>) -> Result<u32, BotError> {
        let value = self.vm.call(ctx, ctx.random, || {
            let others = self.vm.lua.create_sequence_from(ctx.others.iter().copied())?;
            self.ctx.raw_set("me", ctx.me)?;
            self.ctx.raw_set("new_wall", ctx.new_wall)?;
            self.ctx.raw_set("others", others)?;
            self.ctx.raw_set("copy", ctx.copy)?;
            self.ctx.raw_set("copies", ctx.copies)?;
            self.ctx.raw_set("round", ctx.round)?;
            self.vm.do_turn.call::<Value>(&self.ctx)
        })?;
        read_answer(&value)
    }
}

fn read_answer(value: &Value) -> Result<u32, BotError> {
    match value {
        Value::Integer(n) => u32::try_from(*n).map_err(|_| BotError::Invalid(format!("move {n} is not 0..4"))),
        Value::Number(f) if f.fract() == 0.0 && *f >= 0.0 && *f <= f64::from(u32::MAX) => Ok(*f as u32),
        Value::String(s) => parse_move(&s.to_string_lossy()),
        other => Err(BotError::Invalid(format!("do_turn returned a {}, not a move 0..4", other.type_name()))),
    }
}
