//! The Rhai engine every game's Rhai bots run in: one `Engine` per entry per game,
//! sandboxed and limited. A game's bindings (`games/<game>/rhai.rs`) register what
//! `ctx` offers and read the answers; this module owns the sandbox, the limits and the
//! call.
//!
//! The script defines `fn do_turn(ctx)`; inside it `this` is the entry's persistent
//! object map. No file or module access exists in Rhai's standard packages, `import`
//! is compiled out and `eval` is disabled. Each call has an operation budget, a
//! own-time deadline (`crate::clock`) checked from `on_progress`, and the entry a memory cap measured
//! by the host's allocation meter. `print` goes to the entry's log, `debug(...)` (and
//! `print`) to what the call says in its replay (`crate::debug`), and `random(n)`
//! draws from the game's generator.

use std::cell::Cell;
use std::rc::Rc;

use rhai::{Caches, Dynamic, Engine, EvalAltResult, EvalContext, GlobalRuntimeState, Map, Scope};
use zombies_plugin_abi::Random;

use super::{Script, Slot, first_line};
use crate::alloc_meter;
use crate::bot::BotError;

/// Markers `on_progress` terminates a call with.
const TIMEOUT: &str = "timeout";
const MEMORY: &str = "memory";

/// The deepest nesting of script function calls a script may reach (`do_turn` is 1).
const MAX_CALL_LEVELS: usize = 64;

/// How much deeper [`RhaiVm::call`]'s way of calling `do_turn` starts than
/// `Engine::call_fn`'s: Rhai's `EvalContext::call_fn_raw` and the function call under it
/// each count a level before `do_turn`'s own, so its engine allows that many more for the
/// same depth of the script's own calls.
const RAW_CALL_LEVELS: usize = 2;

/// A script's engine, compiled script, persistent state and slot.
#[allow(missing_debug_implementations)]
pub struct RhaiVm<T: 'static> {
    engine: Engine,
    /// Rhai's state of a run, kept from call to call: the script's functions
    /// (`global.lib`, pushed once) and the operation count (reset each call).
    global: GlobalRuntimeState,
    /// Rhai's function resolution caches, kept from call to call: each call of
    /// `Engine::call_fn` starts with empty ones and resolves every function the
    /// script calls (`ctx.bullets`, `random_move`) again.
    caches: Caches,
    scope: Scope<'static>,
    /// The entry's `this`.
    state: Dynamic,
    /// Whether the script names `this` anywhere: if not, `do_turn` is called as a plain
    /// function, without the method look-up that binding `this` costs each call.
    uses_this: bool,
    /// The slot of this VM.
    pub slot: Rc<Slot<T>>,
    /// `alloc_meter::thread_net()` minus the bytes this VM holds, during a call.
    mem_base: Rc<Cell<isize>>,
    /// Bytes this VM held after its last call (as the meter saw them).
    retained: isize,
    /// The script.
    pub script: Script,
}

impl<T: 'static> RhaiVm<T> {
    /// Compiles the script with the game's `api` registered, checks for `do_turn(ctx)`
    /// and runs the top-level statements (once per game, under the call limits).
    pub fn new(script: &Script, api: impl FnOnce(&mut Engine, &Rc<Slot<T>>)) -> Result<Self, String> {
        let slot = Rc::new(Slot::new());
        slot.log.replace(Some(std::sync::Arc::clone(&script.log)));
        let mem_base = Rc::new(Cell::new(alloc_meter::thread_net()));
        let mut engine = engine(script, &slot, &mem_base);
        api(&mut engine, &slot);
        let file = script.file_name();
        let ast = engine.compile(&*script.source).map_err(|e| {
            let line = e.1.line().map_or(String::new(), |l| format!("{l}:"));
            format!("{file}:{line} syntax error: {}", e.0)
        })?;
        if !ast.iter_functions().any(|f| f.name == "do_turn" && f.params.len() == 1) {
            return Err(format!("{file}: defines no `fn do_turn(ctx)`"));
        }
        // (No `eval`, so a script's every `this` is in its tree.)
        let mut uses_this = false;
        ast.walk(&mut |path: &[rhai::ASTNode]| {
            uses_this |= matches!(path.last(), Some(rhai::ASTNode::Expr(rhai::Expr::ThisPtr(..))));
            !uses_this
        });
        let mut scope = Scope::new();
        slot.start_clock(script.limits.call_timeout);
        engine.run_ast_with_scope(&mut scope, &ast).map_err(|e| format!("{file}: at load: {}", describe(&e)))?;
        engine.set_max_call_levels(MAX_CALL_LEVELS + RAW_CALL_LEVELS);
        let mut global = engine.new_global_runtime_state();
        global.lib.push(ast.shared_lib().clone());
        Ok(RhaiVm {
            engine,
            global,
            caches: Caches::new(),
            scope,
            state: Dynamic::from_map(Map::new()),
            uses_this,
            slot,
            mem_base,
            retained: 0,
            script: script.clone(),
        })
    }

    /// Calls `do_turn(arg)` with the slot holding `ctx` and `random`; a failure becomes
    /// the [`BotError`] it is.
    ///
    /// The call is what `Engine::call_fn_with_options` makes (`this` bound to the
    /// entry's state, the scope rewound, `exit(v)` an answer, the error inside
    /// `do_turn` unwrapped), but on the VM's kept runtime state and caches, so that
    /// Rhai resolves the functions a script calls once per game, not once per call. A
    /// script that never names `this` gets a plain call: nothing of it could see the
    /// difference.
    pub fn call<C>(&mut self, ctx: &C, random: Random<'_>, mut arg: Dynamic) -> Result<Dynamic, BotError> {
        self.mem_base.set(alloc_meter::thread_net() - self.retained);
        let slot = Rc::clone(&self.slot);
        let result = slot.with_call(ctx, random, self.script.limits.call_timeout, || {
            self.global.num_operations = 0;
            let mut context = EvalContext::new(&self.engine, &mut self.global, &mut self.caches, &mut self.scope, None);
            let called = if self.uses_this {
                context.call_fn_raw("do_turn", true, true, &mut [&mut self.state, &mut arg])
            } else {
                context.call_fn_raw("do_turn", false, false, &mut [&mut arg])
            };
            called.or_else(|err| match *err {
                EvalAltResult::Exit(out, ..) => Ok(out),
                EvalAltResult::ErrorInFunctionCall(name, _, inner, _) if name == "do_turn" => Err(inner),
                _ => Err(err),
            })
        });
        self.retained = (alloc_meter::thread_net() - self.mem_base.get()).max(0);
        if let Some(err) = self.slot.output_error() {
            return Err(err);
        }
        result.map_err(|e| self.error(&e))
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

impl<T: 'static> Drop for RhaiVm<T> {
    fn drop(&mut self) {
        self.script.log.append_game(&self.slot.output());
    }
}

fn describe(err: &EvalAltResult) -> String {
    first_line(&err.to_string())
}

/// A script function's result.
pub type Fallible<T> = Result<T, Box<EvalAltResult>>;

/// A script function's error.
pub fn fail<T>(msg: impl Into<String>) -> Fallible<T> {
    Err(msg.into().into())
}

/// A sandboxed engine with the API every game shares.
fn engine<T: 'static>(script: &Script, slot: &Rc<Slot<T>>, mem_base: &Rc<Cell<isize>>) -> Engine {
    let limits = &script.limits;
    let mut engine = standard_engine();
    engine
        .set_max_operations(limits.op_budget)
        .set_max_call_levels(MAX_CALL_LEVELS)
        .set_max_expr_depths(64, 64)
        .set_max_string_size(MAX_STRING)
        .set_max_array_size(1 << 20)
        .set_max_map_size(1 << 20)
        .set_max_variables(1024)
        .set_max_functions(1024);
    engine.disable_symbol("eval");
    let s = Rc::clone(slot);
    engine.on_print(move |text| s.print(text));
    let s = Rc::clone(slot);
    engine.on_debug(move |text, _, _| {
        // `debug("x")` hands over the string quoted, as Rust's `{:?}` writes it.
        let plain = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')).unwrap_or(text);
        s.debug(plain)
    });
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
    let s = Rc::clone(slot);
    engine.register_fn("random", move |n: i64| -> Fallible<i64> { s.random(n).map_err(Into::into) });
    register_bounded_replace(&mut engine);
    engine
}

/// What `Engine::new` makes (the standard package, strings interned), the package
/// shared by every engine of the thread: `Engine::new` builds the package's few hundred
/// functions afresh each time, which cost as much as a game's calls of a trivial bot.
/// (A package is read-only once built; an engine's own functions go to its own global
/// namespace, in front of the package.)
fn standard_engine() -> Engine {
    thread_local! {
        static STANDARD: rhai::Shared<rhai::Module> = { use rhai::packages::Package; rhai::packages::StandardPackage::new().as_shared_module() };
    }
    let mut engine = Engine::new_raw();
    engine.set_max_strings_interned(256);
    engine.register_global_module(STANDARD.with(rhai::Shared::clone));
    engine
}

/// The largest string a script may make (Rhai's own check, `set_max_string_size`).
const MAX_STRING: usize = 1 << 20;

/// `replace` in its four forms, checked *before* the new string is built: Rhai checks
/// a string's size only after a built-in function returns, so one `replace` of a
/// large string into a large string could take all of the host's memory and time
/// before any check ran. Registered on the engine, these take the place of the
/// package's.
fn register_bounded_replace(engine: &mut Engine) {
    fn replace(string: &mut rhai::ImmutableString, find: &str, sub: &str) -> Fallible<()> {
        let count = if find.is_empty() { string.chars().count() + 1 } else { string.matches(find).count() };
        let len = (string.len() - count * find.len()).saturating_add(count.saturating_mul(sub.len()));
        if len > MAX_STRING {
            return Err(format!("replace would make a string of {len} bytes (at most {MAX_STRING})").into());
        }
        if count > 0 {
            *string = string.replace(find, sub).into();
        }
        Ok(())
    }
    engine.register_fn("replace", |s: &mut rhai::ImmutableString, f: &str, r: &str| replace(s, f, r));
    engine.register_fn("replace", |s: &mut rhai::ImmutableString, f: &str, r: char| {
        replace(s, f, r.encode_utf8(&mut [0; 4]))
    });
    engine.register_fn("replace", |s: &mut rhai::ImmutableString, f: char, r: &str| {
        replace(s, f.encode_utf8(&mut [0; 4]), r)
    });
    engine.register_fn("replace", |s: &mut rhai::ImmutableString, f: char, r: char| {
        replace(s, f.encode_utf8(&mut [0; 4]), r.encode_utf8(&mut [0; 4]))
    });
}
