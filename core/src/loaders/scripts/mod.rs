//! Script bots: Rhai (`*.rhai`) and Lua (`*.lua`) files, each an entry named after its
//! file stem. Each game has the same API in both languages (see `docs/scripting.md`).
//!
//! What every game and both languages share lives here: the limits, the per-call slot
//! through which script functions reach the current context without copying it, and
//! the per-game `print` output kept for the entry's log (`super::log`). `lua` and `rhai` hold each language's VM:
//! the sandbox, the budgets and the call. A game's bindings (what `ctx` offers, how
//! an answer reads) are the game's own, in `games/<game>/`.
//!
//! **Architecture Invariant:** a script can only reach the context of the call in
//! progress: the slot is filled for the duration of one `do_turn` and emptied after it,
//! and every access checks it.

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::clock::OwnDeadline;

use zombies_plugin_abi::Random;

use super::log::EntryLog;
use crate::bot::{BotError, BotFactory, Entry, EntryKind, Plays};

pub mod lua;
pub mod rhai;

/// Limits that apply to every script bot.
#[derive(Debug, Clone)]
pub struct ScriptLimits {
    /// Rhai operations / Lua instructions allowed per call.
    pub op_budget: u64,
    /// Time limit of one call, on the bot's own time (`crate::clock`; the last line of
    /// defence behind the budget).
    pub call_timeout: Duration,
    /// Memory cap of one entry's VM, in bytes.
    pub memory: usize,
    /// Directory of the per-entry `print` logs (`<entry>.log`); `None` drops the output.
    pub log_dir: Option<PathBuf>,
    /// Append to the logs instead of starting them afresh (game workers do: the host
    /// starts them and every game adds to them).
    pub log_append: bool,
    /// Program bots: the sandbox they run in.
    pub sandbox: crate::process::Sandbox,
    /// Program bots: the user they run as (by default `nobody` when the host is root,
    /// so that the limit on processes applies to them; see `crate::process`).
    pub program_user: Option<(u32, u32)>,
}

impl Default for ScriptLimits {
    fn default() -> Self {
        ScriptLimits {
            op_budget: 1_000_000,
            call_timeout: Duration::from_secs(1),
            memory: 64 << 20,
            log_dir: None,
            log_append: false,
            sandbox: crate::process::Sandbox::None,
            program_user: crate::process::default_run_as(),
        }
    }
}

/// True for a file name a script bot has (`*.rhai`, `*.lua`).
pub fn is_script_name(path: &Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("rhai" | "lua"))
}

/// How a game makes the bots of a script: its API in each language on top of the
/// shared VMs (each game's `rhai.rs` and `lua.rs`).
pub trait ScriptBots: Plays {
    /// The bots of a Rhai script.
    fn rhai_bots(script: Script) -> Result<Arc<dyn BotFactory<Self>>, String>;
    /// The bots of a Lua script.
    fn lua_bots(script: Script) -> Result<Arc<dyn BotFactory<Self>>, String>;
}

/// Loads a script as an entry of game `G`; `None` when the file is not a script.
pub fn load<G: ScriptBots>(path: &Path, limits: &ScriptLimits) -> Option<Result<Entry<G>, String>> {
    let ext = path.extension().and_then(|e| e.to_str())?;
    if ext != "rhai" && ext != "lua" {
        return None;
    }
    let result = (|| {
        let name = path.file_stem().and_then(|s| s.to_str()).ok_or("the file name is not UTF-8")?.to_owned();
        let source = std::fs::read_to_string(path).map_err(|e| format!("cannot read the file: {e}"))?;
        let log = Arc::new(EntryLog::new(limits.log_dir.as_deref(), &name, limits.log_append));
        let script = Script {
            name: name.clone(),
            path: path.to_owned(),
            source: source.into(),
            limits: limits.clone(),
            log,
            lua_chunk: Arc::default(),
        };
        let (kind, factory) = if ext == "rhai" {
            (EntryKind::Rhai, G::rhai_bots(script)?)
        } else {
            (EntryKind::Lua, G::lua_bots(script)?)
        };
        Ok(Entry::new(name, kind, path.to_owned(), factory))
    })();
    Some(result)
}

/// A script file read at discovery, from which each game makes a fresh VM.
#[derive(Debug, Clone)]
pub struct Script {
    /// The entry's name (the file stem).
    pub name: String,
    /// The file.
    pub path: PathBuf,
    /// Its text.
    pub source: Arc<str>,
    /// The limits of its VMs.
    pub limits: ScriptLimits,
    /// Its `print` log.
    pub log: Arc<EntryLog>,
    /// A Lua script compiled once, by its first VM (`lua::LuaVm::new`): the bytecode
    /// Lua itself made of `source` (never bytes read from a file), which every later VM
    /// of any thread loads instead of parsing the text again.
    pub lua_chunk: Arc<std::sync::OnceLock<Vec<u8>>>,
}

impl Script {
    /// The file name used in error messages (`bot.lua:3: ...`).
    pub fn file_name(&self) -> String {
        self.path.file_name().map_or_else(|| self.path.display().to_string(), |f| f.to_string_lossy().into_owned())
    }
}

/// What one bot's VM shares with the host functions it calls. `T` is the game's
/// context type with its lifetime erased (`Context<'static>`): the slot holds a
/// pointer to the context of the call in progress, valid only during the call.
#[derive(Debug)]
pub struct Slot<T> {
    /// The context of the call in progress, or null between calls.
    ctx: Cell<*const T>,
    /// The call's random numbers (from the game's generator).
    random: Cell<Option<Random<'static>>>,
    /// When the call in progress must end, on the bot's own time (`crate::clock`): set
    /// at the first check of a call (a hook or progress callback runs only every few
    /// hundred operations, so this costs a trivial call nothing and shifts the deadline
    /// by microseconds).
    deadline: Cell<Option<OwnDeadline>>,
    /// The time a call may take.
    timeout: Cell<Duration>,
    /// Entry names, by entry index (filled by the game's bindings; fixed for a game).
    pub names: RefCell<Vec<String>>,
    /// This game's `print` output, written to the entry's log when the bot is dropped.
    output: RefCell<String>,
    /// Set when the output first went over [`Slot::OUTPUT_CAP`] (reported once).
    overflowed: Cell<Option<bool>>,
    /// The entry's log, where a worker keeps each line pending as it comes.
    pub log: RefCell<Option<std::sync::Arc<super::log::EntryLog>>>,
}

/// Error text of a script function used outside `do_turn`.
pub const OUTSIDE_CALL: &str = "the context and random numbers exist only during do_turn";

impl<T> Slot<T> {
    /// `print` output kept per game before it goes to the log.
    const OUTPUT_CAP: usize = 1 << 20;

    /// An empty slot.
    pub fn new() -> Slot<T> {
        Slot {
            ctx: Cell::new(std::ptr::null()),
            random: Cell::new(None),
            deadline: Cell::new(None),
            timeout: Cell::new(Duration::ZERO),
            names: RefCell::new(Vec::new()),
            output: RefCell::new(String::new()),
            overflowed: Cell::new(None),
            log: RefCell::new(None),
        }
    }

    /// Runs `f` with the slot holding `ctx` (a context of the game, whatever its
    /// lifetime: it is read only during `f`) and its random numbers, emptied again
    /// afterwards even on panic.
    pub fn with_call<C, R>(&self, ctx: &C, random: Random<'_>, timeout: Duration, f: impl FnOnce() -> R) -> R {
        struct Clear<'a, T>(&'a Slot<T>);
        impl<T> Drop for Clear<'_, T> {
            fn drop(&mut self) {
                self.0.ctx.set(std::ptr::null());
                self.0.random.set(None);
            }
        }
        const { assert!(std::mem::size_of::<C>() == std::mem::size_of::<T>()) };
        self.ctx.set((ctx as *const C).cast());
        // SAFETY: the lifetime is erased only for the duration of `f`; `Clear` empties
        // the cell before `random`'s borrow ends.
        self.random.set(Some(unsafe { std::mem::transmute::<Random<'_>, Random<'static>>(random) }));
        self.start_clock(timeout);
        let _clear = Clear(self);
        f()
    }

    /// The context of the call in progress.
    pub fn ctx(&self) -> Result<&T, &'static str> {
        let p = self.ctx.get();
        // SAFETY: non-null only inside `with_call`, while the context it points to lives
        // (`T` is that context's type with its lifetime erased); the reference does not
        // escape the host function that asked for it.
        if p.is_null() { Err(OUTSIDE_CALL) } else { Ok(unsafe { &*p }) }
    }

    /// Starts the time of a call (or of a script's top-level code) afresh.
    pub fn start_clock(&self, timeout: Duration) {
        self.timeout.set(timeout);
        self.deadline.set(None);
    }

    /// True once the call has used its time: its own time, so a loaded machine does
    /// not cut a call short (the wall clock is read first; the thread's counters only
    /// once the wall time says the limit may have been reached).
    pub fn timed_out(&self) -> bool {
        match self.deadline.get() {
            Some(mut deadline) => {
                let passed = deadline.passed();
                self.deadline.set(Some(deadline));
                passed
            }
            None => {
                self.deadline.set(Some(OwnDeadline::start(self.timeout.get())));
                false
            }
        }
    }

    /// Adds a line to this game's output (the log), and to what the running call says
    /// (`crate::debug`: a script's `print` is shown in its replay at its call too).
    pub fn print(&self, text: &str) {
        crate::debug::say(text);
        self.log_line(text);
    }

    /// A script's `debug(...)`: what the running call says (`crate::debug`), also
    /// written to the log after `[debug] `.
    pub fn debug(&self, text: &str) {
        crate::debug::say(text);
        self.log_line(&format!("[debug] {text}"));
    }

    /// Adds a line to this game's output (the log).
    fn log_line(&self, text: &str) {
        let mut out = self.output.borrow_mut();
        let kept = if out.len() + text.len() < Self::OUTPUT_CAP {
            format!("{text}\n")
        } else if self.overflowed.get().is_none() {
            self.overflowed.set(Some(true));
            "[output cut: more than 1 MiB this game]\n".to_owned()
        } else {
            return;
        };
        out.push_str(&kept);
        if let Some(log) = &*self.log.borrow() {
            log.pending_line(&kept);
        }
    }

    /// This game's output so far.
    pub fn output(&self) -> std::cell::Ref<'_, String> {
        self.output.borrow()
    }

    /// The error of the call in which the output first went over its cap, once.
    pub fn output_error(&self) -> Option<BotError> {
        (self.overflowed.get() == Some(true)).then(|| {
            self.overflowed.set(Some(false));
            BotError::Failed("printed more than 1 MiB in this game; the rest of its output is dropped".into())
        })
    }

    /// The random numbers of the call in progress.
    pub fn random_source(&self) -> Result<Random<'static>, &'static str> {
        self.random.get().ok_or(OUTSIDE_CALL)
    }

    /// A uniform integer in `0..n` (`1 <= n <= u32::MAX`) from the game's generator.
    pub fn random(&self, n: i64) -> Result<i64, String> {
        let random = self.random_source()?;
        if !(1..=i64::from(u32::MAX)).contains(&n) {
            return Err(format!("random(n) needs 1 <= n <= {}, got {n}", u32::MAX));
        }
        Ok(i64::from(random.below(n as u32)))
    }
}

impl<T> Default for Slot<T> {
    fn default() -> Self {
        Slot::new()
    }
}

/// A noun with its indefinite article: "an integer", "a table".
pub fn with_article(noun: &str) -> String {
    let article = if noun.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
    format!("{article} {noun}")
}

/// The first line of an error message, without Lua's traceback.
pub fn first_line(text: &str) -> String {
    text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("error").chars().take(300).collect()
}
