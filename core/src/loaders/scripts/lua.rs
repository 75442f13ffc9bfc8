//! The Lua 5.4 VM every game's Lua bots run in: one VM per entry per game, sandboxed
//! and limited. A game's bindings (`games/<game>/lua.rs`) add what `ctx` offers and
//! read the answers; this module owns the sandbox, the budgets and the call.
//!
//! The script defines a global `do_turn(ctx)`; its globals persist for the game and are
//! shared by all of the entry's players. Only the table, string and math libraries are
//! opened, and `load`, `loadfile`, `dofile`, `require`, `collectgarbage` and
//! `string.dump` are removed; `print` goes to the entry's log, and `debug(...)` (like
//! `print`) to what the call says in its replay (`crate::debug`); `random(n)` and
//! `math.random` draw from the game's generator. Each call has an instruction budget
//! enforced by a count hook that `pcall`/`xpcall` cannot swallow, plus an own-time
//! deadline; the VM has a memory cap (mlua's allocator limit).

use std::cell::Cell;
use std::rc::Rc;

use mlua::chunk::ChunkMode;
use mlua::{Function, HookTriggers, Lua, LuaOptions, MultiValue, StdLib, Table, Value, VmState};
use zombies_plugin_abi::Random;

use super::{Script, Slot, first_line};
use crate::bot::BotError;

/// Instructions between two runs of the count hook.
const HOOK_STEP: u32 = 1000;

/// Why the hook stopped a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    Budget,
    Timeout,
}

/// The call's budget, shared by the hook and the `pcall` guards.
#[derive(Debug)]
struct Budget {
    used: Cell<u64>,
    limit: u64,
    stopped: Cell<Option<Stop>>,
}

/// A script's VM: the sandboxed state, its `do_turn`, and the slot its host functions
/// read the call's context from.
#[allow(missing_debug_implementations)]
pub struct LuaVm<T: 'static> {
    /// The state.
    pub lua: Lua,
    /// The script's `do_turn`.
    pub do_turn: Function,
    /// The slot of this VM.
    pub slot: Rc<Slot<T>>,
    budget: Rc<Budget>,
    /// The script.
    pub script: Script,
}

impl<T: 'static> LuaVm<T> {
    /// A sandboxed VM with the game's `api` installed (globals, before the script
    /// runs), the script's top-level code run under the call limits, and `do_turn`
    /// found. Errors are one line naming the file.
    pub fn new(script: &Script, api: impl FnOnce(&Lua, &Rc<Slot<T>>) -> mlua::Result<()>) -> Result<Self, String> {
        let file = script.file_name();
        let slot = Rc::new(Slot::new());
        slot.log.replace(Some(std::sync::Arc::clone(&script.log)));
        let budget = Rc::new(Budget { used: Cell::new(0), limit: script.limits.op_budget, stopped: Cell::new(None) });
        let lua = sandbox(script, &slot, &budget).map_err(|e| format!("{file}: cannot set up Lua: {e}"))?;
        api(&lua, &slot).map_err(|e| format!("{file}: cannot set up Lua: {e}"))?;
        budget.used.set(0);
        slot.start_clock(script.limits.call_timeout);
        if let Err(e) = run_script(&lua, script, &file) {
            return Err(match &e {
                // "f.lua:5: syntax error: ...", the form Rhai's errors take too.
                mlua::Error::SyntaxError { message, .. } => {
                    let message = first_line(message);
                    match message.strip_prefix(&format!("{file}:")).and_then(|rest| rest.split_once(':')) {
                        Some((line, what)) => format!("{file}:{line}: syntax error:{what}"),
                        None => format!("{file}: syntax error: {message}"),
                    }
                }
                _ => format!(
                    "at load: {}",
                    classify(&e, &budget).map_or_else(|| first_line(&e.to_string()), |b| b.to_string())
                ),
            });
        }
        let do_turn = match lua.globals().get::<Value>("do_turn") {
            Ok(Value::Function(f)) => f,
            _ => return Err(format!("{file}: defines no global function do_turn(ctx)")),
        };
        Ok(LuaVm { lua, do_turn, slot, budget, script: script.clone() })
    }

    /// One call: the budget and the deadline start afresh, the slot holds `ctx` and
    /// `random` while `f` runs, and a failure becomes the [`BotError`] it is (budget,
    /// time, memory, output flood, or the script's error in one line).
    pub fn call<C, R>(&self, ctx: &C, random: Random<'_>, f: impl FnOnce() -> mlua::Result<R>) -> Result<R, BotError> {
        self.budget.used.set(0);
        self.budget.stopped.set(None);
        let result = self.slot.with_call(ctx, random, self.script.limits.call_timeout, f);
        if let Some(err) = self.slot.output_error() {
            return Err(err);
        }
        result.map_err(|e| classify(&e, &self.budget).unwrap_or_else(|| BotError::Failed(first_line(&e.to_string()))))
    }
}

impl<T: 'static> Drop for LuaVm<T> {
    fn drop(&mut self) {
        self.script.log.append_game(&self.slot.output());
    }
}

/// Runs the script's top-level code in `lua`, compiled once for every VM of the script
/// ([`compiled`]; parsing the text again was about 4% of a Lua tournament of small bots).
fn run_script(lua: &Lua, script: &Script, file: &str) -> mlua::Result<()> {
    compiled(lua, &script.lua_chunk, &script.source, &format!("={file}"))?.call(())
}

/// `text` (named `name`) as a function of `lua`: loaded from `cache`, the bytecode Lua
/// made of it the first time, else compiled and kept there. The text is loaded as text
/// only: bytecode read from a file is never run (Lua does not check it, and made-up
/// bytecode can corrupt the VM's memory).
fn compiled(lua: &Lua, cache: &std::sync::OnceLock<Vec<u8>>, text: &str, name: &str) -> mlua::Result<Function> {
    if let Some(bytes) = cache.get() {
        return lua.load(bytes.as_slice()).set_mode(ChunkMode::Binary).into_function();
    }
    let function = lua.load(text).set_name(name).set_mode(ChunkMode::Text).into_function()?;
    let _ = cache.set(function.dump(false));
    Ok(function)
}

/// A budget or time overrun, if the hook stopped the call.
fn classify(err: &mlua::Error, budget: &Budget) -> Option<BotError> {
    match budget.stopped.get() {
        Some(Stop::Budget) => Some(BotError::Budget),
        Some(Stop::Timeout) => Some(BotError::Timeout),
        None if is_memory_error(err) => Some(BotError::Memory),
        None => None,
    }
}

fn is_memory_error(err: &mlua::Error) -> bool {
    match err {
        mlua::Error::MemoryError(_) => true,
        mlua::Error::CallbackError { cause, .. } => is_memory_error(cause),
        _ => false,
    }
}

/// The slot of the VM running a host function.
pub fn slot_of<T: 'static>(lua: &Lua) -> mlua::Result<Rc<Slot<T>>> {
    lua.app_data_ref::<Rc<Slot<T>>>().map(|s| Rc::clone(&s)).ok_or_else(|| mlua::Error::runtime("no bot slot"))
}

/// Lua code run before the script: closes what the count hook cannot watch.
const PRELUDE: &str = r#"
local raw_setmetatable, rawget, type, error = setmetatable, rawget, type, error
-- Finalizers and to-be-closed handlers run with hooks off: no budget could stop them.
setmetatable = function(t, mt)
  if type(mt) == "table" and (rawget(mt, "__gc") ~= nil or rawget(mt, "__close") ~= nil) then
    error("__gc and __close metamethods are not allowed in bots", 2)
  end
  return raw_setmetatable(t, mt)
end
"#;

/// A Lua state with only the safe libraries and the API every game shares.
fn sandbox<T: 'static>(script: &Script, slot: &Rc<Slot<T>>, budget: &Rc<Budget>) -> mlua::Result<Lua> {
    let lua = Lua::new_with(StdLib::TABLE | StdLib::STRING | StdLib::MATH, LuaOptions::new())?;
    lua.set_app_data(Rc::clone(slot));
    let g = lua.globals();
    for name in ["load", "loadfile", "dofile", "require", "collectgarbage"] {
        g.raw_set(name, Value::Nil)?;
    }
    let string: Table = g.get("string")?;
    string.raw_set("dump", Value::Nil)?;

    g.raw_set(
        "print",
        lua.create_function(|lua, args: MultiValue| {
            let parts: Vec<String> =
                args.iter().map(|v| v.to_string().unwrap_or_else(|_| v.type_name().to_owned())).collect();
            slot_of::<T>(lua)?.print(&parts.join("\t"));
            Ok(())
        })?,
    )?;
    g.raw_set(
        "debug",
        lua.create_function(|lua, args: MultiValue| {
            let parts: Vec<String> =
                args.iter().map(|v| v.to_string().unwrap_or_else(|_| v.type_name().to_owned())).collect();
            slot_of::<T>(lua)?.debug(&parts.join("\t"));
            Ok(())
        })?,
    )?;
    let s = Rc::clone(slot);
    g.raw_set("random", lua.create_function(move |_, n: i64| s.random(n).map_err(mlua::Error::runtime))?)?;
    let math: Table = g.get("math")?;
    let math_slot = Rc::clone(slot);
    math.raw_set(
        "random",
        lua.create_function(move |_, (m, n): (Option<i64>, Option<i64>)| -> mlua::Result<Value> {
            let random = math_slot.random_source().map_err(mlua::Error::runtime)?;
            let (lo, hi) = match (m, n) {
                (None, _) => return Ok(Value::Number((random.next_u64() >> 11) as f64 / (1u64 << 53) as f64)),
                (Some(m), None) => (1, m),
                (Some(m), Some(n)) => (m, n),
            };
            let span = hi - lo + 1;
            if hi < lo || span > i64::from(u32::MAX) {
                return Err(mlua::Error::runtime(format!("math.random: bad interval [{lo}, {hi}]")));
            }
            Ok(Value::Integer(lo + i64::from(random.below(span as u32))))
        })?,
    )?;
    math.raw_set("randomseed", lua.create_function(|_, _: MultiValue| Ok(()))?)?;

    // pcall / xpcall must not swallow the budget: once the hook has stopped a call,
    // they re-raise.
    for name in ["pcall", "xpcall"] {
        let raw: Function = g.get(name)?;
        let b = Rc::clone(budget);
        let guarded = lua.create_function(move |_, args: MultiValue| {
            let out = raw.call::<MultiValue>(args)?;
            match b.stopped.get() {
                Some(Stop::Budget) => Err(mlua::Error::runtime("over the instruction budget")),
                Some(Stop::Timeout) => Err(mlua::Error::runtime("over the time limit")),
                None => Ok(out),
            }
        })?;
        g.raw_set(name, guarded)?;
    }
    // Compiled once per process, like the scripts.
    static PRELUDE_CHUNK: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    compiled(&lua, &PRELUDE_CHUNK, PRELUDE, "=prelude")?.call::<()>(())?;

    // Global: every thread of the state runs it, those a game's bindings make to call
    // `do_turn` on too (mlua's per-thread hook would drop itself on a thread it did not
    // make).
    let (b, s) = (Rc::clone(budget), Rc::clone(slot));
    lua.set_global_hook(HookTriggers::new().every_nth_instruction(HOOK_STEP), move |_, _| {
        let used = b.used.get() + u64::from(HOOK_STEP);
        b.used.set(used);
        if used > b.limit {
            b.stopped.set(Some(Stop::Budget));
            return Err(mlua::Error::runtime("over the instruction budget"));
        }
        if s.timed_out() {
            b.stopped.set(Some(Stop::Timeout));
            return Err(mlua::Error::runtime("over the time limit"));
        }
        Ok(VmState::Continue)
    })?;
    lua.set_memory_limit(script.limits.memory)?;
    Ok(lua)
}
