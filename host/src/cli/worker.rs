//! The hidden commands the host runs in its own helper processes: `__worker` (load the
//! isolating host's entries once, then play the games it sends, one JSON request and
//! one JSON answer per line) and `__probe` (load one native library and report what it
//! is). The same executable as the host, so that a worker finds the same entries.
//!
//! Not here: the host's side of either, and what a worker does with a game
//! (`arena::isolate`); confining the process (`arena::process`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context as _, Result};
use arena::game::Game;
use arena::isolate::ProbeReport;
use arena::limits::{BlamePage, TimeBank};
use arena::loaders::{self, ScriptLimits};
use clap::Args;

use super::bots::script_limits;
use super::options::{GameChoice, SourceArgs, Sources};

/// The options of `__worker`, given by the isolating host.
#[derive(Debug, Args)]
pub struct WorkerArgs {
    #[arg(long)]
    pub blame: PathBuf,
    #[arg(long)]
    pub bank_ms: u64,
    #[arg(long)]
    pub bank_per_turn_ms: u64,
    #[arg(long)]
    pub call_limit_ms: u64,
    /// The entries' files, in entry order.
    #[arg(long = "entry")]
    pub entries: Vec<PathBuf>,
    #[command(flatten)]
    pub sources: SourceArgs,
    #[command(flatten)]
    pub which: GameChoice,
}

/// Serves games for an isolating host until it closes the worker's stdin.
pub fn serve<G: Game>(args: WorkerArgs, sources: &Sources) -> Result<()> {
    let WorkerArgs { blame, bank_ms, bank_per_turn_ms, call_limit_ms, entries, .. } = args;
    let bank = TimeBank { initial: Duration::from_millis(bank_ms), per_turn: Duration::from_millis(bank_per_turn_ms) };
    worker::<G>(sources, &blame, bank, Duration::from_millis(call_limit_ms), &entries)
}

/// The `__worker` command: loads the isolating host's entries once, then plays the
/// games it asks for until it closes the worker's stdin.
fn worker<G: Game>(
    sources: &Sources,
    blame: &Path,
    bank: TimeBank,
    call_limit: Duration,
    files: &[PathBuf],
) -> Result<()> {
    // A worker has a process group of its own, so a terminal's Ctrl-C does not reach
    // it; an interrupt sent to it anyway is ignored too: the host decides when to
    // stop, and a worker dying of it would be blamed on whichever bot was running.
    ctrlc::set_handler(|| {}).context("cannot ignore Ctrl-C")?;
    // Before any bot is loaded: a signal from outside its box is not a bot's crash.
    arena::isolate::watch_outside_signals();
    // A boxed worker of one entry: its programs are guarded as it is.
    if std::env::var_os(arena::process::GUARD_PROGRAMS_ENV).is_some() {
        arena::process::guard_programs();
    }
    // A boxed worker of one entry that starts no program, on a host that cannot tell
    // who sent a SIGKILL: its bots may not bring one on it.
    if std::env::var_os(arena::process::REFUSE_SELF_KILLS_ENV).is_some() {
        if files.iter().any(|f| loaders::program::is_program(f)) {
            anyhow::bail!("told to refuse self-kills, but it starts programs");
        }
        arena::process::refuse_self_kills().context("cannot refuse its bots a SIGKILL of their own")?;
    }
    // Answers go out on the original stdout; from now on fd 1 is stderr, so that
    // nothing a bot prints can be taken for an answer.
    let answers = private_stdout().context("cannot set up the worker's answer pipe")?;
    let limits = ScriptLimits { log_append: true, ..script_limits(sources) };
    let entries = files
        .iter()
        .map(|f| {
            let loaded = if loaders::native::is_library_name(f) {
                loaders::native::load::<G>(f, &limits)
            } else if loaders::scripts::is_script_name(f) {
                loaders::scripts::load::<G>(f, &limits).unwrap_or_else(|| Err("not a bot file".to_owned()))
            } else {
                loaders::declared_game(f)
                    .and_then(|d| loaders::program::load::<G>(f, &limits, d.persistent, d.protocol))
            };
            loaded.map_err(|reason| anyhow::anyhow!("{}: {reason}", f.display()))
        })
        .collect::<Result<Vec<_>>>()?;
    let blame = BlamePage::open(blame).with_context(|| format!("{}: cannot open the blame page", blame.display()))?;
    arena::isolate::serve(&entries, &blame, bank, call_limit, std::io::stdin(), answers)?;
    Ok(())
}

/// A writer on the process's original stdout, with fd 1 pointed at stderr instead.
#[cfg(unix)]
fn private_stdout() -> std::io::Result<std::fs::File> {
    use std::os::fd::FromRawFd;
    // SAFETY: plain descriptor calls on this process's own stdout and stderr, before
    // any bot code runs; the duplicate is owned by the returned File alone.
    unsafe {
        // Close-on-exec: no program bot the worker starts inherits the answer channel.
        let fd = libc::fcntl(1, libc::F_DUPFD_CLOEXEC, 3);
        if fd < 0 || libc::dup2(2, 1) < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(std::fs::File::from_raw_fd(fd))
    }
}

#[cfg(not(unix))]
fn private_stdout() -> std::io::Result<std::io::Stdout> {
    Ok(std::io::stdout())
}

/// The options of `__probe`, given by the probing host.
#[derive(Debug, Args)]
pub struct ProbeArgs {
    pub file: PathBuf,
    #[arg(long)]
    pub out: PathBuf,
}

/// Loads one native library and writes what it is to `out`, as JSON.
pub fn probe(args: ProbeArgs) -> Result<()> {
    let ProbeArgs { file, out } = args;
    let report = match arena::loaders::native::inspect(&file) {
        Ok(info) => ProbeReport::Bot(info),
        Err(reason) => ProbeReport::Skipped(reason),
    };
    std::fs::write(&out, serde_json::to_vec(&report)?).with_context(|| format!("{}", out.display()))
}
