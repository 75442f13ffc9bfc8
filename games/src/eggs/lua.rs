//! The eggs game's Lua bindings. `do_turn(ctx)` gets a table: `ctx.view` (five
//! strings, north to south, each five characters west to east, the player at row 3,
//! column 3), `ctx.memory` (the string of its previous answer), `ctx.turn`,
//! `ctx.max_turns` and `ctx.player`. It answers a table
//! `{dir = 1..9, action = "A" | "C" | "N", memory = ".."}` (a missing action is `N`, a
//! missing memory is empty, as in the seed's protocol) or just a direction number. The
//! sandbox, budgets and limits are `loaders::scripts::lua`'s.

use std::sync::Arc;

use mlua::{Table, Value};
use zombies_plugin_abi::eggs::{EggsAnswer, EggsContext};

use super::{Eggs, action_code, answer};
use crate::bot::{Bot, BotError, BotFactory};
use crate::loaders::scripts::lua::LuaVm;
use crate::loaders::scripts::{Script, with_article};

/// Checks the script now (syntax, top-level code, `do_turn`) and makes its bots.
pub(super) fn bots(script: Script) -> Result<Arc<dyn BotFactory<Eggs>>, String> {
    LuaBot::new(&script)?;
    let factory = move || LuaBot::new(&script).map(|b| Box::new(b) as Box<dyn Bot<Eggs>>).map_err(BotError::Failed);
    Ok(Arc::new(factory))
}

struct LuaBot {
    vm: LuaVm<EggsContext<'static>>,
    /// `ctx` and its `view`: one table each per VM, refreshed every call.
    ctx: Table,
    view: Table,
}

impl LuaBot {
    fn new(script: &Script) -> Result<LuaBot, String> {
        let vm = LuaVm::new(script, |_, _| Ok(()))?;
        let make = || -> mlua::Result<(Table, Table)> {
            let ctx = vm.lua.create_table()?;
            let view = vm.lua.create_table()?;
            ctx.raw_set("view", &view)?;
            Ok((ctx, view))
        };
        let (ctx, view) = make().map_err(|e| format!("{}: cannot set up Lua: {e}", script.file_name()))?;
        Ok(LuaBot { vm, ctx, view })
    }
}

impl Bot<Eggs> for LuaBot {
    fn turn(&mut self, ctx: &EggsContext<'_>) -> Result<EggsAnswer, BotError> {
        let value = self.vm.call(ctx, ctx.random, || {
            for (r, row) in ctx.view.iter().enumerate() {
                self.view.raw_set(r + 1, self.vm.lua.create_string(row)?)?;
            }
            self.ctx.raw_set("memory", self.vm.lua.create_string(ctx.memory.as_slice())?)?;
            self.ctx.raw_set("turn", ctx.turn)?;
            self.ctx.raw_set("max_turns", ctx.max_turns)?;
            self.ctx.raw_set("player", ctx.player)?;
            self.vm.do_turn.call::<Value>(&self.ctx)
        })?;
        read_answer(&value)
    }
}

fn read_answer(value: &Value) -> Result<EggsAnswer, BotError> {
    let direction = |v: &Value| -> Result<u32, BotError> {
        match v {
            Value::Integer(n) => u32::try_from(*n).ok(),
            Value::Number(f) if f.fract() == 0.0 && *f >= 0.0 => Some(*f as u32),
            Value::String(s) => s.to_str().ok().and_then(|s| s.trim().parse().ok()),
            _ => None,
        }
        .ok_or_else(|| BotError::Invalid(format!("dir is a {}, not a number 1..9", v.type_name())))
    };
    match value {
        Value::Table(t) => {
            let dir: Value = t.raw_get("dir").map_err(|e| BotError::Invalid(e.to_string()))?;
            if dir.is_nil() {
                return Err(BotError::Invalid("the answer has no dir".into()));
            }
            let action = match t.raw_get::<Value>("action").map_err(|e| BotError::Invalid(e.to_string()))? {
                Value::Nil => action_code("")?,
                Value::String(s) => action_code(&s.to_string_lossy())?,
                other => return Err(BotError::Invalid(format!("action is a {}, not A, C or N", other.type_name()))),
            };
            let memory = match t.raw_get::<Value>("memory").map_err(|e| BotError::Invalid(e.to_string()))? {
                Value::Nil => Vec::new(),
                Value::String(s) => s.as_bytes().to_vec(),
                other => return Err(BotError::Invalid(format!("memory is a {}, not a string", other.type_name()))),
            };
            Ok(answer(direction(&dir)?, action, &memory))
        }
        Value::Integer(_) | Value::Number(_) => Ok(answer(direction(value)?, action_code("")?, b"")),
        other => Err(BotError::Invalid(format!(
            "do_turn returned {}, not {{dir = .., action = .., memory = ..}} or a direction",
            with_article(other.type_name())
        ))),
    }
}
