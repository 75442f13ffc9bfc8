//! What every game's performance workloads share (`arena bench`, `docs/performance.md`):
//! the options of a run ([`BenchOptions`]), its error ([`BenchError`]), and measurements
//! that know no game: round trips to a persistent program, this thread's CPU time, the
//! process's peak memory, and which Python to time.
//!
//! Each game's workloads live with the game (`games/<game>/bench.rs`), and the registry
//! (`games::bench`) runs those of the game asked for. Not here: any game's workloads;
//! printing (a run hands each line of its report to the caller as soon as it is
//! measured, and the CLI prints it); performance goals, which live in
//! `docs/performance.md`, never in timed tests.

use std::time::{Duration, Instant};

use crate::game::Game;
use crate::loaders::{self, Discovery, ScriptLimits, SearchPaths};
use crate::process::{CallError, Limits, Process, ProgramSpec};

/// What a benchmark run measures, and where the bots it plays are.
#[derive(Debug, Clone)]
pub struct BenchOptions {
    /// Where the workloads' bots are found (native plugins, mostly).
    pub paths: SearchPaths,
    /// The limits those bots are loaded with.
    pub limits: ScriptLimits,
    /// Time to spend on each workload (each plays at least one game).
    pub time: Duration,
    /// Only the workloads, and parts of the report, whose name contains this text.
    pub only: Option<String>,
    /// Games for the one-thread versus all-cores comparison (0 skips it).
    pub games: u64,
    /// Also time each step of the turn (for a game whose turn has steps to time).
    pub steps: bool,
}

impl BenchOptions {
    /// Whether the workload or part of the report called `name` is measured (`--only`).
    pub fn selects(&self, name: &str) -> bool {
        self.only.as_deref().is_none_or(|o| name.contains(o))
    }

    /// The entries of game `G` found where the options say.
    pub fn discover<G: Game>(&self) -> Discovery<G> {
        loaders::discover(&self.paths, &self.limits)
    }
}

/// Why a benchmark run could not measure. `Display` is one line.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// A workload cannot be set up: a bot it plays is missing or does not load.
    #[error("{0}")]
    Setup(String),
    /// The scratch files of a workload (its script bots) cannot be written.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The game has no workloads.
    #[error("no benchmark workloads for {0} yet")]
    NoWorkloads(String),
}

/// Median and 99th percentile, in microseconds, of `n` one-line answers of a persistent
/// `command` to the requests `request(0)`, `request(1)`, ..., after `warm_up` answers
/// that are not measured (the first answer of a program includes its start-up).
pub fn answer_micros(
    command: &[&str],
    warm_up: usize,
    n: usize,
    request: impl Fn(usize) -> String,
) -> Result<(f64, f64), CallError> {
    let spec = ProgramSpec::new(command.iter().copied());
    let mut p = Process::spawn(&spec, &Limits::default(), Box::new(std::io::sink()))?;
    for i in 0..warm_up {
        p.ask(request(i).as_bytes(), 1, Duration::from_secs(10))?;
    }
    let mut times = Vec::with_capacity(n);
    for i in 0..n {
        let line = request(i);
        let start = Instant::now();
        p.ask(line.as_bytes(), 1, Duration::from_secs(5))?;
        times.push(start.elapsed().as_secs_f64() * 1e6);
    }
    times.sort_by(f64::total_cmp);
    Ok((times[n / 2], times[(n * 99 / 100).min(n - 1)]))
}

/// The Python to time program bots with: the system's interpreter when there is one, as
/// a `python3` found through `PATH` may be a shell shim (pyenv) that costs ~100 ms more
/// per start.
pub fn python() -> &'static str {
    ["/usr/bin/python3", "python3"]
        .into_iter()
        .find(|p| !p.starts_with('/') || std::path::Path::new(p).exists())
        .unwrap_or("python3")
}

/// This thread's CPU time so far, in milliseconds (what a game costs on a loaded
/// machine, where wall time also counts the other processes' turns).
pub fn thread_cpu_millis() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid timespec to write to.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 * 1e3 + ts.tv_nsec as f64 / 1e6
}

/// The process's peak resident set size (Linux: VmHWM), in MiB.
pub fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}
