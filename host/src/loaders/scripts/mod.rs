//! Script bots: Rhai (`*.rhai`) and Lua (`*.lua`) files, each an entry named after its
//! file stem, with the same API in both languages (see `docs/scripting.md`).
//!
//! What both languages share lives here: the limits, the per-call slot through which
//! script functions reach the current [`Context`] without copying it, the conversion of
//! a script's answer into an [`Action`], and the per-entry log that `print` writes to.
//! Each language's VM set-up and sandbox is in its own module.
//!
//! **Architecture Invariant:** a script can only reach the context of the call in
//! progress: the slot is filled for the duration of one `do_turn` and emptied after it,
//! and every access checks it.

use std::cell::{Cell, RefCell};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use zombies_plugin_abi::{Action, Context, Direction, Id};

use crate::bot::{BotError, Entry};

mod lua;
mod rhai;

/// Limits that apply to every script bot.
#[derive(Debug, Clone)]
pub struct ScriptLimits {
    /// Rhai operations / Lua instructions allowed per call.
    pub op_budget: u64,
    /// Wall-clock limit of one call (the last line of defence behind the budget).
    pub call_timeout: Duration,
    /// Memory cap of one entry's VM, in bytes.
    pub memory: usize,
    /// Directory of the per-entry `print` logs (`<entry>.log`); `None` drops the output.
    pub log_dir: Option<PathBuf>,
    /// Append to the logs instead of starting them afresh (game workers do: the host
    /// starts them and every game adds to them).
    pub log_append: bool,
}

impl Default for ScriptLimits {
    fn default() -> Self {
        ScriptLimits {
            op_budget: 1_000_000,
            call_timeout: Duration::from_secs(1),
            memory: 64 << 20,
            log_dir: None,
            log_append: false,
        }
    }
}

/// Loads a script as an entry; `None` when the file is not a script.
pub fn load(path: &Path, limits: &ScriptLimits) -> Option<Result<Entry, String>> {
    let ext = path.extension().and_then(|e| e.to_str())?;
    if ext != "rhai" && ext != "lua" {
        return None;
    }
    let result = (|| {
        let name = path.file_stem().and_then(|s| s.to_str()).ok_or("the file name is not UTF-8")?.to_owned();
        let source = std::fs::read_to_string(path).map_err(|e| format!("cannot read the file: {e}"))?;
        let log = Arc::new(EntryLog::new(limits.log_dir.as_deref(), &name, limits.log_append));
        let script = Script { name, path: path.to_owned(), source: source.into(), limits: limits.clone(), log };
        if ext == "rhai" { rhai::entry(script) } else { lua::entry(script) }
    })();
    Some(result)
}

/// A script file read at discovery, from which each game makes a fresh VM.
#[derive(Debug, Clone)]
struct Script {
    name: String,
    path: PathBuf,
    source: Arc<str>,
    limits: ScriptLimits,
    log: Arc<EntryLog>,
}

impl Script {
    /// The file name used in error messages (`bot.lua:3: ...`).
    fn file_name(&self) -> String {
        self.path.file_name().map_or_else(|| self.path.display().to_string(), |f| f.to_string_lossy().into_owned())
    }
}

/// One entry's `print` log file, shared by all of its games; capped in size.
#[derive(Debug)]
pub struct EntryLog {
    path: Option<PathBuf>,
    append: bool,
    state: Mutex<(Option<File>, u64)>,
}

impl EntryLog {
    /// Bytes one entry may write to its log over a whole run.
    pub const CAP: u64 = 16 << 20;

    fn new(dir: Option<&Path>, name: &str, append: bool) -> EntryLog {
        EntryLog { path: dir.map(|d| d.join(format!("{name}.log"))), append, state: Mutex::new((None, 0)) }
    }

    /// Appends one game's output (the file is created, or emptied unless appending, on
    /// first use; each game's output goes out in one write).
    fn append(&self, text: &str) {
        let Some(path) = &self.path else { return };
        if text.is_empty() {
            return;
        }
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let (file, written) = &mut *state;
        if *written >= Self::CAP {
            return;
        }
        if file.is_none() {
            if let Some(dir) = path.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            let mut options = std::fs::OpenOptions::new();
            options.create(true);
            if self.append {
                options.append(true)
            } else {
                options.write(true).truncate(true)
            };
            *file = options.open(path).ok();
        }
        if let Some(f) = file {
            let room = (Self::CAP - *written) as usize;
            let bytes = &text.as_bytes()[..text.len().min(room)];
            if f.write_all(bytes).is_ok() {
                *written += bytes.len() as u64;
                if *written >= Self::CAP {
                    let _ = f.write_all(b"\n[log truncated: the entry printed more than 16 MiB]\n");
                }
            }
        }
    }
}

/// What one bot's VM shares with the host functions it calls.
#[derive(Debug)]
struct Slot {
    /// The context of the call in progress, or null between calls.
    ctx: Cell<*const Context<'static>>,
    /// When the call in progress must end: set at the first check of a call (a hook or
    /// progress callback runs only every few hundred operations, so this costs a trivial
    /// call nothing and shifts the deadline by microseconds).
    deadline: Cell<Option<Instant>>,
    /// The time a call may take.
    timeout: Cell<Duration>,
    /// Entry names, by owner (filled at the first call; fixed for a game).
    names: RefCell<Vec<String>>,
    /// This game's `print` output, written to the entry's log when the bot is dropped.
    output: RefCell<String>,
    /// Set when the output first went over [`Slot::OUTPUT_CAP`] (reported once).
    overflowed: Cell<Option<bool>>,
}

/// Error text of a script function used outside `do_turn`.
const OUTSIDE_CALL: &str = "the context and random numbers exist only during do_turn";

impl Slot {
    /// `print` output kept per game before it goes to the log.
    const OUTPUT_CAP: usize = 1 << 20;

    fn new() -> Slot {
        Slot {
            ctx: Cell::new(std::ptr::null()),
            deadline: Cell::new(None),
            timeout: Cell::new(Duration::ZERO),
            names: RefCell::new(Vec::new()),
            output: RefCell::new(String::new()),
            overflowed: Cell::new(None),
        }
    }

    /// Runs `f` with the slot holding `ctx`, emptied again afterwards even on panic.
    fn with_call<R>(&self, ctx: &Context<'_>, timeout: Duration, f: impl FnOnce() -> R) -> R {
        struct Clear<'a>(&'a Cell<*const Context<'static>>);
        impl Drop for Clear<'_> {
            fn drop(&mut self) {
                self.0.set(std::ptr::null());
            }
        }
        if self.names.borrow().len() != ctx.names.len() {
            *self.names.borrow_mut() = ctx.names.iter().map(|n| n.as_str().to_owned()).collect();
        }
        self.ctx.set((ctx as *const Context<'_>).cast());
        self.start_clock(timeout);
        let _clear = Clear(&self.ctx);
        f()
    }

    /// The context of the call in progress.
    fn ctx(&self) -> Result<&Context<'static>, &'static str> {
        let p = self.ctx.get();
        // SAFETY: non-null only inside `with_call`, while the context it points to lives;
        // the reference does not escape the host function that asked for it.
        if p.is_null() { Err(OUTSIDE_CALL) } else { Ok(unsafe { &*p }) }
    }

    /// Starts the time of a call (or of a script's top-level code) afresh.
    fn start_clock(&self, timeout: Duration) {
        self.timeout.set(timeout);
        self.deadline.set(None);
    }

    fn timed_out(&self) -> bool {
        let now = Instant::now();
        match self.deadline.get() {
            Some(deadline) => now > deadline,
            None => {
                self.deadline.set(Some(now + self.timeout.get()));
                false
            }
        }
    }

    /// An id's owner name: an entry's name, `Zombie` or `DeadBody`.
    fn name_of(&self, id: Id) -> String {
        match id.owner {
            Id::ZOMBIE => "Zombie".to_owned(),
            Id::DEAD_BODY => "DeadBody".to_owned(),
            i => self.names.borrow().get(i as usize).cloned().unwrap_or_default(),
        }
    }

    fn print(&self, text: &str) {
        let mut out = self.output.borrow_mut();
        if out.len() + text.len() < Self::OUTPUT_CAP {
            out.push_str(text);
            out.push('\n');
        } else if self.overflowed.get().is_none() {
            out.push_str("[output cut: more than 1 MiB this game]\n");
            self.overflowed.set(Some(true));
        }
    }

    /// The error of the call in which the output first went over its cap, once.
    fn output_error(&self) -> Option<BotError> {
        (self.overflowed.get() == Some(true)).then(|| {
            self.overflowed.set(Some(false));
            BotError::Failed("printed more than 1 MiB in this game; the rest of its output is dropped".into())
        })
    }

    fn random(&self, n: i64) -> Result<i64, String> {
        let ctx = self.ctx()?;
        if !(1..=i64::from(u32::MAX)).contains(&n) {
            return Err(format!("random(n) needs 1 <= n <= {}, got {n}", u32::MAX));
        }
        Ok(i64::from(ctx.random(n as u32)))
    }

    fn random_move(&self) -> Result<&'static str, &'static str> {
        Ok(self.ctx()?.random_move().name())
    }
}

/// The move a script names (`"N"`, `"ne"`, `"STAY"`, ...).
fn parse_move(text: &str) -> Result<Action, BotError> {
    if let Some(d) = Direction::ALL.into_iter().find(|d| d.name() == text) {
        return Ok(Action::go(d));
    }
    Direction::ALL
        .into_iter()
        .find(|d| d.name().eq_ignore_ascii_case(text.trim()))
        .map(Action::go)
        .ok_or_else(|| BotError::Invalid(format!("unknown move {text:?}")))
}

/// The first line of an error message, without Lua's traceback.
fn first_line(text: &str) -> String {
    text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("error").chars().take(300).collect()
}
