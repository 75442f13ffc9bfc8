//! Isolation: native bots run in worker processes, so that a segfault, an abort, a
//! stack overflow or an endless loop costs only the entry that caused it.
//!
//! The host never loads a native library itself: at discovery a `__probe` child loads
//! each library and reports its name; each game is played by a `__worker` child (this
//! same executable) that loads the entries' files (only those that passed their probe),
//! plays the whole game in-process at full speed, and writes the outcome to a file. Before every bot call the worker writes
//! "entry e, call k, deadline d" to a shared [`BlamePage`]. If the worker dies, or a
//! call outlives its deadline (the entry's time bank), the host knows whom to blame: it
//! plays the game again from its seed with that entry cut off at that call (its players
//! stay from then on; it is disqualified for that game, with the reason recorded).
//! Everything before the cut is identical, because games are deterministic.
//!
//! This module starts and watches processes; the worker's side is the CLI's hidden
//! `__worker` and `__probe` commands, built on [`crate::limits`].

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime};

use crate::bot::{BotError, Entry};
use crate::game::{Game, Outcome};
use crate::limits::{BlamePage, Cut, TimeBank};
use crate::loaders::native::LibraryInfo;
use crate::replay::Replay;

/// How to start workers.
#[derive(Debug, Clone)]
pub struct Isolation {
    /// The program to run (this executable).
    pub program: PathBuf,
    /// Arguments placed before the worker command, so that it finds the same entries
    /// (plugin and script directories, script limits).
    pub args: Vec<OsString>,
    /// Each entry's time bank per game.
    pub bank: TimeBank,
    /// A directory for the workers' scratch files.
    pub scratch: PathBuf,
}

/// What a worker writes when its game is over.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct WorkerReport {
    /// The game's outcome.
    pub outcome: Outcome,
}

/// What a probe writes about one library.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub enum ProbeReport {
    /// It is a bot library: its name, kind and game.
    Bot(LibraryInfo),
    /// It is not, and why.
    Skipped(String),
}

/// Time a worker may run past a call's deadline before it is killed.
const GRACE: Duration = Duration::from_millis(250);
/// Time a probe may take to load a library.
const PROBE_TIME: Duration = Duration::from_secs(10);

static SCRATCH: AtomicU64 = AtomicU64::new(0);

fn scratch_file(dir: &Path, what: &str) -> PathBuf {
    dir.join(format!("{what}-{}-{}", std::process::id(), SCRATCH.fetch_add(1, Ordering::Relaxed)))
}

/// "killed by signal 11 (SIGSEGV)", "exit status 3", ...
pub fn describe_exit(status: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            let name = match sig {
                4 => " (SIGILL)",
                6 => " (SIGABRT: an abort, or a stack overflow)",
                7 => " (SIGBUS)",
                8 => " (SIGFPE)",
                9 => " (SIGKILL)",
                11 => " (SIGSEGV: a segmentation fault)",
                _ => "",
            };
            return format!("killed by signal {sig}{name}");
        }
    }
    match status.code() {
        Some(code) => format!("exit status {code}"),
        None => "an unknown end".to_owned(),
    }
}

/// Loads a library in a child process and says what it is, without the host ever
/// running the library's code.
pub fn probe<G: Game>(iso: &Isolation, path: &Path) -> Result<Entry<G>, String> {
    let out = scratch_file(&iso.scratch, "probe");
    let mut child = Command::new(&iso.program)
        .args(["__probe"])
        .arg(path)
        .arg("--out")
        .arg(&out)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start a probe process: {e}"))?;
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > PROBE_TIME => {
                let _ = child.kill();
                let _ = child.wait();
                let _ = std::fs::remove_file(&out);
                return Err(format!("hung while loading (over {} s)", PROBE_TIME.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("cannot watch the probe: {e}")),
        }
    };
    let report = std::fs::read(&out);
    let _ = std::fs::remove_file(&out);
    if !status.success() {
        return Err(format!("crashed while loading ({})", describe_exit(status)));
    }
    let report: ProbeReport = report
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .ok_or_else(|| "the probe wrote no report".to_owned())?;
    match report {
        ProbeReport::Bot(info) => {
            crate::loaders::native::check_game::<G>(&info.game)?;
            let factory = || Err(BotError::Failed("an isolated entry plays only in a worker process".into()));
            Ok(Entry::new(info.name, info.kind, path.to_owned(), Arc::new(factory)))
        }
        ProbeReport::Skipped(reason) => Err(reason),
    }
}

/// Plays one game in worker processes, cutting off entries that crash or hang, and
/// records the replay to `replay` if asked. `Err` only when a worker fails outside any
/// bot's call (nobody to blame).
pub fn play<G: Game>(
    iso: &Isolation,
    entries: &[Entry<G>],
    seed: u64,
    config: &G::Config,
    replay: bool,
) -> Result<(Outcome, Option<Replay<G>>), String> {
    let config = serde_json::to_string(config).map_err(|e| format!("cannot write the game's options: {e}"))?;
    let mut cuts: Vec<Cut> = Vec::new();
    loop {
        let blame_path = scratch_file(&iso.scratch, "blame");
        let out = scratch_file(&iso.scratch, "outcome");
        let log = scratch_file(&iso.scratch, "stderr");
        let replay_path = replay.then(|| scratch_file(&iso.scratch, "replay"));
        let cleanup = || {
            for p in [Some(&blame_path), Some(&out), Some(&log), replay_path.as_ref()].into_iter().flatten() {
                let _ = std::fs::remove_file(p);
            }
        };
        let blame = BlamePage::create(&blame_path).map_err(|e| format!("cannot create the blame page: {e}"))?;
        let mut cmd = Command::new(&iso.program);
        cmd.args(&iso.args)
            .args(["--game", G::NAME])
            .arg("__worker")
            .args(["--seed", &seed.to_string(), "--config", &config])
            .arg("--blame")
            .arg(&blame_path)
            .arg("--out")
            .arg(&out)
            .args(["--bank-ms", &iso.bank.initial.as_millis().to_string()])
            .args(["--bank-per-turn-ms", &iso.bank.per_turn.as_millis().to_string()]);
        if let Some(p) = &replay_path {
            cmd.arg("--replay").arg(p);
        }
        // The worker loads exactly these files (never the directories again: a file
        // that failed its probe must not be loaded by a worker either).
        for e in entries {
            cmd.arg("--entry").arg(&e.source);
        }
        for c in &cuts {
            cmd.arg("--cut").arg(format!("{}:{}:{}", c.entry, c.after_calls, c.reason));
        }
        let stderr = std::fs::File::create(&log).map_err(|e| format!("cannot create a worker log: {e}"))?;
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .map_err(|e| format!("cannot start a worker process: {e}"))?;
        let mut hung = None;
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) => {}
                Err(e) => return Err(format!("cannot watch the worker: {e}")),
            }
            if let Some((entry, call, Some(deadline))) = blame.current() {
                if SystemTime::now() > deadline + GRACE {
                    hung = Some((entry, call));
                    let _ = child.kill();
                }
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        if status.success() && hung.is_none() {
            let report: Option<WorkerReport> = std::fs::read(&out).ok().and_then(|b| serde_json::from_slice(&b).ok());
            let replay = replay_path.as_ref().and_then(|p| std::fs::read(p).ok()).map(|b| Replay::from_bytes(&b));
            cleanup();
            let report = report.ok_or("the worker wrote no outcome")?;
            let replay = replay.transpose().map_err(|e| format!("the worker's replay: {e}"))?;
            return Ok((report.outcome, replay));
        }
        let blamed = hung
            .map(|(e, k)| (e, k, "hung in a call past its time bank".to_owned()))
            .or_else(|| blame.current().map(|(e, k, _)| (e, k, format!("crashed ({})", describe_exit(status)))));
        let last_words = std::fs::read_to_string(&log).unwrap_or_default();
        cleanup();
        let Some((entry, call, what)) = blamed else {
            let line = last_words.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
            return Err(format!("the game worker failed outside any bot ({}): {line}", describe_exit(status)));
        };
        if entry >= entries.len() || cuts.iter().any(|c| c.entry == entry) || cuts.len() >= entries.len() {
            return Err(format!("the game worker failed again and again (last: entry {entry}, {what})"));
        }
        cuts.push(Cut { entry, after_calls: call, reason: format!("{what} at its call {call}") });
    }
}
