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
//! The host watches: if the worker dies, or a call outlives its deadline by more than a
//! grace, it kills the worker and knows whom to blame. It plays that game again from its
//! seed, in a fresh worker, with that entry cut off at that call (its players stay from
//! then on; it is disqualified for that game, with the reason). Everything before the
//! cut is identical, because games are deterministic; the games before and after, in the
//! old worker and the new, are not affected. A verdict the worker reaches itself (a bank
//! spent between calls, a call answered late) is in its outcome: no second game.
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
use crate::limits::{BlamePage, Cut, Guarded, TimeBank};
use crate::loaders::native::LibraryInfo;
use crate::process::kill_group;
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
    /// Entries (by seat) cut off at a call.
    pub cuts: Vec<Cut>,
    /// Record the game's replay to this file.
    pub replay: Option<PathBuf>,
    /// A number drawn by the host for this request, which the answer must carry: a
    /// line that does not is not the answer (a stray or forged line is ignored).
    #[serde(default)]
    pub nonce: u64,
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
    crate::tournament::splitmix64(x).max(1)
}

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
        // Under bwrap the worker's death by signal N comes back as bwrap's 128 + N.
        Some(code @ 129..=159) => format!(
            "exit status {code} in its sandbox (killed by signal {} ({}))",
            code - 128,
            crate::process::signal_name(code - 128)
        ),
        Some(code) => format!("exit status {code}"),
        None => "an unknown end".to_owned(),
    }
}

/// Loads a library in a child process and says what it is, without the host ever
/// running the library's code.
pub fn probe<G: Game>(iso: &Isolation, path: &Path) -> Result<Entry<G>, String> {
    let out = scratch_file(&iso.scratch, "probe");
    let mut cmd = crate::process::helper_command(&iso.program, &iso.sandbox, &[&iso.scratch]);
    let cap = crate::process::confine_helper(&mut cmd, iso.memory, iso.processes);
    let mut child = cmd
        .args(["__probe"])
        .arg(path)
        .arg("--out")
        .arg(&out)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start a probe process: {e}"))?;
    if let Some(cap) = &cap {
        cap.admit(child.id());
    }
    let started = Instant::now();
    while !crate::process::has_ended(&child) {
        if started.elapsed() > PROBE_TIME {
            kill_group(&mut child);
            let _ = child.wait();
            let _ = std::fs::remove_file(&out);
            return Err(format!("hung while loading (over {} s)", PROBE_TIME.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    // Whatever the library forked while loading goes with it.
    kill_group(&mut child);
    let status = child.wait().map_err(|e| format!("cannot watch the probe: {e}"))?;
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
    /// Workers started so far (1 unless some died).
    pub started: u32,
    _game: PhantomData<fn() -> G>,
}

/// A worker process and the host's ends of its pipes.
#[derive(Debug)]
struct Running {
    child: Child,
    requests: ChildStdin,
    answers: mpsc::Receiver<String>,
    blame: BlamePage,
    blame_path: PathBuf,
    stderr: StderrTail,
    /// The worker's process cap; dropped (what is left in it killed) after the worker.
    cap: Option<crate::process::ProcessCap>,
    /// The worker's playing thread (found when first needed).
    player: Option<TaskProbe>,
}

impl Running {
    /// Kills the worker and removes its scratch files; returns its last words.
    fn end(mut self) -> String {
        kill_group(&mut self.child);
        let _ = self.child.wait();
        // What left the group but not the control group, which may hold the stderr.
        drop(self.cap.take());
        let _ = std::fs::remove_file(&self.blame_path);
        self.stderr.last_words()
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
    fn last_words(self) -> String {
        let deadline = Instant::now() + Duration::from_millis(500);
        while !self.reader.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(2));
        }
        let kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        let tail = &kept[kept.len().saturating_sub(Self::KEPT)..];
        String::from_utf8_lossy(tail).into_owned()
    }
}

/// How a game in a worker went, as the host saw it.
enum Watched {
    /// The answer to the request (or why the line carrying its nonce is not one).
    Answered(Result<GameResponse, String>),
    /// The worker died or was killed: whom to blame, its exit.
    Lost(Option<Blamed>, ExitStatus),
}

/// The call a worker's death is blamed on.
struct Blamed {
    entry: usize,
    call: u64,
    /// The verdict: "crashed (...)", "hung in a call past its time limit".
    verdict: String,
    /// What was measured, for a watchdog's verdict: "0.52 s of its own time; ...".
    measured: Option<String>,
}

impl<G: Game> Worker<G> {
    /// A worker for `entries` (not started until its first game).
    pub fn new(iso: Arc<Isolation>, entries: &[Entry<G>]) -> Worker<G> {
        let files = entries.iter().map(|e| e.source.clone()).collect();
        let dir = scratch_file(&iso.scratch, "worker");
        Worker { iso, files, running: None, dir, started: 0, _game: PhantomData }
    }

    fn start(&mut self) -> Result<Running, String> {
        let iso = &self.iso;
        std::fs::create_dir_all(&self.dir).map_err(|e| format!("cannot create {}: {e}", self.dir.display()))?;
        let blame_path = scratch_file(&self.dir, "blame");
        let blame = BlamePage::create(&blame_path).map_err(|e| format!("cannot create the blame page: {e}"))?;
        let mut cmd = crate::process::helper_command(&iso.program, &iso.sandbox, &[&self.dir]);
        let cap = crate::process::confine_helper(&mut cmd, iso.memory, iso.processes);
        cmd.args(&iso.args)
            .args(["--game", G::NAME])
            .arg("__worker")
            .arg("--blame")
            .arg(&blame_path)
            .args(["--bank-ms", &iso.bank.initial.as_millis().to_string()])
            .args(["--bank-per-turn-ms", &iso.bank.per_turn.as_millis().to_string()])
            .args(["--call-limit-ms", &iso.call_limit.as_millis().to_string()]);
        // The worker loads exactly these files (never the directories again: a file
        // that failed its probe must not be loaded by a worker either).
        for f in &self.files {
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
        let (send, answers) = mpsc::channel();
        std::thread::spawn(move || {
            let mut out = std::io::BufReader::new(out);
            loop {
                let mut line = Vec::new();
                match (&mut out).take(MAX_ANSWER_LINE).read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                if line.last() != Some(&b'\n') {
                    // Cut off: drop the rest of this line.
                    let mut rest = Vec::new();
                    let _ = out.read_until(b'\n', &mut rest);
                    continue;
                }
                let Ok(line) = String::from_utf8(line) else { continue };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        self.started += 1;
        Ok(Running { child, requests, answers, blame, blame_path, stderr, cap, player: None })
    }

    /// Plays one game with the entries `seats` (indices into this worker's entries, in
    /// seat order), cutting off entries that crash or hang, and records its replay if
    /// asked. `Err` only when the worker fails outside any bot's call (nobody to blame).
    pub fn play(
        &mut self,
        seats: &[usize],
        seed: u64,
        config: &G::Config,
        record: bool,
    ) -> Result<(Outcome, Option<Replay<G>>), String> {
        let config = serde_json::to_value(config).map_err(|e| format!("cannot write the game's options: {e}"))?;
        let mut cuts: Vec<Cut> = Vec::new();
        loop {
            let running = match self.running.take() {
                Some(r) => r,
                None => self.start()?,
            };
            let replay = record.then(|| scratch_file(&self.dir, "replay"));
            let request = GameRequest {
                seed,
                config: config.clone(),
                seats: seats.to_vec(),
                cuts: cuts.clone(),
                replay: replay.clone(),
                nonce: fresh_nonce(),
            };
            let (running, watched) = watch(running, &request);
            match watched {
                Watched::Answered(response) => {
                    self.running = Some(running);
                    let recorded = replay.as_ref().and_then(|p| {
                        let bytes = std::fs::read(p).ok();
                        let _ = std::fs::remove_file(p);
                        bytes
                    });
                    return match response {
                        Ok(GameResponse::Played(outcome)) => {
                            let replay = match (record, recorded) {
                                (false, _) => None,
                                (true, Some(b)) => {
                                    Some(Replay::from_bytes(&b).map_err(|e| format!("the worker's replay: {e}"))?)
                                }
                                (true, None) => return Err("the worker wrote no replay".to_owned()),
                            };
                            Ok((outcome, replay))
                        }
                        Ok(GameResponse::Failed(reason)) => Err(reason),
                        Err(e) => Err(e),
                    };
                }
                Watched::Lost(blamed, status) => {
                    if let Some(p) = &replay {
                        let _ = std::fs::remove_file(p);
                    }
                    let last_words = running.end();
                    let Some(Blamed { entry, call, verdict, measured }) = blamed else {
                        let line = last_words.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
                        return Err(format!(
                            "the game worker failed outside any bot ({}): {line}",
                            describe_exit(status)
                        ));
                    };
                    if entry >= seats.len() || cuts.iter().any(|c| c.entry == entry) || cuts.len() >= seats.len() {
                        return Err(format!("the game worker failed again and again (last: entry {entry}, {verdict})"));
                    }
                    let reason = match measured {
                        Some(measured) => format!("{verdict} at its call {call} ({measured})"),
                        None => format!("{verdict} at its call {call}"),
                    };
                    cuts.push(Cut { entry, after_calls: call, reason });
                }
            }
        }
    }
}

impl<G: Game> Drop for Worker<G> {
    fn drop(&mut self) {
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
fn watch(mut r: Running, request: &GameRequest) -> (Running, Watched) {
    let line = serde_json::to_string(request).expect("a request serialises") + "\n";
    if r.requests.write_all(line.as_bytes()).and_then(|()| r.requests.flush()).is_err() {
        kill_group(&mut r.child);
        let status = r.child.wait().unwrap_or_else(|_| std::process::ExitStatus::default());
        return (r, Watched::Lost(None, status));
    }
    // A call that seemed over at the last look: (entry, call).
    let mut suspect: Option<(usize, u64)> = None;
    loop {
        match r.answers.recv_timeout(Duration::from_millis(5)) {
            // Only the line that carries this request's nonce is its answer.
            Ok(line) => match serde_json::from_str::<GameAnswer>(&line) {
                Ok(answer) if answer.nonce == request.nonce => return (r, Watched::Answered(Ok(answer.response))),
                Ok(_) => {}
                Err(e) => {
                    let nonce = serde_json::from_str::<serde_json::Value>(&line)
                        .ok()
                        .and_then(|v| v.get("nonce").and_then(serde_json::Value::as_u64));
                    if nonce == Some(request.nonce) {
                        return (r, Watched::Answered(Err(format!("the worker answered nonsense ({e})"))));
                    }
                }
            },
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                // Its group (what it forked) goes with it, before its pid is released.
                kill_group(&mut r.child);
                let status = r.child.wait().unwrap_or_else(|_| std::process::ExitStatus::default());
                let blamed = r.blame.current().map(|c| Blamed {
                    entry: c.entry,
                    call: c.call,
                    verdict: format!("crashed ({})", describe_exit(status)),
                    measured: None,
                });
                return (r, Watched::Lost(blamed, status));
            }
        }
        let Some(c) = r.blame.current() else { continue };
        let Some(budget) = c.budget else { continue };
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
                used = r.own_used(&c, now);
            }
            let over = elapsed >= allowed && used.unwrap_or(elapsed) >= allowed;
            // The playing thread's counters show a wait for a CPU only once it has run
            // again: when the call seems over, note its CPU time and decide at the next
            // look (5 ms on), unless it was still only waiting then.
            match (over, suspect) {
                (false, _) => {
                    suspect = None;
                    false
                }
                (true, Some(s)) if s == (c.entry, c.call) => !r.player.as_mut().is_some_and(TaskProbe::waiting),
                (true, _) => {
                    suspect = Some((c.entry, c.call));
                    if let Some(p) = r.player.as_mut() {
                        p.mark();
                    }
                    r.player.is_none()
                }
            }
        };
        if stuck {
            kill_group(&mut r.child);
            let status = r.child.wait().unwrap_or_else(|_| std::process::ExitStatus::default());
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
            let blamed = Blamed { entry: c.entry, call: c.call, verdict: verdict.to_owned(), measured: Some(measured) };
            return (r, Watched::Lost(Some(blamed), status));
        }
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
        if self.player.is_none() {
            self.player = player_task(self.child.id());
        }
        let own = self.player.as_mut()?.own(now)?;
        Some(own.saturating_sub(call.own_origin))
    }
}

/// The thread that plays a worker's games: the worker's main thread (under bwrap, the
/// main thread of the process bwrap started).
fn player_task(root: u32) -> Option<TaskProbe> {
    let me = std::env::current_exe().ok()?;
    let mut pid = root;
    for _ in 0..4 {
        if std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|exe| exe == me) {
            return TaskProbe::open(pid, pid);
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
    requests: impl BufRead,
    mut answers: impl Write,
) -> std::io::Result<()> {
    for line in requests.lines() {
        let line = line?;
        let (nonce, response) = match serde_json::from_str::<GameRequest>(&line) {
            Ok(request) => (request.nonce, play_request(entries, blame, bank, call_limit, &request)),
            Err(e) => (0, GameResponse::Failed(format!("a bad request ({e})"))),
        };
        let text = serde_json::to_string(&GameAnswer { nonce, response }).expect("a response serialises");
        answers.write_all(text.as_bytes())?;
        answers.write_all(b"\n")?;
        answers.flush()?;
    }
    Ok(())
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
    let config: G::Config = match serde_json::from_value(request.config.clone()) {
        Ok(c) => c,
        Err(e) => return GameResponse::Failed(format!("bad game options ({e})")),
    };
    let wrap = |i: usize, bot| {
        let cut = request.cuts.iter().find(|c| c.entry == i).cloned();
        let guarded = Guarded::new(bot, i, Some(bank), cut, Some(blame)).with_call_limit(Some(call_limit));
        Box::new(guarded) as Box<dyn Bot<G> + '_>
    };
    let outcome = match &request.replay {
        Some(path) => {
            let (outcome, recorded) = crate::replay::play_recorded_with(&seated, request.seed, &config, wrap);
            if let Err(e) = std::fs::write(path, recorded.to_bytes()) {
                return GameResponse::Failed(format!("{}: cannot write the replay: {e}", path.display()));
            }
            outcome
        }
        None => crate::tournament::play_game_with(&seated, request.seed, &config, wrap),
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
