//! Rhai bots: one `Engine` per entry per game, sandboxed and limited.
//!
//! The script defines `fn do_turn(ctx)`; inside it `this` is the entry's persistent
//! object map. No file or module access exists in Rhai's standard packages, `import`
//! is compiled out and `eval` is disabled. Each call has an operation budget, a
//! wall-clock deadline checked from `on_progress`, and the entry a memory cap measured
//! by the host's allocation meter.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;

use rhai::{AST, Array, CallFnOptions, Dynamic, Engine, EvalAltResult, ImmutableString, Map, Scope};
use zombies_plugin_abi::{Action, Context, Id, VISION_RANGE};

use super::{Script, Slot, first_line, parse_move};
use crate::alloc_meter;
use crate::bot::{Bot, BotError, Entry, EntryKind};

/// `ctx` inside a Rhai script: reads go to the call in progress.
#[derive(Debug, Clone, Copy)]
struct RhaiCtx;

/// An id inside a Rhai script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ScriptId(Id);

/// What `shoot(id)` returns.
#[derive(Debug, Clone, Copy)]
struct Shot(Id);

/// Checks the script now (syntax, top-level code, `do_turn`) and makes its entry.
pub(super) fn entry(script: Script) -> Result<Entry, String> {
    RhaiBot::new(&script)?;
    let (name, path) = (script.name.clone(), script.path.clone());
    let factory = move || RhaiBot::new(&script).map(|b| Box::new(b) as Box<dyn Bot>).map_err(BotError::Failed);
    Ok(Entry::new(name, EntryKind::Rhai, path, Arc::new(factory)))
}

/// Markers `on_progress` terminates a call with.
const TIMEOUT: &str = "timeout";
const MEMORY: &str = "memory";

struct RhaiBot {
    engine: Engine,
    ast: AST,
    scope: Scope<'static>,
    /// The entry's `this`.
    state: Dynamic,
    slot: Rc<Slot>,
    /// `alloc_meter::thread_net()` minus the bytes this VM holds, during a call.
    mem_base: Rc<Cell<isize>>,
    /// Bytes this VM held after its last call (as the meter saw them).
    retained: isize,
    script: Script,
}

impl RhaiBot {
    fn new(script: &Script) -> Result<RhaiBot, String> {
        let slot = Rc::new(Slot::new());
        let mem_base = Rc::new(Cell::new(alloc_meter::thread_net()));
        let engine = engine(script, &slot, &mem_base);
        let file = script.file_name();
        let ast = engine.compile(&*script.source).map_err(|e| {
            let line = e.1.line().map_or(String::new(), |l| format!("{l}:"));
            format!("{file}:{line} syntax error: {}", e.0)
        })?;
        if !ast.iter_functions().any(|f| f.name == "do_turn" && f.params.len() == 1) {
            return Err(format!("{file}: defines no `fn do_turn(ctx)`"));
        }
        let mut scope = Scope::new();
        // Top-level statements run once per game, under the same limits as a call.
        slot.start_clock(script.limits.call_timeout);
        engine.run_ast_with_scope(&mut scope, &ast).map_err(|e| format!("{file}: at load: {}", describe(&e)))?;
        Ok(RhaiBot {
            engine,
            ast,
            scope,
            state: Dynamic::from_map(Map::new()),
            slot,
            mem_base,
            retained: 0,
            script: script.clone(),
        })
    }

    fn error(&self, err: &EvalAltResult) -> BotError {
        match err {
            EvalAltResult::ErrorTooManyOperations(_) => BotError::Budget,
            EvalAltResult::ErrorDataTooLarge(..) => BotError::Memory,
            EvalAltResult::ErrorTerminated(token, _) if token.clone().into_string().is_ok_and(|t| t == TIMEOUT) => {
                BotError::Timeout
            }
            EvalAltResult::ErrorTerminated(..) => BotError::Memory,
            other => BotError::Failed(format!("{}: {}", self.script.file_name(), describe(other))),
        }
    }
}

fn describe(err: &EvalAltResult) -> String {
    first_line(&err.to_string())
}

impl Bot for RhaiBot {
    fn turn(&mut self, ctx: &Context<'_>) -> Result<Action, BotError> {
        self.mem_base.set(alloc_meter::thread_net() - self.retained);
        let slot = Rc::clone(&self.slot);
        let result = slot.with_call(ctx, self.script.limits.call_timeout, || {
            let options = CallFnOptions::new().eval_ast(false).rewind_scope(true).bind_this_ptr(&mut self.state);
            self.engine.call_fn_with_options::<Dynamic>(options, &mut self.scope, &self.ast, "do_turn", (RhaiCtx,))
        });
        self.retained = (alloc_meter::thread_net() - self.mem_base.get()).max(0);
        if let Some(err) = self.slot.output_error() {
            return Err(err);
        }
        let answer = result.map_err(|e| self.error(&e))?;
        if let Some(text) = answer.clone().try_cast::<ImmutableString>() {
            parse_move(&text)
        } else if let Some(Shot(id)) = answer.clone().try_cast::<Shot>() {
            Ok(Action::shoot(id))
        } else {
            Err(BotError::Invalid(format!("do_turn returned {}, not a move or shoot(id)", answer.type_name())))
        }
    }
}

impl Drop for RhaiBot {
    fn drop(&mut self) {
        self.script.log.append(&self.slot.output.borrow());
    }
}

type Fallible<T> = Result<T, Box<EvalAltResult>>;

fn fail<T>(msg: impl Into<String>) -> Fallible<T> {
    Err(msg.into().into())
}

/// A sandboxed engine with the bot API registered.
fn engine(script: &Script, slot: &Rc<Slot>, mem_base: &Rc<Cell<isize>>) -> Engine {
    let limits = &script.limits;
    let mut engine = Engine::new();
    engine
        .set_max_operations(limits.op_budget)
        .set_max_call_levels(64)
        .set_max_expr_depths(64, 64)
        .set_max_string_size(1 << 20)
        .set_max_array_size(1 << 20)
        .set_max_map_size(1 << 20)
        .set_max_variables(1024)
        .set_max_functions(1024);
    engine.disable_symbol("eval");
    let s = Rc::clone(slot);
    engine.on_print(move |text| s.print(text));
    let s = Rc::clone(slot);
    engine.on_debug(move |text, _, pos| s.print(&format!("[debug {pos}] {text}")));
    let (s, base, cap) = (Rc::clone(slot), Rc::clone(mem_base), limits.memory as isize);
    engine.on_progress(move |ops| {
        if ops % 512 != 0 {
            None
        } else if s.timed_out() {
            Some(TIMEOUT.into())
        } else if alloc_meter::thread_net() - base.get() > cap {
            Some(MEMORY.into())
        } else {
            None
        }
    });

    engine.register_type_with_name::<RhaiCtx>("Context");
    engine.register_type_with_name::<ScriptId>("Id");
    engine.register_type_with_name::<Shot>("Shot");

    macro_rules! ctx_field {
        ($name:literal, $get:expr) => {{
            let s = Rc::clone(slot);
            engine.register_get($name, move |_: &mut RhaiCtx| -> Fallible<Dynamic> {
                let ctx = s.ctx()?;
                Ok($get(ctx))
            });
        }};
    }
    ctx_field!("id", |c: &Context<'_>| Dynamic::from(ScriptId(c.id)));
    ctx_field!("bullets", |c: &Context<'_>| Dynamic::from(i64::from(c.bullets)));
    ctx_field!("clock", |c: &Context<'_>| Dynamic::from(i64::from(c.clock)));
    ctx_field!("x", |c: &Context<'_>| Dynamic::from(i64::from(c.x)));
    ctx_field!("y", |c: &Context<'_>| Dynamic::from(i64::from(c.y)));
    ctx_field!("board_size", |c: &Context<'_>| Dynamic::from(i64::from(c.board_size)));

    let s = Rc::clone(slot);
    engine.register_fn("look", move |_: &mut RhaiCtx, dx: i64, dy: i64| -> Fallible<Dynamic> {
        let ctx = s.ctx()?;
        let r = i64::from(VISION_RANGE);
        if !(-r..=r).contains(&dx) || !(-r..=r).contains(&dy) {
            return fail(format!("look({dx}, {dy}): offsets go from -8 to 8"));
        }
        Ok(ctx.look(dx as i32, dy as i32).map_or(Dynamic::UNIT, |id| Dynamic::from(ScriptId(id))))
    });
    let s = Rc::clone(slot);
    engine.register_fn("shootable", move |_: &mut RhaiCtx| -> Fallible<Array> {
        Ok(s.ctx()?.shootable().map(|(_, _, id)| Dynamic::from(ScriptId(id))).collect())
    });
    let s = Rc::clone(slot);
    engine.register_fn("visible", move |_: &mut RhaiCtx| -> Fallible<Array> {
        let seen = |(dx, dy, id): (i32, i32, Id)| {
            let mut map = Map::new();
            map.insert("dx".into(), Dynamic::from(i64::from(dx)));
            map.insert("dy".into(), Dynamic::from(i64::from(dy)));
            map.insert("id".into(), Dynamic::from(ScriptId(id)));
            Dynamic::from_map(map)
        };
        Ok(s.ctx()?.visible().map(seen).collect())
    });

    let s = Rc::clone(slot);
    engine.register_get("name", move |id: &mut ScriptId| -> ImmutableString { s.name_of(id.0).into() });
    engine.register_get("number", |id: &mut ScriptId| -> i64 { i64::from(id.0.number) });
    engine.register_fn("==", |a: ScriptId, b: ScriptId| a == b);
    engine.register_fn("!=", |a: ScriptId, b: ScriptId| a != b);
    let s = Rc::clone(slot);
    engine.register_fn("to_string", move |id: &mut ScriptId| format!("{}#{}", s.name_of(id.0), id.0.number));
    let s = Rc::clone(slot);
    engine.register_fn("to_debug", move |id: &mut ScriptId| format!("{}#{}", s.name_of(id.0), id.0.number));

    engine.register_fn("shoot", |id: ScriptId| Shot(id.0));
    let s = Rc::clone(slot);
    engine.register_fn("random", move |n: i64| -> Fallible<i64> { s.random(n).map_err(Into::into) });
    let s = Rc::clone(slot);
    engine.register_fn("random_move", move || -> Fallible<ImmutableString> {
        s.random_move().map(Into::into).map_err(Into::into)
    });
    engine
}
