//! The host's [`Worker`]: a tournament thread's long-lived worker process (started at
//! its first game, again only after it died or was killed), the shared game played in
//! it, the choice of a lockstep game when it fails or an entry crashed before, and the
//! lockstep workers kept from one game to the next.
//!
//! The lockstep game itself is `lockstep_host`'s; watching a game is `watchdog`'s.

use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::sync::mpsc;

use crate::bot::Entry;
use crate::game::{Game, Outcome};
use crate::limits::BlamePage;
use crate::replay::Replay;

use super::Isolation;
use super::lockstep_host::Lockstepped;
use super::probe::PROBE_TIME;
use super::running::{Event, LineReader, Running, StderrTail, spawn_reader};
use super::scratch::{box_user, make_home, scratch_file, take_file};
use super::watchdog::{Tasks, Watched, settled_tree_tasks, tree_tasks, watch};
use super::wire::{GameRequest, GameResponse, READY, fresh_nonce};

/// A long-lived worker process for one tournament thread, started at its first game
/// and again only after it died or was killed.
#[derive(Debug)]
pub struct Worker<G: Game> {
    pub(super) iso: Arc<Isolation>,
    /// Every entry's file, in entry order (the worker loads them all, once).
    pub(super) files: Vec<PathBuf>,
    pub(super) running: Option<Running>,
    /// Its scratch directory (blame page, replays): its own, since under a sandbox
    /// that is all it may write besides the logs.
    pub(super) dir: PathBuf,
    /// Every entry's name, in entry order.
    pub(super) names: Vec<String>,
    /// Per entry: a script (Lua, Rhai), which cannot send a signal: a death by SIGKILL
    /// that the host did not send is then not its fault.
    pub(super) cannot_signal: Vec<bool>,
    /// Per entry: a program bot, whose calls the worker times itself (on the program's
    /// own time, not the worker's): the host holds them to the wall-clock backstop only.
    pub(super) times_itself: Vec<bool>,
    /// Lockstep workers kept from one game to the next, each with the files it loaded
    /// (the referee: none), the most recently used last: starting a box per entry per
    /// game would cost more than the game.
    pub(super) kept: Vec<(Vec<PathBuf>, Running)>,
    /// Per entry: it crashed or hung in a lockstep game (`lockstep`), so its games are
    /// played in lockstep from then on, with the entry in a process of its own.
    pub(super) crashers: Vec<bool>,
    /// Workers started so far (1 unless some died; lockstep games start their own).
    pub started: u32,
    _game: PhantomData<fn() -> G>,
}

/// How many lockstep workers a tournament thread keeps between games (the least
/// recently used one is ended past that).
pub(super) const KEPT_WORKERS: usize = 64;

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
        Worker {
            iso,
            files,
            names,
            times_itself,
            cannot_signal,
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
        let mut running = self.launch(&files, names, 0, Some(send), false)?;
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
    /// its lines go to `events`, tagged `tag`, or with no `events` (a lockstep game's
    /// process) are read by the game's loop itself ([`Running::lines`]). A seat's worker
    /// of a lockstep game (`lockstep_seat`) with one entry guards its programs as its
    /// filter guards it (`process::guard_programs`); a shared worker's box holds every
    /// entry's bots.
    pub(super) fn launch(
        &mut self,
        files: &[PathBuf],
        names: Vec<String>,
        tag: usize,
        events: Option<mpsc::Sender<Event>>,
        lockstep_seat: bool,
    ) -> Result<Running, String> {
        let iso = &self.iso;
        std::fs::create_dir_all(&self.dir).map_err(|e| format!("cannot create {}: {e}", self.dir.display()))?;
        let user = box_user(&iso.sandbox)?;
        let uid = user.as_ref().map(|u| u.uid);
        let home = make_home(&self.dir, "box", uid)?;
        let (blame_path, blame) = blame_page(&home, uid)?;
        // The worker's own cap, and beside it the room for its programs' caps (each
        // program's counts only its own processes, whatever the worker's natives fork);
        // a boxed worker may write that room and nothing else of /sys.
        let programs = crate::loaders::program::PROGRAM_PROCESSES.saturating_mul(files.len() as u32);
        let mut cap = crate::process::ProcessCap::with_programs(iso.processes, programs).ok();
        // Its memory group: the worker's memory, each program's it starts (they stay in
        // the worker's group: a boxed worker cannot make groups of the memory
        // controller), and its box's /tmp and /dev/shm. Where none can be made, the
        // worker has its RLIMIT_DATA alone.
        if let Some(cap) = cap.as_mut() {
            let programs = files.iter().filter(|f| crate::loaders::program::is_program(f)).count() as u64;
            let memory = programs
                .saturating_mul(crate::loaders::program::PROGRAM_MEMORY)
                .saturating_add(iso.memory)
                .saturating_add(crate::process::BOX_FILES_MEMORY);
            let _ = cap.cap_memory(memory);
        }
        if let (Some(cap), Some(uid)) = (&cap, uid) {
            cap.delegate(uid);
        }
        let mut cmd = self.worker_command(files, &home, &blame_path, cap.as_ref(), uid);
        if lockstep_seat
            && files.len() == 1
            && matches!(iso.sandbox, crate::process::Sandbox::Bwrap { .. })
            && crate::process::boxes_guarded()
        {
            cmd.env(crate::process::GUARD_PROGRAMS_ENV, "1");
            // Where the kernel cannot say who sent a SIGKILL, a worker that starts no
            // program refuses its bots every way to one of its own that its guard does
            // not see, so that its death by SIGKILL came from outside
            // (`lockstep_host::killed_from_outside`).
            if crate::process::SignalWitness::get().is_none() && !crate::loaders::program::is_program(&files[0]) {
                cmd.env(crate::process::REFUSE_SELF_KILLS_ENV, "1");
            }
        }
        // Its every task is the boxes' for the signal witness, before any runs a bot: it
        // is forked by a thread that is (`SignalWitness::join_thread`).
        if let Some(witness) = crate::process::SignalWitness::get() {
            witness.join_thread().map_err(|e| format!("cannot join the signal witness: {e}"))?;
        }
        let machine_oom = crate::process::MachineOom::watch(cap.as_ref());
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
        let lines = match events {
            Some(events) => {
                spawn_reader(out, tag, events);
                None
            }
            None => Some(LineReader::new(out).map_err(|e| format!("cannot read a worker's output: {e}"))?),
        };
        self.started += 1;
        let logs = iso.logs.clone();
        let at_rest = Tasks::default();
        Ok(Running {
            child,
            requests,
            answers: None,
            lines,
            blame,
            stderr,
            cap,
            machine_oom,
            player: None,
            chain: Vec::new(),
            home,
            logs,
            names,
            at_rest,
            last_progress: None,
            _user: user,
        })
    }

    /// The command that starts a worker loading `files` in its box `home` (its blame
    /// page at `blame`), under its process cap `cap` and the uid `uid` its box runs as.
    fn worker_command(
        &self,
        files: &[PathBuf],
        home: &Path,
        blame: &Path,
        cap: Option<&crate::process::ProcessCap>,
        uid: Option<u32>,
    ) -> std::process::Command {
        let iso = &self.iso;
        let room = cap.and_then(|c| c.programs_dir());
        let own_tasks = cap.and_then(|c| c.own_tasks());
        let writable: Vec<&Path> = std::iter::once(home).chain(room).chain(own_tasks.as_deref()).collect();
        let files: Vec<PathBuf> = files.iter().map(|f| std::path::absolute(f).unwrap_or_else(|_| f.clone())).collect();
        // A program's directory of its own files is bound into the box beside it.
        let own: Vec<PathBuf> = files
            .iter()
            .filter(|f| crate::loaders::program::is_program(f))
            .filter_map(|f| crate::loaders::program::files_dir(f))
            .collect();
        let bound: Vec<PathBuf> = files.iter().chain(&own).cloned().collect();
        let mut cmd = crate::process::helper_command(&iso.program, &iso.sandbox, &bound, &writable);
        crate::process::confine_helper(&mut cmd, iso.memory, iso.processes, cap, uid, &iso.sandbox);
        if let Some(room) = room {
            cmd.env(crate::process::PROGRAMS_ENV, room);
        }
        // Where the kernel says who sent a signal, the worker leaves its signals to take
        // their course, and the host asks (`lockstep_host::killed_from_outside`).
        if crate::process::SignalWitness::get().is_some() {
            cmd.env(super::signals::WITNESSED_ENV, "1");
        }
        // A worker never traces signals itself (an unboxed worker of a root host could):
        // the host's witness judges the deaths of its programs too.
        cmd.env(crate::process::NO_WITNESS_ENV, "1");
        cmd.env(crate::loaders::log::PENDING_ENV, home.join("pending"));
        cmd.args(&iso.args)
            .arg("--logs")
            .arg(home.join("logs"))
            .args(["--game", G::NAME])
            .arg("__worker")
            .arg("--blame")
            .arg(blame)
            .args(["--bank-ms", &iso.bank.initial.as_millis().to_string()])
            .args(["--bank-per-turn-ms", &iso.bank.per_turn.as_millis().to_string()])
            .args(["--call-limit-ms", &iso.call_limit.as_millis().to_string()]);
        // The worker loads exactly these files (never the directories again: a file
        // that failed its probe must not be loaded by a worker either).
        for f in &files {
            cmd.arg("--entry").arg(f);
        }
        cmd
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
                if settled_tree_tasks(running.child.id(), running.at_rest).more_than(running.at_rest) {
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

/// A new blame page in a worker's box `home`, given to its box user `uid`: its path
/// and the host's view of it.
fn blame_page(home: &Path, uid: Option<u32>) -> Result<(PathBuf, BlamePage), String> {
    let blame_path = home.join("blame");
    let blame = BlamePage::create(&blame_path).map_err(|e| format!("cannot create the blame page: {e}"))?;
    if let Some(uid) = uid {
        std::os::unix::fs::chown(&blame_path, Some(uid), Some(uid))
            .map_err(|e| format!("cannot give the blame page to its box: {e}"))?;
    }
    Ok((blame_path, blame))
}

/// The last line of a worker's last words that is not blank.
pub(super) fn last_line(words: &str) -> &str {
    words.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim()
}

/// A recorded replay's bytes as a replay, when one was asked for.
pub(super) fn read_replay<G: Game>(record: bool, recorded: Option<Vec<u8>>) -> Result<Option<Replay<G>>, String> {
    match (record, recorded) {
        (false, _) => Ok(None),
        (true, Some(b)) => Replay::from_bytes(&b).map(Some).map_err(|e| format!("the worker's replay: {e}")),
        (true, None) => Err("the worker wrote no replay".to_owned()),
    }
}

/// A game's outcome, and its replay when one was asked for.
pub type Played<G> = (Outcome, Option<Replay<G>>);
