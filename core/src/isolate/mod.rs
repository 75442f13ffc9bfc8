//! Isolation: native bots (and Lua, whose C functions no hook can interrupt) run in
//! long-lived worker processes, so that a segfault, an abort, a stack overflow or a call
//! stuck in C code costs only the entry that caused it, and about its own limits.
//!
//! The host never loads a native library itself: at discovery a `__probe` child loads
//! each library and reports its name and game. Each tournament thread owns one
//! [`Worker`]: a `__worker` child (this same executable) that loads every entry's file
//! once (only those that passed their probe) and then plays game after game, each asked
//! for as one JSON line on its standard input and answered as one JSON line on a pipe of
//! its own (the worker points its standard output at its standard error, so that
//! nothing a bot prints can reach it). Before every bot call the worker writes
//! "entry e, call k, deadline d" to a shared [`BlamePage`](crate::limits::BlamePage);
//! the deadline is what is left of the entry's time bank, and at most its per-call
//! limit.
//!
//! The host watches: when the worker dies, or a call outlives its deadline by more than
//! a grace of own time, it kills the worker. It does not believe the page about whom to
//! blame (a native bot can write anything in its process): it plays that game again in
//! lockstep ([`lockstep`]), each entry in a process of its own beside a referee with no
//! bot, where the process that dies or hangs is the culprit's, as the host sees itself;
//! that entry is out of the game from that call on (its players stay) and the game goes
//! on for everyone else. Lockstep games are the same games, move for move, because games
//! are deterministic and calls are passed on as replays record them. A verdict the
//! worker reaches itself (a bank spent between calls, a call answered late) is in its
//! outcome: no second game.
//!
//! This module starts, talks to and watches processes, and holds the worker's side of
//! the conversation ([`serve`]); the CLI's hidden `__worker` and `__probe` commands load
//! the entries and call it. Its parts, by job:
//! - `wire`: the lines between host and worker ([`GameRequest`], [`GameAnswer`],
//!   [`GameResponse`], their nonces);
//! - `probe`: a library loaded in a child to say what it is ([`probe`]);
//! - `worker`: the host's [`Worker`] (starting worker processes, the shared game, the
//!   choice of a lockstep game, the lockstep workers kept between games);
//! - `running`: one started worker process as the host holds it (its pipes, its standard
//!   error, its end) and the looks the watchdog takes at it;
//! - `watchdog`: watching a game in a worker ([`grace`], the shared worker's watch, the
//!   timing of the call the referee awaits, the tasks a worker has running);
//! - `lockstep_host`: the host's side of a lockstep game (its processes, their lines
//!   passed on, the verdicts, the outcome put together);
//! - [`lockstep`]: the worker's side of a lockstep game;
//! - `serve`: the worker's own loop ([`serve`]);
//! - `signals`: a worker's end in words ([`describe_exit`]) and a boxed worker's watch
//!   for signals from outside its box ([`watch_outside_signals`]);
//! - `scratch`: a helper's box on disk (its directory and user, its files read back).

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use crate::limits::TimeBank;

pub mod lockstep;
mod lockstep_host;
mod probe;
mod running;
mod scratch;
mod serve;
mod signals;
mod watchdog;
mod wire;
mod worker;

pub use probe::{ProbeReport, probe};
pub use serve::serve;
pub use signals::{EXIT_KILLED_FROM_OUTSIDE, describe_exit, watch_outside_signals};
pub use watchdog::grace;
pub use wire::{GameAnswer, GameRequest, GameResponse};
pub use worker::{Played, Worker};

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
    /// The longest one bot call may take (the watchdog kills a call stuck past it plus a
    /// grace, wherever it is stuck).
    pub call_limit: Duration,
    /// A directory for the workers' scratch files.
    pub scratch: PathBuf,
    /// The memory (RLIMIT_DATA) a worker (or probe) may use, in bytes: all of its bots
    /// together. A native bot that goes over it crashes its worker and is out of that
    /// game; a script's own cap is lower.
    pub memory: u64,
    /// The processes and threads a worker (or probe) may have, all it forks included.
    pub processes: u32,
    /// The sandbox workers and probes run in (`--sandbox bwrap`: no network, the file
    /// system read-only but their scratch directory and these writable paths, the
    /// entries' logs).
    pub sandbox: crate::process::Sandbox,
    /// Every game in lockstep (`lockstep`): each entry in a process of its own, and a
    /// referee with no bot counting the score (`--isolate strict`).
    pub lockstep: bool,
    /// The entries' log directory, where the lines of a play the host ends go
    /// (`crate::loaders::log::recover_pending`).
    pub logs: Option<PathBuf>,
    /// The entries whose process was believed once to have been killed from outside
    /// its box: shared by every tournament thread (and kept by a clone), so that an
    /// entry is believed once, not once per thread.
    pub claimed_outside: ClaimedOutside,
}

/// The entries (by name) believed once to have been killed from outside their box
/// ([`Isolation::claimed_outside`]).
#[derive(Debug, Clone, Default)]
pub struct ClaimedOutside(std::sync::Arc<std::sync::Mutex<std::collections::HashSet<String>>>);

impl ClaimedOutside {
    /// Whether this is `entry`'s first such claim (now recorded): the one believed.
    pub fn first(&self, entry: &str) -> bool {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).insert(entry.to_owned())
    }
}
