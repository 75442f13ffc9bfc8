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
//! "entry e, call k, deadline d" to a shared [`BlamePage`]; the deadline is what is left
//! of the entry's time bank, and at most its per-call limit.
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
//! the entries and call it.

use std::ffi::OsString;
use std::io::{BufRead, Read, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::bot::{Bot, BotError, Entry};
use crate::clock::TaskProbe;
use crate::game::{Game, Outcome};
use crate::limits::{BlamePage, Guarded, TimeBank};
use crate::loaders::native::LibraryInfo;
use crate::process::kill_group;
use crate::replay::Replay;

pub mod lockstep;

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
}

/// One game asked of a worker.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct GameRequest {
    /// The game's seed.
    pub seed: u64,
    /// The game's options.
    pub config: serde_json::Value,
    /// The entries that play, as indices into the worker's entries, in seat order.
    pub seats: Vec<usize>,
    /// Record the game's replay to this file.
    pub replay: Option<PathBuf>,
    /// A number drawn by the host for this request, which the answer must carry: a
    /// line that does not is not the answer (a stray or forged line is ignored).
    #[serde(default)]
    pub nonce: u64,
    /// Set for a lockstep game (`lockstep`): which seats this worker plays, and the
    /// names of all; `seats` is then unused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lockstep: Option<lockstep::Lockstep>,
}

/// One answer line of a worker: the request's nonce and the response.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct GameAnswer {
    /// The nonce of the request answered.
    pub nonce: u64,
    /// The response.
    pub response: GameResponse,
}

/// A fresh nonce for a request (not a secret from the worker, which reads it: it keeps
/// lines that programs or stray writes put on the channel from being taken for an
/// answer).
fn fresh_nonce() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let x = crate::clock::monotonic_nanos()
        ^ (u64::from(std::process::id()) << 32)
        ^ COUNTER.fetch_add(1, Ordering::Relaxed).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    crate::play::splitmix64(x).max(1)
}

/// The line a worker writes once it has loaded its entries, before its first answer.
const READY: &str = "ready\n";

/// The longest answer line the host reads from a worker; a longer one is cut off and
/// cannot be an answer.
const MAX_ANSWER_LINE: u64 = 16 << 20;

/// A worker's answer to a [`GameRequest`].
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub enum GameResponse {
    /// The game's outcome (its replay, if asked, is in the requested file).
    Played(Outcome),
    /// The game could not be played (a bad request: nobody's fault among the bots).
    Failed(String),
}

/// What a probe writes about one library.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub enum ProbeReport {
    /// It is a bot library: its name, kind and game.
    Bot(LibraryInfo),
    /// It is not, and why.
    Skipped(String),
}

/// Time a probe may take to load a library.
const PROBE_TIME: Duration = Duration::from_secs(10);

static SCRATCH: AtomicU64 = AtomicU64::new(0);

fn scratch_file(dir: &Path, what: &str) -> PathBuf {
    dir.join(format!("{what}-{}-{}", std::process::id(), SCRATCH.fetch_add(1, Ordering::Relaxed)))
}

/// The uid a helper's box runs as (see [`crate::process::Sandbox::user`]).
fn box_user(sandbox: &crate::process::Sandbox) -> Result<Option<crate::process::BoxUser>, String> {
    sandbox.user().map_err(|e| format!("cannot give a box a uid: {e}"))
}

/// A new directory of `scratch` for one helper's box (the only place it may write),
/// given to its box user.
fn make_home(scratch: &Path, what: &str, uid: Option<u32>) -> Result<PathBuf, String> {
    let home = scratch_file(scratch, what);
    std::fs::create_dir_all(&home).map_err(|e| format!("cannot create {}: {e}", home.display()))?;
    if let Some(uid) = uid {
        std::os::unix::fs::chown(&home, Some(uid), Some(uid))
            .map_err(|e| format!("cannot give {} to its box: {e}", home.display()))?;
    }
    Ok(home)
}

/// "killed by signal 11 (SIGSEGV: a segmentation fault)", "exit status 3", ...: the
/// same words with or without a sandbox (under bwrap, a worker's death by signal N comes
/// back as bwrap's exit status 128 + N).
pub fn describe_exit(status: ExitStatus) -> String {
    match (killed_by(status), status.code()) {
        (Some(sig), _) => describe_signal(sig),
        (None, Some(code)) => format!("exit status {code}"),
        (None, None) => "an unknown end".to_owned(),
    }
}

/// The signal that ended a worker (under bwrap, its exit status 128 + N is signal N).
fn killed_by(status: ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    status.signal().or(match status.code() {
        Some(code @ 129..=159) => Some(code - 128),
        _ => None,
    })
}

fn describe_signal(sig: i32) -> String {
    let name = match sig {
        4 => " (SIGILL)",
        6 => " (SIGABRT: an abort, or a stack overflow)",
        7 => " (SIGBUS)",
        8 => " (SIGFPE)",
        9 => " (SIGKILL)",
        11 => " (SIGSEGV: a segmentation fault)",
        _ => "",
    };
    if name.is_empty() {
        format!("killed by signal {sig} ({})", crate::process::signal_name(sig))
    } else {
        format!("killed by signal {sig}{name}")
    }
}

/// The exit status of a boxed worker that a signal from outside its box would have
/// killed (see [`watch_outside_signals`]): the host's fault or the machine's, never the
/// entry's. Bwrap passes it on as its own.
pub const EXIT_KILLED_FROM_OUTSIDE: i32 = 86;

/// The signals a worker watches for a sender outside its box (SIGINT, SIGTERM and
/// SIGHUP it ignores: the host decides when it stops; SIGKILL and SIGSTOP cannot be
/// caught).
const WATCHED_SIGNALS: [i32; 13] = [
    libc::SIGSEGV,
    libc::SIGBUS,
    libc::SIGILL,
    libc::SIGFPE,
    libc::SIGABRT,
    libc::SIGTRAP,
    libc::SIGSYS,
    libc::SIGQUIT,
    libc::SIGUSR1,
    libc::SIGUSR2,
    libc::SIGALRM,
    libc::SIGVTALRM,
    libc::SIGPROF,
];

/// The actions the watched signals had before [`watch_outside_signals`] (Rust's own
/// stack-overflow handler, for SIGSEGV and SIGBUS), restored when a signal is the box's
/// own.
static mut BEFORE: [std::mem::MaybeUninit<libc::sigaction>; 32] = [const { std::mem::MaybeUninit::uninit() }; 32];

/// In a boxed worker, before any bot is loaded: a signal that would kill it and was sent
/// from outside its box (by a process outside its PID namespace, which the kernel
/// reports as sender 0: the host's user, an administrator; never another entry, which
/// cannot see it) ends it with [`EXIT_KILLED_FROM_OUTSIDE`] and a line saying so,
/// instead of dying of it as if the bot had crashed. A signal of the box's own (a fault,
/// or a kill from one of its own processes) takes its course as before. A bot can undo
/// this in its own process, or fake the exit: it only costs its own games (the host
/// believes a box once per entry, see `Worker::play_lockstep`).
pub fn watch_outside_signals() {
    extern "C" fn on_signal(sig: i32, info: *mut libc::siginfo_t, _ctx: *mut std::ffi::c_void) {
        // SAFETY: the kernel passes a valid siginfo; only async-signal-safe calls follow
        // (write, _exit, sigaction, raise), on data set before any bot ran.
        unsafe {
            let (code, pid) = ((*info).si_code, (*info).si_pid());
            if code <= 0 && pid == 0 {
                let line = b"killed from outside its box (a signal sent by a process outside it)\n";
                libc::write(2, line.as_ptr().cast(), line.len());
                libc::_exit(EXIT_KILLED_FROM_OUTSIDE);
            }
            let slot = sig as usize;
            if slot < 32 {
                libc::sigaction(sig, (*std::ptr::addr_of!(BEFORE))[slot].as_ptr(), std::ptr::null_mut());
            }
            // A fault happens again at once, under the action it had; a signal sent from
            // inside the box is sent again.
            if code <= 0 {
                libc::raise(sig);
            }
        }
    }
    for sig in WATCHED_SIGNALS {
        // SAFETY: sigaction with a zeroed struct, our handler and SA_SIGINFO; the old
        // action goes to its slot, written before the handler can run for this signal.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as *const () as usize;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            let slot = (*std::ptr::addr_of_mut!(BEFORE)).get_mut(sig as usize);
            if let Some(slot) = slot {
                libc::sigaction(sig, &action, slot.as_mut_ptr());
            }
        }
    }
}

/// Loads a library in a child process and says what it is, without the host ever
/// running the library's code.
pub fn probe<G: Game>(iso: &Isolation, path: &Path) -> Result<Entry<G>, String> {
    let user = box_user(&iso.sandbox)?;
    let uid = user.as_ref().map(|u| u.uid);
    // The probe's box writes only its own directory, where its report goes.
    let home = make_home(&iso.scratch, "probe", uid)?;
    let out = home.join("report.json");
    let file = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let mut cmd =
        crate::process::helper_command(&iso.program, &iso.sandbox, std::slice::from_ref(&file), &[home.as_path()]);
    let cap = crate::process::ProcessCap::new(iso.processes).ok();
    crate::process::confine_helper(&mut cmd, iso.memory, iso.processes, cap.as_ref(), uid);
    let spawned = cmd
        .args(["__probe"])
        .arg(&file)
        .arg("--out")
        .arg(&out)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&home);
            return Err(format!("cannot start a probe process: {e}"));
        }
    };
    if let Some(cap) = &cap {
        cap.admit(child.id());
    }
    let started = Instant::now();
    while !crate::process::has_ended(&child) {
        if started.elapsed() > PROBE_TIME {
            kill_group(&mut child);
            let _ = child.wait();
            let _ = std::fs::remove_dir_all(&home);
            return Err(format!("hung while loading (over {} s)", PROBE_TIME.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    // Whatever the library forked while loading goes with it.
    kill_group(&mut child);
    let status = child.wait().map_err(|e| format!("cannot watch the probe: {e}"))?;
    drop(cap);
    let report = std::fs::read(&out);
    let _ = std::fs::remove_dir_all(&home);
    drop(user);
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

/// A long-lived worker process for one tournament thread, started at its first game
/// and again only after it died or was killed.
#[derive(Debug)]
pub struct Worker<G: Game> {
    iso: Arc<Isolation>,
    /// Every entry's file, in entry order (the worker loads them all, once).
    files: Vec<PathBuf>,
    running: Option<Running>,
    /// Its scratch directory (blame page, replays): its own, since under a sandbox
    /// that is all it may write besides the logs.
    dir: PathBuf,
    /// Every entry's name, in entry order.
    names: Vec<String>,
    /// Per entry: a script (Lua, Rhai), which cannot send a signal: a death by SIGKILL
    /// that the host did not send is then not its fault.
    cannot_signal: Vec<bool>,
    /// Per entry: it said once that it was killed from outside its box (believed once).
    claimed_outside: Vec<bool>,
    /// Per entry: a program bot, whose calls the worker times itself (on the program's
    /// own time, not the worker's): the host holds them to the wall-clock backstop only.
    times_itself: Vec<bool>,
    /// Lockstep workers kept from one game to the next, each with the files it loaded
    /// (the referee: none), the most recently used last: starting a box per entry per
    /// game would cost more than the game.
    kept: Vec<(Vec<PathBuf>, Running)>,
    /// Per entry: it crashed or hung in a lockstep game (`lockstep`), so its games are
    /// played in lockstep from then on, with the entry in a process of its own.
    crashers: Vec<bool>,
    /// Workers started so far (1 unless some died; lockstep games start their own).
    pub started: u32,
    _game: PhantomData<fn() -> G>,
}

/// A worker process and the host's ends of its pipes.
#[derive(Debug)]
struct Running {
    child: Child,
    requests: ChildStdin,
    /// Where its lines go.
    route: Route,
    /// The lines it answers with (`None` once its pipe closed), for a worker watched
    /// alone; a lockstep game's workers all send to one channel of the host's.
    answers: Option<mpsc::Receiver<Event>>,
    blame: BlamePage,
    stderr: StderrTail,
    /// The worker's process cap; dropped (what is left in it killed) after the worker.
    cap: Option<crate::process::ProcessCap>,
    /// The worker's playing thread (found when first needed): its pid (in the host's
    /// PID namespace) and its counters.
    player: Option<TaskProbe>,
    player_pid: Option<u32>,
    /// Its box's directory, the only one it may write: its blame page, its replays,
    /// its entries' logs (`logs/`, moved to the real logs by the host after each game)
    /// and the output of the game in play (`pending/`, kept if the host ends it).
    home: PathBuf,
    /// The real log directory.
    logs: Option<PathBuf>,
    /// The entries whose logs it writes (a file of another name in its logs is not
    /// believed: a bot could write it).
    names: Vec<String>,
    /// Its threads and processes at rest (between games).
    at_rest: Tasks,
    /// Its playing thread's CPU time at the last look where it had changed, and when
    /// (monotonic nanoseconds): a worker in a game never stands still for long.
    last_progress: Option<(u64, u64)>,
    /// The uid its box runs as (a root host's lease), released after it ended.
    _user: Option<crate::process::BoxUser>,
}

impl Running {
    /// Kills the worker and removes its scratch files; returns its last words.
    fn end(mut self) -> String {
        self.kill();
        // What left the group but not the control group, which may hold the stderr.
        drop(self.cap.take());
        self.collect_logs();
        crate::loaders::log::recover_pending(&self.home.join("pending"), self.logs.as_deref(), &self.names);
        let _ = std::fs::remove_dir_all(&self.home);
        self.stderr.last_words()
    }

    /// Moves what its entries wrote to their logs in its box to the real logs (each
    /// game's block whole, as the worker wrote it after the game).
    fn collect_logs(&self) {
        crate::loaders::log::collect_box_logs(&self.home.join("logs"), self.logs.as_deref(), &self.names);
    }
}

/// The end of what a worker writes to its standard error (a panic's message, a bot's
/// stray prints: a worker's stdout goes there too), read by a thread of the host that
/// keeps only the last [`StderrTail::KEPT`] bytes: no amount of output fills a disk or
/// blocks the worker.
#[derive(Debug)]
struct StderrTail {
    kept: Arc<std::sync::Mutex<Vec<u8>>>,
    reader: std::thread::JoinHandle<()>,
}

impl StderrTail {
    const KEPT: usize = 64 << 10;

    fn drain(mut from: impl std::io::Read + Send + 'static) -> StderrTail {
        let kept = Arc::new(std::sync::Mutex::new(Vec::new()));
        let into = Arc::clone(&kept);
        let reader = std::thread::spawn(move || {
            let mut chunk = [0u8; 8192];
            loop {
                let n = match from.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                };
                let mut kept = into.lock().unwrap_or_else(|p| p.into_inner());
                kept.extend_from_slice(&chunk[..n]);
                if kept.len() > 2 * Self::KEPT {
                    let cut = kept.len() - Self::KEPT;
                    kept.drain(..cut);
                }
            }
        });
        StderrTail { kept, reader }
    }

    /// The last bytes written, once the worker (and whatever held its stderr) ended,
    /// or after half a second.
    fn last_words(&self) -> String {
        let deadline = Instant::now() + Duration::from_millis(500);
        while !self.reader.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(2));
        }
        let kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        String::from_utf8_lossy(&kept[kept.len().saturating_sub(Self::KEPT)..]).into_owned()
    }
}

/// A line from worker number `.0` (`None`: its answer pipe closed: it died).
type Event = (usize, Option<Vec<String>>);

/// Where a worker's lines go: its number in the game it plays and the host's channel
/// for that game (`None` between games: a line then is nobody's answer and is dropped).
/// A worker kept from one lockstep game to the next is given a new route per game.
type Route = Arc<std::sync::Mutex<(usize, Option<mpsc::Sender<Event>>)>>;

/// Sends a worker's line (`None`: it died) along its `route`, if anyone listens.
fn send_on(route: &Route, line: Option<Vec<String>>) {
    let route = route.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(events) = &route.1 {
        let _ = events.send((route.0, line));
    }
}

/// How many lockstep workers a tournament thread keeps between games (the least
/// recently used one is ended past that).
const KEPT_WORKERS: usize = 64;

/// How a game in a worker went, as the host saw it.
enum Watched {
    /// The answer to the request (or why the line carrying its nonce is not one).
    Answered(Result<GameResponse, String>),
    /// The worker died or was killed (what it says of whom to blame is not believed:
    /// see [`Worker::play`]).
    Lost,
}

/// Why the watchdog ends a call.
struct Blamed {
    /// The verdict: "crashed (...)", "hung in a call past its time limit".
    verdict: String,
    /// What was measured, for a watchdog's verdict: "0.52 s of its own time; ...".
    measured: Option<String>,
}

impl<G: Game> Worker<G> {
    /// A worker for `entries` (not started until its first game).
    pub fn new(iso: Arc<Isolation>, entries: &[Entry<G>]) -> Worker<G> {
        let files = entries.iter().map(|e| e.source.clone()).collect();
        let names = entries.iter().map(|e| e.name.clone()).collect();
        let times_itself = entries.iter().map(|e| e.kind == crate::bot::EntryKind::Program).collect();
        let cannot_signal = entries
            .iter()
            .map(|e| matches!(e.kind, crate::bot::EntryKind::Lua | crate::bot::EntryKind::Rhai))
            .collect();
        let dir = scratch_file(&iso.scratch, "worker");
        let crashers = vec![false; entries.len()];
        let claimed_outside = vec![false; entries.len()];
        Worker {
            iso,
            files,
            names,
            times_itself,
            cannot_signal,
            claimed_outside,
            crashers,
            kept: Vec::new(),
            running: None,
            dir,
            started: 0,
            _game: PhantomData,
        }
    }

    /// Starts the long-lived worker, which loads every entry.
    fn start(&mut self) -> Result<Running, String> {
        let (send, answers) = mpsc::channel();
        let files = self.files.clone();
        let names = self.names.clone();
        let mut running = self.launch(&files, names, 0, send)?;
        // Its threads and processes once it has loaded every entry: what it has at rest
        // between games.
        match answers.recv_timeout(PROBE_TIME) {
            Ok((_, Some(lines))) if lines.first().is_some_and(|l| l == READY) => {
                running.at_rest = tree_tasks(running.child.id())
            }
            _ => {
                let words = running.end();
                let line = last_line(&words);
                return Err(format!("the game worker did not start: {line}"));
            }
        }
        running.answers = Some(answers);
        Ok(running)
    }

    /// Starts a worker that loads `files` (entries named `names`) in a box of its own;
    /// its lines go to `events`, tagged `tag`.
    fn launch(
        &mut self,
        files: &[PathBuf],
        names: Vec<String>,
        tag: usize,
        events: mpsc::Sender<Event>,
    ) -> Result<Running, String> {
        let iso = &self.iso;
        std::fs::create_dir_all(&self.dir).map_err(|e| format!("cannot create {}: {e}", self.dir.display()))?;
        let user = box_user(&iso.sandbox)?;
        let uid = user.as_ref().map(|u| u.uid);
        let home = make_home(&self.dir, "box", uid)?;
        let blame_path = home.join("blame");
        let blame = BlamePage::create(&blame_path).map_err(|e| format!("cannot create the blame page: {e}"))?;
        if let Some(uid) = uid {
            std::os::unix::fs::chown(&blame_path, Some(uid), Some(uid))
                .map_err(|e| format!("cannot give the blame page to its box: {e}"))?;
        }
        // The worker's own cap, and beside it the room for its programs' caps (each
        // program's counts only its own processes, whatever the worker's natives fork);
        // a boxed worker may write that room and nothing else of /sys.
        let programs = crate::loaders::program::PROGRAM_PROCESSES.saturating_mul(files.len() as u32);
        let cap = crate::process::ProcessCap::with_programs(iso.processes, programs).ok();
        if let (Some(cap), Some(uid)) = (&cap, uid) {
            cap.delegate(uid);
        }
        let room = cap.as_ref().and_then(|c| c.programs_dir());
        let own_tasks = cap.as_ref().and_then(|c| c.own_tasks());
        let writable: Vec<&Path> = std::iter::once(home.as_path()).chain(room).chain(own_tasks.as_deref()).collect();
        let files: Vec<PathBuf> = files.iter().map(|f| std::path::absolute(f).unwrap_or_else(|_| f.clone())).collect();
        // A program's directory of its own files is bound into the box beside it.
        let own: Vec<PathBuf> = files
            .iter()
            .filter(|f| crate::loaders::program::is_program(f))
            .filter_map(|f| crate::loaders::program::files_dir(f))
            .collect();
        let bound: Vec<PathBuf> = files.iter().chain(&own).cloned().collect();
        let mut cmd = crate::process::helper_command(&iso.program, &iso.sandbox, &bound, &writable);
        crate::process::confine_helper(&mut cmd, iso.memory, iso.processes, cap.as_ref(), uid);
        if let Some(room) = room {
            cmd.env(crate::process::PROGRAMS_ENV, room);
        }
        cmd.env(crate::loaders::log::PENDING_ENV, home.join("pending"));
        cmd.args(&iso.args)
            .arg("--logs")
            .arg(home.join("logs"))
            .args(["--game", G::NAME])
            .arg("__worker")
            .arg("--blame")
            .arg(&blame_path)
            .args(["--bank-ms", &iso.bank.initial.as_millis().to_string()])
            .args(["--bank-per-turn-ms", &iso.bank.per_turn.as_millis().to_string()])
            .args(["--call-limit-ms", &iso.call_limit.as_millis().to_string()]);
        // The worker loads exactly these files (never the directories again: a file
        // that failed its probe must not be loaded by a worker either).
        for f in &files {
            cmd.arg("--entry").arg(f);
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start a worker process: {e}"))?;
        let cap = cap.filter(|cap| cap.admit(child.id()));
        let requests = child.stdin.take().ok_or("the worker has no stdin")?;
        let out = child.stdout.take().ok_or("the worker has no stdout")?;
        let stderr = StderrTail::drain(child.stderr.take().ok_or("the worker has no stderr")?);
        let route: Route = Arc::new(std::sync::Mutex::new((tag, Some(events))));
        let lines = Arc::clone(&route);
        std::thread::spawn(move || {
            let mut out = std::io::BufReader::new(out);
            // The whole lines that came in one read go on together.
            let mut came = Vec::new();
            loop {
                let mut line = Vec::new();
                match (&mut out).take(MAX_ANSWER_LINE).read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => {
                        if !came.is_empty() {
                            send_on(&lines, Some(std::mem::take(&mut came)));
                        }
                        send_on(&lines, None);
                        break;
                    }
                    Ok(_) => {}
                }
                if line.last() != Some(&b'\n') {
                    // Cut off: drop the rest of this line.
                    let mut rest = Vec::new();
                    let _ = out.read_until(b'\n', &mut rest);
                } else if let Ok(line) = String::from_utf8(line) {
                    came.push(line);
                }
                if !came.is_empty() && !out.buffer().contains(&b'\n') {
                    send_on(&lines, Some(std::mem::take(&mut came)));
                }
            }
        });
        self.started += 1;
        let logs = iso.logs.clone();
        let at_rest = Tasks::default();
        Ok(Running {
            child,
            requests,
            route,
            answers: None,
            blame,
            stderr,
            cap,
            player: None,
            player_pid: None,
            home,
            logs,
            names,
            at_rest,
            last_progress: None,
            _user: user,
        })
    }

    /// Plays one game with the entries `seats` (indices into this worker's entries, in
    /// seat order) and records its replay if asked.
    ///
    /// The game is played in the long-lived worker, where all bots share one process.
    /// When that worker dies or is killed in the game, nothing it says about whom to
    /// blame is believed (a native bot can write anything in its process): the game is
    /// played again in lockstep (`lockstep`), each entry in a process of its own, where
    /// the host sees for itself which entry's process crashed or hung; that entry is
    /// out of that game and the game goes on for the others. An entry found so is played
    /// in lockstep in its later games too, so that it costs no more replays. `Err` only
    /// when the game fails outside every bot (nobody to blame).
    pub fn play(&mut self, seats: &[usize], seed: u64, config: &G::Config, record: bool) -> Result<Played<G>, String> {
        let config = serde_json::to_value(config).map_err(|e| format!("cannot write the game's options: {e}"))?;
        let singles: Vec<Vec<usize>> = (0..seats.len()).map(|p| vec![p]).collect();
        let crashers: Vec<usize> = (0..seats.len()).filter(|&p| self.crashers[seats[p]]).collect();
        let mut groups = if self.iso.lockstep {
            singles.clone()
        } else if crashers.is_empty() {
            if let Some(played) = self.play_shared(seats, seed, &config, record)? {
                return Ok(played);
            }
            singles.clone()
        } else {
            // Each entry that crashed before alone, the others together.
            let rest: Vec<usize> = (0..seats.len()).filter(|p| !crashers.contains(p)).collect();
            let mut groups: Vec<Vec<usize>> = crashers.iter().map(|&p| vec![p]).collect();
            if !rest.is_empty() {
                groups.push(rest);
            }
            groups
        };
        loop {
            match self.play_lockstep(seats, seed, &config, record, &groups)? {
                Lockstepped::Played { outcome, replay, out } => {
                    for p in out {
                        self.crashers[seats[p]] = true;
                    }
                    return Ok((outcome, replay.map(|r| *r)));
                }
                // A worker of several entries failed: whose fault is unknown, so every
                // entry gets a process of its own.
                Lockstepped::Regroup if groups != singles => groups = singles.clone(),
                Lockstepped::Regroup => return Err("a lockstep game could not be played".to_owned()),
            }
        }
    }

    /// Plays the game in the long-lived worker: `None` when the worker died or was
    /// killed in it.
    fn play_shared(
        &mut self,
        seats: &[usize],
        seed: u64,
        config: &serde_json::Value,
        record: bool,
    ) -> Result<Option<Played<G>>, String> {
        let running = match self.running.take() {
            Some(r) => r,
            None => self.start()?,
        };
        let replay = record.then(|| scratch_file(&running.home, "replay"));
        let request = GameRequest {
            seed,
            config: config.clone(),
            seats: seats.to_vec(),
            replay: replay.clone(),
            nonce: fresh_nonce(),
            lockstep: None,
        };
        let (running, watched) = watch(running, &request, self.iso.call_limit);
        let recorded = take_file(replay.as_deref());
        match watched {
            Watched::Answered(response) => {
                running.collect_logs();
                // Threads or processes left running by a bot of this game: the worker
                // is replaced (ending them), and its native entries play in lockstep
                // from then on, where each one's are seen and reported.
                if tree_tasks(running.child.id()).more_than(running.at_rest) {
                    running.end();
                    let native = |e: &&usize| crate::loaders::native::is_library_name(&self.files[**e]);
                    for &e in seats.iter().filter(|e| native(e)) {
                        self.crashers[e] = true;
                    }
                } else {
                    self.running = Some(running);
                }
                match response? {
                    GameResponse::Played(outcome) => Ok(Some((outcome, read_replay(record, recorded)?))),
                    GameResponse::Failed(reason) => Err(reason),
                }
            }
            Watched::Lost => {
                running.end();
                Ok(None)
            }
        }
    }

    /// Plays the game in lockstep: a referee process with no bot, and one worker per
    /// group of seats (positions in `seats`) playing those seats' bots.
    fn play_lockstep(
        &mut self,
        seats: &[usize],
        seed: u64,
        config: &serde_json::Value,
        record: bool,
        groups: &[Vec<usize>],
    ) -> Result<Lockstepped<G>, String> {
        let names: Vec<String> = seats.iter().map(|&i| self.names[i].clone()).collect();
        let (send, events) = mpsc::channel::<Event>();
        let mut procs: Vec<Proc> = Vec::with_capacity(groups.len() + 1);
        let mut replay = None;
        // Number 0, the referee, then the groups.
        for (w, group) in std::iter::once(&Vec::new()).chain(groups).enumerate() {
            let files: Vec<PathBuf> = group.iter().map(|&p| self.files[seats[p]].clone()).collect();
            let box_names = group.iter().map(|&p| names[p].clone()).collect();
            let (running, ready) = match self.kept.iter().position(|(f, _)| *f == files) {
                Some(k) if !crate::process::has_ended(&self.kept[k].1.child) => {
                    let (_, running) = self.kept.remove(k);
                    *running.route.lock().unwrap_or_else(|p| p.into_inner()) = (w, Some(send.clone()));
                    (running, true)
                }
                _ => (self.launch(&files, box_names, w, send.clone())?, false),
            };
            if w == 0 {
                // The referee's box holds the game's replay.
                replay = record.then(|| scratch_file(&running.home, "replay"));
            }
            let mut live = vec![None; seats.len()];
            for (k, &p) in group.iter().enumerate() {
                live[p] = Some(k);
            }
            let request = GameRequest {
                seed,
                config: config.clone(),
                seats: Vec::new(),
                replay: if w == 0 { replay.clone() } else { None },
                nonce: fresh_nonce(),
                lockstep: Some(lockstep::Lockstep { names: names.clone(), live, served: G::SERVES_CALLS }),
            };
            let feed = Feeder::new(proc_stdin(&running)?);
            let proc = Proc {
                running,
                feed,
                seats: group.clone(),
                nonce: request.nonce,
                answer: None,
                ended: false,
                suspect: None,
                awaited: None,
                ready,
                deferred: None,
            };
            // A worker that cannot take it has died: its closed pipe says so below.
            proc.feed.send(serde_json::to_string(&request).expect("a request serialises") + "\n");
            procs.push(proc);
        }
        drop(send);
        let mut calls = vec![0u64; seats.len()];
        // Served mode: the calls the referee has asked of each seat.
        let mut asked = vec![0u64; seats.len()];
        let mut out: Vec<Option<String>> = vec![None; seats.len()];
        let limit = self.iso.call_limit;
        // Once the referee has answered, the others have until this to answer too (they
        // only have the game's last calls to play back).
        let mut finish_by: Option<Instant> = None;
        let mut next_look = Instant::now();
        let result = loop {
            if procs.iter().all(|p| p.ended || p.answer.is_some()) {
                break Ok(());
            }
            match events.recv_timeout(Duration::from_millis(5)) {
                Ok((w, Some(lines))) => {
                    // A worker's calls that came together go on together.
                    let mut relay = String::new();
                    // Served mode: the referee's requests go to each seat's process only, the
                    // answers to the referee only.
                    let mut to_referee = String::new();
                    for line in lines {
                        match lockstep::parse_line(&line) {
                            lockstep::Line::Request(s, n) if w == 0 && s < seats.len() && out[s].is_none() => {
                                if let Some(p) = procs.iter_mut().skip(1).find(|p| p.seats.contains(&s) && !p.ended) {
                                    asked[s] += n;
                                    p.feed.send(line);
                                }
                            }
                            lockstep::Line::Answer(s, n)
                                if w > 0
                                    && procs[w].seats.contains(&s)
                                    && out[s].is_none()
                                    && calls[s] + n <= asked[s] =>
                            {
                                calls[s] += n;
                                procs[w].awaited = None;
                                to_referee.push_str(&line);
                            }
                            // Only a seat's own worker speaks for it.
                            lockstep::Line::Call(s) if w > 0 && procs[w].seats.contains(&s) && out[s].is_none() => {
                                calls[s] += 1;
                                procs[w].awaited = None;
                                relay.push_str(&line);
                            }
                            // Only the referee, which runs no bot, says whose call it waits
                            // for; a call already passed on is not awaited.
                            lockstep::Line::Wait(s, consumed) if w == 0 && s < seats.len() => {
                                let times_itself = self.times_itself[seats[s]];
                                // Served, the calls asked for and not answered yet are timed together.
                                let batch = asked[s].saturating_sub(calls[s]).max(1);
                                if let Some(p) = procs.iter_mut().skip(1).find(|p| p.seats == [s] && !p.ended)
                                    && calls[s] == consumed
                                {
                                    p.await_call(consumed, batch, times_itself);
                                }
                            }
                            lockstep::Line::Call(_)
                            | lockstep::Line::Out(..)
                            | lockstep::Line::Wait(..)
                            | lockstep::Line::Request(..)
                            | lockstep::Line::Answer(..) => {}
                            lockstep::Line::Other if line == READY && !procs[w].ready => {
                                procs[w].ready = true;
                                if let Some((call, batch, times_itself)) = procs[w].deferred.take()
                                    && procs[w].seats.len() == 1
                                    && calls[procs[w].seats[0]] == call
                                {
                                    procs[w].await_call(call, batch, times_itself);
                                }
                            }
                            lockstep::Line::Other => {
                                if let Ok(answer) = serde_json::from_str::<GameAnswer>(&line)
                                    && answer.nonce == procs[w].nonce
                                    && procs[w].answer.is_none()
                                {
                                    procs[w].answer = Some(answer.response);
                                    if w == 0 {
                                        finish_by = Some(Instant::now() + crate::clock::backstop(limit));
                                        // Served seats have played every call: they say their
                                        // counters.
                                        if G::SERVES_CALLS {
                                            for p in procs.iter().skip(1).filter(|p| !p.ended) {
                                                p.feed.send(lockstep::END_LINE.to_owned());
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                    if !relay.is_empty() {
                        pass_on(&mut procs, w, &relay);
                    }
                    if !to_referee.is_empty() && !procs[0].ended && procs[0].answer.is_none() {
                        procs[0].feed.send(to_referee);
                    }
                }
                Ok((w, None)) => {
                    if procs[w].ended || procs[w].answer.is_some() {
                        continue;
                    }
                    procs[w].ended = true;
                    let status = procs[w].running.kill();
                    if w == 0 {
                        let words = procs[w].running.stderr.last_words();
                        let line = last_line(&words);
                        break Err(format!("the game's referee failed ({}): {line}", describe_exit(status)));
                    }
                    if procs[w].seats.len() > 1 {
                        break Ok(());
                    }
                    let s = procs[w].seats[0];
                    let words = procs[w].running.stderr.last_words();
                    // Killed from outside its box (it says so; or it runs a script, which
                    // cannot send the SIGKILL it died of): not its fault. The game fails
                    // and is played again; an entry is believed once.
                    // (A box's bwrap reports its processes' deaths as exit statuses: a
                    // death by a signal is bwrap's own, outside the box.)
                    let boxed = matches!(self.iso.sandbox, crate::process::Sandbox::Bwrap { .. });
                    let from_outside = status.code() == Some(EXIT_KILLED_FROM_OUTSIDE)
                        || (boxed && std::os::unix::process::ExitStatusExt::signal(&status).is_some())
                        || (self.cannot_signal[seats[s]] && killed_by(status) == Some(libc::SIGKILL));
                    if from_outside && !std::mem::replace(&mut self.claimed_outside[seats[s]], true) {
                        break Err(format!(
                            "{}'s worker was killed from outside its box ({}): not its fault",
                            names[s],
                            describe_exit(status)
                        ));
                    }
                    let at = call_in_progress::<G>(&procs[w], calls[s], asked[s]);
                    // A Rust bot whose allocation failed under the worker's memory cap
                    // says so before it aborts.
                    let reason = match words.lines().rev().find(|l| l.contains("memory allocation of")) {
                        Some(line) => format!(
                            "over its memory limit ({}; {}) at its call {}",
                            describe_exit(status),
                            line.trim(),
                            at
                        ),
                        None => format!("crashed ({}) at its call {at}", describe_exit(status)),
                    };
                    put_out(&mut procs, &mut out, s, reason);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break Err("lost every lockstep worker".to_owned()),
            }
            // The watchdog looks every few milliseconds, however many lines come.
            if Instant::now() < next_look {
                continue;
            }
            next_look = Instant::now() + crate::clock::RECHECK;
            for w in 1..procs.len() {
                if procs[w].ended || procs[w].answer.is_some() {
                    continue;
                }
                let proc = &mut procs[w];
                let blamed = match finish_by {
                    Some(t) if Instant::now() >= t => Some(Blamed {
                        verdict: "gave no answer at the end of the game".to_owned(),
                        measured: Some(format!(
                            "{:.0} s after the game's end",
                            crate::clock::backstop(limit).as_secs_f64()
                        )),
                    }),
                    _ => proc.stuck(limit),
                };
                let Some(blamed) = blamed else { continue };
                proc.ended = true;
                proc.running.kill();
                if proc.seats.len() > 1 {
                    break;
                }
                let s = proc.seats[0];
                let at = call_in_progress::<G>(proc, calls[s], asked[s]);
                let reason = match blamed.measured {
                    Some(m) => format!("{} at its call {at} ({m})", blamed.verdict),
                    None => format!("{} at its call {at}", blamed.verdict),
                };
                put_out(&mut procs, &mut out, s, reason);
            }
            if procs.iter().skip(1).any(|p| p.ended && p.seats.len() > 1) {
                break Ok(());
            }
        };
        let recorded = take_file(replay.as_deref());
        // What each seat's process has running beyond what the referee (started the
        // same way, with no bot) has: the threads and processes its bot left behind.
        let baseline = procs.first().map(|p| tree_tasks(p.running.child.id())).unwrap_or_default();
        let left: Vec<Option<Tasks>> =
            procs.iter().map(|p| (!p.ended).then(|| tree_tasks(p.running.child.id()))).collect();
        let mut answers: Vec<Option<GameResponse>> = Vec::with_capacity(procs.len());
        for (w, (mut p, left)) in procs.into_iter().zip(&left).enumerate() {
            let answer = p.answer.take();
            // A worker that played the game to its end and left nothing running plays
            // its entries' next game too.
            let clean = w == 0 || left.is_some_and(|l| !l.more_than(baseline));
            let idle = p.feed.idle();
            if result.is_ok() && clean && idle && !p.ended && matches!(answer, Some(GameResponse::Played(_))) {
                *p.running.route.lock().unwrap_or_else(|e| e.into_inner()) = (0, None);
                p.running.collect_logs();
                let files: Vec<PathBuf> = std::iter::once(&Vec::new())
                    .chain(groups)
                    .nth(w)
                    .map(|g| g.iter().map(|&q| self.files[seats[q]].clone()).collect())
                    .unwrap_or_default();
                self.kept.push((files, p.running));
                if self.kept.len() > KEPT_WORKERS {
                    self.kept.remove(0).1.end();
                }
            } else {
                p.running.end();
            }
            answers.push(answer);
        }
        result?;
        if answers.iter().zip(std::iter::once(&Vec::new()).chain(groups)).any(|(a, g)| a.is_none() && g.len() > 1) {
            return Ok(Lockstepped::Regroup);
        }
        let mut outcome = match answers.first() {
            Some(Some(GameResponse::Played(outcome))) => outcome.clone(),
            Some(Some(GameResponse::Failed(reason))) => return Err(reason.clone()),
            _ => return Err("the game's referee gave no answer".to_owned()),
        };
        // The score is the referee's; each seat's call counters are its own worker's (and,
        // served, the referee's findings on its answers: invalid moves, calls that could
        // not be served; the referee counts no calls and no time of its own there).
        let referee = outcome.stats.clone();
        for ((answer, group), left) in answers.iter().skip(1).zip(groups).zip(left.iter().skip(1)) {
            for &s in group {
                outcome.stats[s] = match (answer, &out[s]) {
                    (Some(GameResponse::Played(o)), None) => {
                        let mut stats = o.stats.get(s).cloned().unwrap_or_default();
                        if let Some(found) = referee.get(s).filter(|_| G::SERVES_CALLS) {
                            stats.merge(&crate::bot::CallStats {
                                calls: 0,
                                timed_calls: 0,
                                timed_nanos: 0,
                                ..found.clone()
                            });
                        }
                        if let Some(left) = left.filter(|l| l.more_than(baseline) && group.len() == 1) {
                            let (threads, processes) = left.beyond(baseline);
                            stats.record_error(&BotError::Failed(format!(
                                "left running at the end of the game (ended with it): {processes} \
                                 process(es), {} other thread(s)",
                                threads.saturating_sub(processes)
                            )));
                        }
                        stats
                    }
                    (_, reason) => {
                        let mut stats = crate::bot::CallStats { calls: calls[s], ..Default::default() };
                        let reason = reason.clone().unwrap_or_else(|| "gave no answer".to_owned());
                        stats.record_error(&BotError::Disqualified(reason));
                        stats
                    }
                };
            }
        }
        let replay = read_replay(record, recorded)?.map(Box::new);
        let out = (0..seats.len()).filter(|&s| out[s].is_some()).collect();
        Ok(Lockstepped::Played { outcome, replay, out })
    }
}

/// The call a seat's process was in when it died or was ended: the host's count of its
/// calls, or in served mode, where answers come a batch at a time, the call its own
/// blame page names within the batch asked for (the page is the seat's own: its bot can
/// misname only its own call, and the game does not depend on it: a seat is out from
/// the first call of the batch it did not answer).
fn call_in_progress<G: Game>(proc: &Proc, answered: u64, asked: u64) -> u64 {
    match proc.running.blame.current() {
        Some(c) if G::SERVES_CALLS && (answered..asked).contains(&c.call) => c.call,
        _ => answered,
    }
}

/// The threads and processes of a process tree.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Tasks {
    threads: u32,
    processes: u32,
}

impl Tasks {
    /// More threads or more processes than `base`.
    fn more_than(self, base: Tasks) -> bool {
        self.threads > base.threads || self.processes > base.processes
    }

    /// How many threads and processes more than `base`.
    fn beyond(self, base: Tasks) -> (u32, u32) {
        (self.threads.saturating_sub(base.threads), self.processes.saturating_sub(base.processes))
    }
}

/// The threads and processes of `root` and every process below it (as `/proc` shows
/// them now; a process that left the tree by losing its parent is not counted, but a
/// worker's process cap still ends it).
fn tree_tasks(root: u32) -> Tasks {
    let mut tasks = Tasks::default();
    let mut todo = vec![root];
    while let Some(pid) = todo.pop() {
        let Ok(threads) = std::fs::read_dir(format!("/proc/{pid}/task")) else { continue };
        tasks.processes += 1;
        for t in threads.flatten() {
            tasks.threads += 1;
            let children = std::fs::read_to_string(t.path().join("children")).unwrap_or_default();
            todo.extend(children.split_ascii_whitespace().filter_map(|c| c.parse::<u32>().ok()));
        }
        if tasks.processes > 100_000 {
            break;
        }
    }
    tasks
}

/// The bytes of a worker's scratch file (at most [`MAX_SCRATCH_FILE`], never through a
/// link: the box may have put anything there), which is removed.
fn take_file(path: Option<&Path>) -> Option<Vec<u8>> {
    let path = path?;
    let bytes = crate::process::open_box_file(path, false).and_then(|f| {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::Read::take(f, MAX_SCRATCH_FILE), &mut bytes).ok().map(|_| bytes)
    });
    let _ = std::fs::remove_file(path);
    bytes
}

/// The most the host reads of a file a worker wrote (a replay).
const MAX_SCRATCH_FILE: u64 = 1 << 30;

/// The last line of a worker's last words that is not blank.
fn last_line(words: &str) -> &str {
    words.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim()
}

/// A recorded replay's bytes as a replay, when one was asked for.
fn read_replay<G: Game>(record: bool, recorded: Option<Vec<u8>>) -> Result<Option<Replay<G>>, String> {
    match (record, recorded) {
        (false, _) => Ok(None),
        (true, Some(b)) => Replay::from_bytes(&b).map(Some).map_err(|e| format!("the worker's replay: {e}")),
        (true, None) => Err("the worker wrote no replay".to_owned()),
    }
}

/// A game's outcome, and its replay when one was asked for.
pub type Played<G> = (Outcome, Option<Replay<G>>);

/// How a lockstep game went.
enum Lockstepped<G: Game> {
    /// Played to its end; `out`: the seats whose worker crashed or hung.
    Played { outcome: Outcome, replay: Option<Box<Replay<G>>>, out: Vec<usize> },
    /// A worker of several seats failed: play again with a process per seat.
    Regroup,
}

/// One process of a lockstep game (number 0 is the referee).
struct Proc {
    running: Running,
    /// Its standard input.
    feed: Feeder,
    /// The seats it plays (none for the referee).
    seats: Vec<usize>,
    nonce: u64,
    answer: Option<GameResponse>,
    /// It died or was killed.
    ended: bool,
    /// A call that seemed over at the last look (the blame page watchdog's two-look rule).
    suspect: Option<(usize, u64)>,
    /// The call of its seat the referee waits for, as the host times it.
    awaited: Option<Awaited>,
    /// It has loaded its entries (said "ready"; a kept worker has): a call is not timed
    /// before, since a new box may still be starting when the referee (perhaps a kept
    /// one) already waits for its first call.
    ready: bool,
    /// A call the referee waits for before the process was ready, timed once it is.
    deferred: Option<(u64, u64, bool)>,
}

/// A call of a seat that the referee waits for: timed by the host from the moment the
/// referee said so, on the seat's process's own counters (nothing the bot can write).
struct Awaited {
    /// Calls of the seat played before it.
    call: u64,
    /// The calls asked for together with it (served mode: its batch), which share one
    /// limit per call.
    batch: u64,
    /// A program bot's call: the worker keeps its deadline on the program's own time;
    /// the host holds it to the wall-clock backstop only.
    times_itself: bool,
    /// When the referee said so (monotonic nanoseconds), and the playing thread's own
    /// time then.
    started: u64,
    own_start: Option<u64>,
    /// It seemed over at the last look (the two-look rule: a wait for a CPU shows only
    /// once the thread has run again).
    suspect: bool,
    /// A batch's last progress: the playing thread's CPU time, and its own time then.
    progress: Option<(u64, u64)>,
}

impl Proc {
    /// The referee waits for this seat's call after `call` of its calls.
    fn await_call(&mut self, call: u64, batch: u64, times_itself: bool) {
        if !self.ready {
            self.deferred = Some((call, batch, times_itself));
            return;
        }
        if self.awaited.as_ref().is_some_and(|a| a.call == call) {
            return;
        }
        let started = crate::clock::monotonic_nanos();
        let own_start = self.running.player_probe().and_then(|p| p.own(started));
        self.awaited = Some(Awaited { call, batch, times_itself, started, own_start, suspect: false, progress: None });
    }

    /// The verdict when the process is stuck: the call the referee awaits has used its
    /// limit plus a [`grace`] of its own time (or reached the wall-clock backstop); else
    /// what its own blame page says (which a bot can write: it can only frame itself).
    /// A stopped process is resumed first (only its own box could have stopped it, or
    /// someone outside every box; the time it stood counts until this look).
    fn stuck(&mut self, limit: Duration) -> Option<Blamed> {
        self.running.resume_if_stopped();
        if let Some(a) = &mut self.awaited {
            let now = crate::clock::monotonic_nanos();
            if a.own_start.is_none()
                && let Some(own) = self.running.player_probe().and_then(|p| p.own(now))
            {
                // The playing thread was not there to read when the referee said so (the
                // worker was still starting): the call is timed from now, in its favour.
                a.started = now;
                a.own_start = Some(own);
            }
            let elapsed = now.saturating_sub(a.started);
            // A batch of calls has a limit per call, and one grace.
            let calls = u32::try_from(a.batch).unwrap_or(u32::MAX).max(1);
            let backstop = crate::clock::backstop(limit.saturating_mul(calls)).as_nanos() as u64;
            let allowed = (limit.saturating_mul(calls) + grace(limit)).as_nanos() as u64;
            let one_call = (limit + grace(limit)).as_nanos() as u64;
            // A batch is allowed its calls' limits while it computes; a playing thread that
            // ran no code for a call's limit of its own time (it blocks: a bot that cleared
            // its page and sleeps) is ended then, not at the batch's end.
            if calls > 1 && !a.times_itself && elapsed >= one_call {
                let sample = self.running.player_probe().and_then(|p| Some((p.read()?.cpu, p.own(now)?)));
                if let Some((cpu, own)) = sample {
                    match a.progress {
                        Some((last, since)) if last == cpu && own.saturating_sub(since) >= one_call => {
                            let still = own.saturating_sub(since) as f64 / 1e9;
                            return Some(Blamed {
                                verdict: "hung in a call past its time limit".to_owned(),
                                measured: Some(format!(
                                    "{still:.2} s of its own time without running; its limit {:.2} s",
                                    limit.as_secs_f64()
                                )),
                            });
                        }
                        Some((last, _)) if last == cpu => {}
                        _ => a.progress = Some((cpu, own)),
                    }
                }
            }
            let mut used = None;
            let over = if elapsed >= backstop {
                true
            } else if elapsed < allowed || a.times_itself {
                a.suspect = false;
                false
            } else {
                let probe = self.running.player_probe();
                used = match (probe, a.own_start) {
                    (Some(p), Some(start)) => p.own(now).map(|own| own.saturating_sub(start)),
                    _ => None,
                };
                if used.unwrap_or(elapsed) < allowed {
                    a.suspect = false;
                    false
                } else if a.suspect {
                    !self.running.player_probe().is_some_and(TaskProbe::waiting)
                } else {
                    a.suspect = true;
                    if let Some(p) = self.running.player_probe() {
                        p.mark();
                    }
                    false
                }
            };
            if over {
                let measured = match used {
                    Some(used) if elapsed < backstop => format!("{:.2} s of its own time", used as f64 / 1e9),
                    _ => format!("{:.2} s of wall-clock time", elapsed as f64 / 1e9),
                };
                let measured = format!("{measured}; its limit {:.2} s", limit.as_secs_f64());
                return Some(Blamed {
                    verdict: "hung in a call past its time limit".to_owned(),
                    measured: Some(measured),
                });
            }
        }
        self.running.stuck(&mut self.suspect)
    }
}

/// The host's end of a lockstep process's standard input. A line goes out at once when
/// nothing waits before it and the pipe has room; else through a thread of its own, so
/// that a process that stops reading never blocks the host (the lines wait in memory;
/// the process is ended when its call is late).
struct Feeder {
    lines: mpsc::Sender<String>,
    /// Lines sent and not yet written.
    pending: Arc<AtomicU64>,
    /// The pipe, which never blocks a write (a full pipe leaves the rest to the thread).
    pipe: Arc<std::fs::File>,
}

impl Feeder {
    fn new(stdin: std::os::fd::OwnedFd) -> Feeder {
        let (send, lines) = mpsc::channel::<String>();
        let pending = Arc::new(AtomicU64::new(0));
        let written = Arc::clone(&pending);
        let pipe = Arc::new(std::fs::File::from(stdin));
        let _ = crate::process::set_nonblocking(&pipe);
        let thread_pipe = Arc::clone(&pipe);
        std::thread::spawn(move || {
            // Whatever has come meanwhile goes out in one write.
            while let Ok(mut chunk) = lines.recv() {
                let mut n = 1;
                while let Ok(line) = lines.try_recv() {
                    chunk.push_str(&line);
                    n += 1;
                }
                if crate::process::write_all_waiting(&thread_pipe, chunk.as_bytes()).is_err() {
                    break;
                }
                written.fetch_sub(n, Ordering::SeqCst);
            }
        });
        Feeder { lines: send, pending, pipe }
    }

    fn send(&self, line: String) {
        // Only this thread sends: with nothing pending, the writing thread is idle and
        // the pipe is this one's to write now.
        let mut rest = line.as_str();
        if self.pending.load(Ordering::SeqCst) == 0 {
            match (&*self.pipe).write(rest.as_bytes()) {
                Ok(n) if n == rest.len() => return,
                Ok(n) => rest = &rest[n..],
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                // The process is gone: its closed pipe says so elsewhere.
                Err(_) => return,
            }
        }
        self.pending.fetch_add(1, Ordering::SeqCst);
        let _ = self.lines.send(rest.to_owned());
    }

    /// Every line sent has been written: the worker may be given to the next game
    /// (whose feeder then writes alone to its input).
    fn idle(&self) -> bool {
        self.pending.load(Ordering::SeqCst) == 0
    }
}

/// A duplicate of the descriptor of a worker's standard input.
fn proc_stdin(running: &Running) -> Result<std::os::fd::OwnedFd, String> {
    use std::os::fd::AsFd;
    running.requests.as_fd().try_clone_to_owned().map_err(|e| format!("cannot feed a lockstep worker: {e}"))
}

/// Passes a line of process `from` to every other process still playing, at once: the
/// next call's entry may need it (holding lines for a seat's process until the referee
/// waits for that seat put the referee on every call's path, and cost more than the
/// wake-ups it saved).
fn pass_on(procs: &mut [Proc], from: usize, line: &str) {
    for (w, p) in procs.iter_mut().enumerate() {
        if w != from && !p.ended && p.answer.is_none() {
            p.feed.send(line.to_owned());
        }
    }
}

/// Puts seat `s` out of a lockstep game in every process still playing.
fn put_out(procs: &mut [Proc], out: &mut [Option<String>], s: usize, reason: String) {
    pass_on(procs, usize::MAX, &lockstep::out_line(s, &reason));
    out[s] = Some(reason);
}

impl<G: Game> Drop for Worker<G> {
    fn drop(&mut self) {
        for (_, r) in self.kept.drain(..) {
            r.end();
        }
        if let Some(r) = self.running.take() {
            // Between games a worker holds nothing worth waiting for (logs are written
            // as they come): it is killed with its group, then reaped.
            r.end();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Sends a request and waits for its answer, killing the worker when a call is stuck:
/// when it has used its budget plus a [`grace`] of its **own** time (`crate::clock`:
/// the wall time less the time the worker's playing thread waited for a CPU, read from
/// that thread's counters), so a worker that is only waiting for a core on a loaded
/// machine is never mistaken for a stuck one; or, whatever the counters say, at the
/// wall-clock backstop ([`crate::clock::backstop`]). A call to a bot that keeps its own
/// deadline (a program bot) is held to the backstop only.
/// What `line` says of `request`: its answer, or why the line that carries its nonce
/// is not one (`None`: the line is not about it).
fn answer_to(request: &GameRequest, line: &str) -> Option<Result<GameResponse, String>> {
    match serde_json::from_str::<GameAnswer>(line) {
        Ok(answer) if answer.nonce == request.nonce => Some(Ok(answer.response)),
        Ok(_) => None,
        Err(e) => {
            let nonce = serde_json::from_str::<serde_json::Value>(line)
                .ok()
                .and_then(|v| v.get("nonce").and_then(serde_json::Value::as_u64));
            (nonce == Some(request.nonce)).then(|| Err(format!("the worker answered nonsense ({e})")))
        }
    }
}

fn watch(mut r: Running, request: &GameRequest, limit: Duration) -> (Running, Watched) {
    let line = serde_json::to_string(request).expect("a request serialises") + "\n";
    if r.requests.write_all(line.as_bytes()).and_then(|()| r.requests.flush()).is_err() {
        r.kill();
        return (r, Watched::Lost);
    }
    let Some(answers) = r.answers.take() else {
        r.kill();
        return (r, Watched::Lost);
    };
    r.last_progress = None;
    // A call that seemed over at the last look: (entry, call).
    let mut suspect: Option<(usize, u64)> = None;
    let watched = loop {
        match answers.recv_timeout(Duration::from_millis(5)) {
            // Only the line that carries this request's nonce is its answer.
            Ok((_, Some(lines))) => {
                if let Some(answered) = lines.iter().find_map(|line| answer_to(request, line)) {
                    break Watched::Answered(answered);
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Ok((_, None)) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                // Its group (what it forked) goes with it, before its pid is released.
                r.kill();
                break Watched::Lost;
            }
        }
        r.resume_if_stopped();
        if r.stuck(&mut suspect).is_some() || r.stalled(limit).is_some() {
            r.kill();
            break Watched::Lost;
        }
    };
    r.answers = Some(answers);
    (r, watched)
}

impl Running {
    /// Kills the worker with its group and reaps it.
    fn kill(&mut self) -> ExitStatus {
        kill_group(&mut self.child);
        self.child.wait().unwrap_or_else(|_| ExitStatus::default())
    }

    /// Looks at the call in progress on the worker's blame page: the verdict when it is
    /// stuck (the caller kills the worker), when it has used its budget plus a [`grace`]
    /// of its **own** time, or reached the wall-clock backstop. `suspect` carries the
    /// call that seemed over at the last look, since a wait for a CPU shows in the
    /// counters only once the thread has run again.
    fn stuck(&mut self, suspect: &mut Option<(usize, u64)>) -> Option<Blamed> {
        let c = self.blame.current()?;
        let budget = c.budget?;
        let now = crate::clock::monotonic_nanos();
        let elapsed = now.saturating_sub(c.started);
        let limit = Duration::from_nanos(budget);
        let backstop = crate::clock::backstop(limit).as_nanos() as u64;
        // The own time used, read (from the playing thread's counters) only when the wall
        // time says the call may be over: own time never runs faster than wall time.
        let mut used = None;
        let stuck = if elapsed >= backstop {
            true
        } else if c.flags & BlamePage::TIMES_ITSELF != 0 {
            false
        } else {
            let allowed = budget.saturating_add(grace(limit).as_nanos() as u64);
            if elapsed >= allowed {
                used = self.own_used(&c, now);
            }
            let over = elapsed >= allowed && used.unwrap_or(elapsed) >= allowed;
            // The playing thread's counters show a wait for a CPU only once it has run
            // again: when the call seems over, note its CPU time and decide at the next
            // look (5 ms on), unless it was still only waiting then.
            match (over, *suspect) {
                (false, _) => {
                    *suspect = None;
                    false
                }
                (true, Some(s)) if s == (c.entry, c.call) => !self.player.as_mut().is_some_and(TaskProbe::waiting),
                (true, _) => {
                    *suspect = Some((c.entry, c.call));
                    if let Some(p) = self.player.as_mut() {
                        p.mark();
                    }
                    self.player.is_none()
                }
            }
        };
        if !stuck {
            return None;
        }
        let verdict = if c.flags & BlamePage::BANK != 0 {
            "ran out of its time bank in a call"
        } else {
            "hung in a call past its time limit"
        };
        let measured = match used {
            Some(used) if elapsed < backstop => format!("{:.2} s of its own time", used as f64 / 1e9),
            _ => format!("{:.2} s of wall-clock time", elapsed as f64 / 1e9),
        };
        let measured = format!("{measured}; its limit {:.2} s", limit.as_secs_f64());
        Some(Blamed { verdict: verdict.to_owned(), measured: Some(measured) })
    }
}

/// How much own time past its budget a call may run before the watchdog ends it: 5% of
/// the budget, at least 10 ms and at most 250 ms (a call that returns past its budget
/// but within this is an overrun, decided by the worker itself).
pub fn grace(budget: Duration) -> Duration {
    (budget / 20).clamp(Duration::from_millis(10), Duration::from_millis(250))
}

impl Running {
    /// The own time the call in progress has used, from its playing thread's counters
    /// (`None` when they cannot be read, or the worker's clock is not on their scale).
    fn own_used(&mut self, call: &crate::limits::CallInProgress, now: u64) -> Option<u64> {
        if call.own_origin == 0 {
            return None;
        }
        let own = self.player_probe()?.own(now)?;
        Some(own.saturating_sub(call.own_origin))
    }
}

impl Running {
    /// The verdict when the worker's playing thread has run no code for the wall-clock
    /// backstop of a call (`limit`), whatever its blame page says: a worker in a game
    /// always computes, or waits for a bot's call (a native call is ended sooner on its
    /// own time; a program call wakes the worker within its deadline). A bot that clears
    /// or forges the page of a shared worker and then blocks is caught so: the worker is
    /// ended and the game played again in lockstep, where the host times each call from
    /// the referee's word and names the culprit.
    fn stalled(&mut self, limit: Duration) -> Option<Blamed> {
        let now = crate::clock::monotonic_nanos();
        let cpu = self.player_probe()?.read()?.cpu;
        match self.last_progress {
            Some((last, since)) if last == cpu => {
                let still = now.saturating_sub(since);
                (still >= crate::clock::backstop(limit).as_nanos() as u64).then(|| Blamed {
                    verdict: "stalled in a game (its worker ran no code)".to_owned(),
                    measured: Some(format!("{:.2} s of wall-clock time", still as f64 / 1e9)),
                })
            }
            _ => {
                self.last_progress = Some((cpu, now));
                None
            }
        }
    }

    /// The counters of the worker's playing thread (found on first use).
    fn player_probe(&mut self) -> Option<&mut TaskProbe> {
        if self.player.is_none()
            && let Some((pid, probe)) = player_task(self.child.id())
        {
            self.player = Some(probe);
            self.player_pid = Some(pid);
        }
        self.player.as_mut()
    }

    /// Resumes the worker if it is stopped (SIGSTOP, SIGTSTP, ...): a stopped worker
    /// would otherwise stand until its call's time ran out.
    fn resume_if_stopped(&mut self) {
        if self.player_probe().and_then(|p| p.state()) == Some(b'T')
            && let Some(pid) = self.player_pid.and_then(|p| i32::try_from(p).ok())
        {
            // SAFETY: a plain syscall; the pid is the unreaped worker's (its box's).
            unsafe {
                libc::kill(pid, libc::SIGCONT);
            }
        }
    }
}

/// The thread that plays a worker's games: the worker's main thread (in a box, the
/// main thread of the process bwrap started), with its pid.
fn player_task(root: u32) -> Option<(u32, TaskProbe)> {
    let me = std::env::current_exe().ok()?;
    let mut pid = root;
    for _ in 0..4 {
        if std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|exe| exe == me) {
            return TaskProbe::open(pid, pid).map(|p| (pid, p));
        }
        let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).ok()?;
        pid = children.split_ascii_whitespace().next()?.parse().ok()?;
    }
    None
}

/// The worker's side: plays each [`GameRequest`] read from `requests` with `entries`
/// (each bot under its time bank and per-call limit, its calls announced on `blame`) and
/// writes one [`GameResponse`] line per game to `answers`, until `requests` ends.
pub fn serve<G: Game>(
    entries: &[Entry<G>],
    blame: &BlamePage,
    bank: TimeBank,
    call_limit: Duration,
    requests: impl Read,
    mut answers: impl Write,
) -> std::io::Result<()> {
    let mut requests = std::io::BufReader::with_capacity(1 << 16, requests);
    let output = lockstep::Output::new(&mut answers);
    output.write(READY);
    let mut line = String::new();
    loop {
        line.clear();
        if requests.read_line(&mut line)? == 0 {
            return Ok(());
        }
        // Only requests are JSON objects (a lockstep line left over is not one).
        if !line.trim_start().starts_with('{') {
            continue;
        }
        let (nonce, response) = match serde_json::from_str::<GameRequest>(&line) {
            Ok(request) => {
                let response = match &request.lockstep {
                    Some(ls) => lockstep::play(entries, blame, bank, call_limit, &request, ls, &mut requests, &output),
                    None => play_request(entries, blame, bank, call_limit, &request),
                };
                (request.nonce, response)
            }
            Err(e) => (0, GameResponse::Failed(format!("a bad request ({e})"))),
        };
        let text = serde_json::to_string(&GameAnswer { nonce, response }).expect("a response serialises");
        output.write(&(text + "\n"));
    }
}

fn play_request<G: Game>(
    entries: &[Entry<G>],
    blame: &BlamePage,
    bank: TimeBank,
    call_limit: Duration,
    request: &GameRequest,
) -> GameResponse {
    let Some(seated) = request.seats.iter().map(|&i| entries.get(i).cloned()).collect::<Option<Vec<_>>>() else {
        return GameResponse::Failed(format!("seats {:?} out of range", request.seats));
    };
    let wrap = |i: usize, bot| {
        let guarded = Guarded::new(bot, i, Some(bank), Some(blame)).with_call_limit(Some(call_limit));
        Box::new(guarded) as Box<dyn Bot<G> + '_>
    };
    play_as_requested(&seated, request, wrap)
}

/// Plays `seated` with `request`'s seed and options, each bot passed through `wrap`,
/// recorded into `request`'s replay file when it names one: the worker's response, in
/// a shared game and in a lockstep one alike.
fn play_as_requested<'a, G: Game>(
    seated: &[Entry<G>],
    request: &GameRequest,
    wrap: impl Fn(usize, Box<dyn Bot<G>>) -> Box<dyn Bot<G> + 'a>,
) -> GameResponse {
    let config: G::Config = match serde_json::from_value(request.config.clone()) {
        Ok(c) => c,
        Err(e) => return GameResponse::Failed(format!("bad game options ({e})")),
    };
    let outcome = match &request.replay {
        Some(path) => {
            let (outcome, recorded) = crate::play::play_recorded_with(seated, request.seed, &config, wrap);
            if let Err(e) = std::fs::write(path, recorded.to_bytes()) {
                return GameResponse::Failed(format!("{}: cannot write the replay: {e}", path.display()));
            }
            outcome
        }
        None => crate::play::play_game_with(seated, request.seed, &config, wrap),
    };
    GameResponse::Played(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flood_on_stderr_keeps_only_its_last_64_kib() {
        let mut flood = vec![b'x'; 5 << 20];
        flood.extend_from_slice(b"\nthe last words\n");
        let tail = StderrTail::drain(std::io::Cursor::new(flood)).last_words();
        assert_eq!(tail.len(), StderrTail::KEPT);
        assert!(tail.ends_with("x\nthe last words\n"));
    }
}
