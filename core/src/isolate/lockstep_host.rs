//! The host's side of a lockstep game ([`Worker::play_lockstep`]): a referee process
//! with no bot and one worker per group of seats ([`Proc`]), each fed through a
//! [`Feeder`] and read by the game's loop itself; the lines each sends routed to the others (calls to every process,
//! served requests to their seat's process, answers to the referee), each seat's call
//! timed from the referee's word, a process that dies or hangs put out of the game, and
//! the outcome put together from the referee's score and each seat's own counters.
//!
//! The worker's side of the same game is [`super::lockstep`]; starting the processes and
//! keeping them between games is `worker`'s.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitStatus;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::bot::BotError;
use crate::game::{Game, Outcome};
use crate::replay::Replay;

use super::lockstep;
use super::running::Running;
use super::scratch::{scratch_file, take_file};
use super::signals::{EXIT_KILLED_FROM_OUTSIDE, describe_exit, killed_by};
use super::watchdog::{Awaited, Blamed, Tasks, settled_tree_tasks, tree_tasks};
use super::wire::{GameAnswer, GameRequest, GameResponse, READY, fresh_nonce};
use super::worker::{KEPT_WORKERS, Worker, last_line, read_replay};

impl<G: Game> Worker<G> {
    /// Plays the game in lockstep: a referee process with no bot, and one worker per
    /// group of seats (positions in `seats`) playing those seats' bots.
    pub(super) fn play_lockstep(
        &mut self,
        seats: &[usize],
        seed: u64,
        config: &serde_json::Value,
        record: bool,
        groups: &[Vec<usize>],
    ) -> Result<Lockstepped<G>, String> {
        let names: Vec<String> = seats.iter().map(|&i| self.names[i].clone()).collect();
        let (procs, replay) = self.start_lockstep(seats, seed, config, record, groups, &names)?;
        let times_itself = seats.iter().map(|&i| self.times_itself[i]).collect();
        let mut game = LockstepGame::new(procs, times_itself, self.iso.call_limit, G::SERVES_CALLS);
        let result = self.run_lockstep(&mut game, seats, &names);
        let recorded = take_file(replay.as_deref());
        // What each seat's process has running beyond what the referee (started the
        // same way, with no bot) has: the threads and processes its bot left behind.
        let baseline = game.procs.first().map(|p| tree_tasks(p.running.child.id())).unwrap_or_default();
        let left: Vec<Option<Tasks>> =
            game.procs.iter().map(|p| (!p.ended).then(|| settled_tree_tasks(p.running.child.id(), baseline))).collect();
        let answers = self.keep_or_end(game.procs, &left, baseline, seats, groups, result.is_ok());
        result?;
        if answers.iter().zip(std::iter::once(&Vec::new()).chain(groups)).any(|(a, g)| a.is_none() && g.len() > 1) {
            return Ok(Lockstepped::Regroup);
        }
        let outcome = lockstep_outcome::<G>(&answers, groups, &left, baseline, &game.out, &game.calls)?;
        let replay = read_replay(record, recorded)?.map(Box::new);
        let out = (0..seats.len()).filter(|&s| game.out[s].is_some()).collect();
        Ok(Lockstepped::Played { outcome, replay, out })
    }

    /// Starts (or takes from the kept ones) a lockstep game's processes, number 0 the
    /// referee, then one per group, and sends each its request; with the file the
    /// referee records the game's replay to.
    fn start_lockstep(
        &mut self,
        seats: &[usize],
        seed: u64,
        config: &serde_json::Value,
        record: bool,
        groups: &[Vec<usize>],
        names: &[String],
    ) -> Result<Started, String> {
        let mut procs: Vec<Proc> = Vec::with_capacity(groups.len() + 1);
        let mut replay = None;
        // Number 0, the referee, then the groups.
        for (w, group) in std::iter::once(&Vec::new()).chain(groups).enumerate() {
            let (running, ready) = self.lockstep_worker(seats, group, names, w)?;
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
                lockstep: Some(lockstep::Lockstep { names: names.to_vec(), live, served: G::SERVES_CALLS }),
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
        Ok((procs, replay))
    }

    /// Process number `w` of a lockstep game, for the seats `group` (positions in
    /// `seats`): a kept worker that loaded the same files (what it wrote between games
    /// dropped), or a new one; and whether it has loaded its entries already (a kept one
    /// has).
    fn lockstep_worker(
        &mut self,
        seats: &[usize],
        group: &[usize],
        names: &[String],
        w: usize,
    ) -> Result<(Running, bool), String> {
        let files: Vec<PathBuf> = group.iter().map(|&p| self.files[seats[p]].clone()).collect();
        let box_names = group.iter().map(|&p| names[p].clone()).collect();
        Ok(match self.kept.iter().position(|(f, _)| *f == files) {
            Some(k) if !crate::process::has_ended(&self.kept[k].1.child) => {
                let (_, mut running) = self.kept.remove(k);
                if let Some(lines) = running.lines.as_mut() {
                    lines.discard();
                }
                (running, true)
            }
            _ => (self.launch(&files, box_names, w, None, w > 0)?, false),
        })
    }

    /// Plays a lockstep game to its end: passes its processes' lines on as they come,
    /// read here as they come (no thread in between), and every few milliseconds lets
    /// the watchdog look. `Ok` when every process has answered or ended, or a process of
    /// several seats ended (the caller plays the game again with a process per seat);
    /// `Err` when the game cannot go on (its referee failed, or a seat's process was
    /// killed from outside its box).
    fn run_lockstep(&mut self, game: &mut LockstepGame, seats: &[usize], names: &[String]) -> Result<(), String> {
        let mut next_look = Instant::now();
        let (mut fds, mut polled, mut ready) = (Vec::new(), Vec::new(), Vec::new());
        loop {
            if game.procs.iter().all(|p| p.ended || p.answer.is_some()) {
                return Ok(());
            }
            // Every process still playing whose output is open; one whose output ended
            // and is not dealt with yet is taken at once.
            fds.clear();
            polled.clear();
            ready.clear();
            for (w, p) in game.procs.iter().enumerate() {
                let Some(reader) = p.running.lines.as_ref().filter(|_| !p.ended) else { continue };
                if !reader.closed() {
                    fds.push(reader.fd());
                    polled.push(w);
                } else if p.answer.is_none() {
                    ready.push(w);
                }
            }
            if ready.is_empty() {
                crate::process::wait_readable(&fds, Duration::from_millis(5), &mut ready)
                    .map_err(|e| format!("cannot wait for the lockstep workers: {e}"))?;
                for r in ready.iter_mut() {
                    *r = polled[*r];
                }
            }
            // Every process's lines that came together are taken before the answers
            // for the referee go out, in one write. The referee's, number 0, first.
            for &w in &ready {
                if game.procs[w].ended {
                    continue;
                }
                let Some(reader) = game.procs[w].running.lines.as_mut() else { continue };
                let mut lines = Vec::new();
                let ended = reader.read(&mut lines);
                if !lines.is_empty() {
                    game.take_lines(w, lines);
                    if let Some((s, why)) = game.fault.take()
                        && let Some(end) = self.lockstep_fault(game, s, why, names)
                    {
                        return end;
                    }
                }
                if ended && !game.procs[w].ended && game.procs[w].answer.is_none() {
                    // Answers that came before the death go first: a batch the host has
                    // read whole counts, whatever the timing.
                    game.send_to_referee();
                    if let Some(end) = self.lockstep_death(game, w, seats, names) {
                        return end;
                    }
                }
            }
            game.send_to_referee();
            // The watchdog looks every few milliseconds, however many lines come.
            if Instant::now() < next_look {
                continue;
            }
            next_look = Instant::now() + crate::clock::RECHECK;
            if game.look() {
                return Ok(());
            }
        }
    }

    /// Process `w` of a lockstep game died: `Some` when that ends the game (its
    /// referee, a process of several seats, a death from outside a box believed), else
    /// its seat is out of the game and the game goes on.
    fn lockstep_death(
        &mut self,
        game: &mut LockstepGame,
        w: usize,
        seats: &[usize],
        names: &[String],
    ) -> Option<Result<(), String>> {
        let proc = &mut game.procs[w];
        proc.ended = true;
        // Its output ended: whether it ended too, by itself (a process that only closed
        // its output, or sent a line over the cap, is killed here by the host, and that
        // kill is not one from outside its box).
        let by_itself = crate::process::ends_by_itself(&proc.running.child);
        let status = proc.running.kill();
        if w == 0 {
            let words = proc.running.stderr.last_words();
            let line = last_line(&words);
            return Some(Err(format!("the game's referee failed ({}): {line}", describe_exit(status))));
        }
        if proc.seats.len() > 1 {
            return Some(Ok(()));
        }
        let s = proc.seats[0];
        let words = proc.running.stderr.last_words();
        // The kernel's OOM killer in the box's own memory group: the box reached its own
        // limit (its memory, shared mappings, its /tmp and /dev/shm); killed in a
        // shortage of the machine's, it is not the box's doing.
        let oom = proc.running.cap.as_ref().map_or(crate::process::OomKills::None, |c| c.oom_kills());
        let own_oom = oom == crate::process::OomKills::OverItsLimit && killed_by(status) == Some(libc::SIGKILL);
        let machine_short = oom == crate::process::OomKills::MachineShort;
        // Where no memory group answers: the machine's OOM killer killed a process since
        // the worker started, which may have been the worker (a bot can raise its
        // `oom_score_adj` and exhaust the machine's memory).
        let machine_oom = proc.running.machine_oom.unaccounted(proc.running.cap.as_ref());
        // Killed from outside its box: not its fault. The game fails and is played
        // again; an entry is believed once.
        let outside = !own_oom
            && by_itself
            && (machine_short
                || self.killed_from_outside(seats[s], status, proc.running.child.id(), &proc.running.chain));
        if outside && !machine_oom && self.iso.claimed_outside.first(&names[s]) {
            let by = if machine_short { ", by the kernel: the machine was short of memory" } else { "" };
            let why = format!(
                "{}'s worker was killed from outside its box ({}{by}): not its fault",
                names[s],
                describe_exit(status)
            );
            // Said in its log too, as for a program killed from outside.
            crate::loaders::log::EntryLog::new(self.iso.logs.as_deref(), &names[s], true).played_again(&why);
            return Some(Err(why));
        }
        let at = call_in_progress(proc, game.calls[s], game.asked[s], game.served);
        let reason = match proc.running.cap.as_ref().and_then(|c| c.memory_limit()).filter(|_| own_oom) {
            Some(limit) => format!(
                "over its memory limit ({}: the kernel's, at its box's {} MiB, its /tmp and /dev/shm included) at its call {at}",
                describe_exit(status),
                limit >> 20
            ),
            None if outside && machine_oom => {
                format!("{}: {}", crash_reason(&words, status, at), crate::process::MACHINE_OOM)
            }
            None => crash_reason(&words, status, at),
        };
        put_out(&mut game.procs, &mut game.out, s, reason);
        None
    }

    /// Seat `s`'s own process (of its entry alone, whose programs it guards:
    /// `process::guard_programs`) says that its program was killed from outside its box
    /// (`why`): the game fails and is played again, as for its worker, believed once per
    /// entry, never when its box's memory group killed a process (the programs of a
    /// worker count in its group), and where the host has the kernel's word
    /// (`process::SignalWitness`), only when a task outside every box sent a task of
    /// that box SIGKILL or a stop (a program can bring either on itself by ways its
    /// guard does not see: a `kill` of one of its threads' ids, a timer). Else the host
    /// puts the seat out itself, with a reason that says why the claim was not taken.
    fn lockstep_fault(
        &mut self,
        game: &mut LockstepGame,
        s: usize,
        why: String,
        names: &[String],
    ) -> Option<Result<(), String>> {
        // Said only by a worker the host told to guard its programs (`Worker::launch`):
        // from any other, a bot's line.
        let guarded =
            matches!(self.iso.sandbox, crate::process::Sandbox::Bwrap { .. }) && crate::process::boxes_guarded();
        let proc = game.procs.iter().find(|p| p.seats == [s]).filter(|_| guarded)?;
        let oom = proc.running.cap.as_ref().map_or(crate::process::OomKills::None, |c| c.oom_kills());
        let machine_oom = proc.running.machine_oom.unaccounted(proc.running.cap.as_ref());
        let witness = crate::process::SignalWitness::get();
        let unseen = witness.is_some_and(|w| {
            let sigs = [&[libc::SIGKILL][..], &crate::process::STOP_SIGNALS[..]].concat();
            !w.sent_from_outside_to_tree(proc.running.child.id(), &sigs)
        });
        let believed = oom == crate::process::OomKills::None
            && !machine_oom
            && !unseen
            && self.iso.claimed_outside.first(&names[s]);
        if believed {
            return Some(Err(format!("{}: {why}", names[s])));
        }
        let reason = if oom != crate::process::OomKills::None {
            "its program was killed by the kernel's OOM killer in its box's memory group".to_owned()
        } else if machine_oom {
            format!("its program died of SIGKILL: {}", crate::process::MACHINE_OOM)
        } else if unseen {
            "its program died of SIGKILL or was stopped, and no task outside its box sent it a signal (the kernel's word)"
                .to_owned()
        } else {
            "its program died of SIGKILL (a death from outside its box is believed once per entry, and it was already)"
                .to_owned()
        };
        // Its worker may have said in its log that the game is played again: the log
        // says that it was not.
        let log = crate::loaders::log::EntryLog::new(self.iso.logs.as_deref(), &names[s], true);
        log.append(&format!("{}not played again: {reason}\n", crate::loaders::log::game_marker()));
        put_out(&mut game.procs, &mut game.out, s, reason);
        None
    }

    /// Whether entry `e`'s lockstep worker that ended with `status` (not over its box's
    /// memory: the caller looks first) was killed from outside its box. Where the host
    /// has the kernel's word on who sent a signal (`process::SignalWitness`, a root
    /// host), that word decides: a task outside every box sent the signal it died of,
    /// SIGKILL or another that ends it, by `kill` or `tgkill`, to its process, its box's
    /// first process or its bwrap (`chain`, found when it said it was ready; before, to
    /// any task of the box whose bwrap is `root`). A box can
    /// bring a SIGKILL on itself by ways its guard does not see (a `kill` of one of its
    /// threads' ids, a timer), and its bot can exit with any status, so nothing else is
    /// believed there. Without the witness: the worker says so (exit status 86: it saw
    /// a signal from outside its box, `watch_outside_signals`), or it runs a script,
    /// which cannot send the SIGKILL it died of, or it is boxed and died of SIGKILL,
    /// which nothing in its box can send it (its guard, `process::helper_command`, and
    /// for a native or script entry the self-kill rule, `process::refuse_self_kills`).
    /// And either way, a boxed worker's bwrap killed by a signal: bwrap reports its
    /// processes' deaths as exit statuses, so a death by a signal is bwrap's own,
    /// outside the box.
    fn killed_from_outside(&self, e: usize, status: ExitStatus, root: u32, chain: &[u32]) -> bool {
        let boxed = matches!(self.iso.sandbox, crate::process::Sandbox::Bwrap { .. });
        let bwraps_own = boxed && std::os::unix::process::ExitStatusExt::signal(&status).is_some();
        let signal = killed_by(status);
        match crate::process::SignalWitness::get() {
            // Before it said it was ready (its chain not found yet): a signal from
            // outside to any task of its box.
            Some(w) if chain.is_empty() => {
                bwraps_own || signal.is_some_and(|sig| w.sent_from_outside_to_tree(root, &[sig]))
            }
            Some(w) => bwraps_own || signal.is_some_and(|sig| chain.iter().any(|&pid| w.sent_from_outside(pid, sig))),
            None => {
                let sigkill = signal == Some(libc::SIGKILL);
                bwraps_own
                    || status.code() == Some(EXIT_KILLED_FROM_OUTSIDE)
                    || (self.cannot_signal[e] && sigkill)
                    || (sigkill && boxed && crate::process::boxes_guarded())
            }
        }
    }

    /// Keeps for the next game each process of a lockstep game (`procs`, number 0 the
    /// referee, then `groups`) that played it to its end and left nothing running
    /// (`left`, beyond the referee's `baseline`), when the game went on to its end
    /// (`went_on`); ends the others. Returns their answers.
    fn keep_or_end(
        &mut self,
        procs: Vec<Proc>,
        left: &[Option<Tasks>],
        baseline: Tasks,
        seats: &[usize],
        groups: &[Vec<usize>],
        went_on: bool,
    ) -> Vec<Option<GameResponse>> {
        let mut answers: Vec<Option<GameResponse>> = Vec::with_capacity(procs.len());
        for (w, (mut p, left)) in procs.into_iter().zip(left).enumerate() {
            let answer = p.answer.take();
            // A worker that played the game to its end and left nothing running plays
            // its entries' next game too.
            let clean = w == 0 || left.is_some_and(|l| !l.more_than(baseline));
            let idle = p.feed.idle();
            if went_on && clean && idle && !p.ended && matches!(answer, Some(GameResponse::Played(_))) {
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
        answers
    }
}

/// A lockstep game's processes started: number 0 the referee, then one per group; the
/// file the referee records the replay to.
type Started = (Vec<Proc>, Option<PathBuf>);

/// Why a seat's process that died (`status`, its last words `words`) at its call `at`
/// is out of the game: a Rust bot whose allocation failed under the worker's memory cap
/// says so before it aborts.
fn crash_reason(words: &str, status: ExitStatus, at: u64) -> String {
    match words.lines().rev().find(|l| l.contains("memory allocation of")) {
        Some(line) => {
            format!("over its memory limit ({}; {}) at its call {}", describe_exit(status), line.trim(), at)
        }
        None => format!("crashed ({}) at its call {at}", describe_exit(status)),
    }
}

/// A lockstep game's outcome from its processes' `answers` (number 0 the referee's,
/// then `groups`'): the score is the referee's; each seat's call counters are its own
/// worker's (and, served, the referee's findings on its answers: invalid moves, calls
/// that could not be served; the referee counts no calls and no time of its own there).
fn lockstep_outcome<G: Game>(
    answers: &[Option<GameResponse>],
    groups: &[Vec<usize>],
    left: &[Option<Tasks>],
    baseline: Tasks,
    out: &[Option<String>],
    calls: &[u64],
) -> Result<Outcome, String> {
    let mut outcome = match answers.first() {
        Some(Some(GameResponse::Played(outcome))) => outcome.clone(),
        Some(Some(GameResponse::Failed(reason))) => return Err(reason.clone()),
        _ => return Err("the game's referee gave no answer".to_owned()),
    };
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
                        stats.record_error(&left_running(left, baseline));
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
    Ok(outcome)
}

/// The error of a seat whose process had `left` running at the game's end, beyond the
/// referee's `baseline`.
fn left_running(left: Tasks, baseline: Tasks) -> BotError {
    let (threads, processes) = left.beyond(baseline);
    BotError::Failed(format!(
        "left running at the end of the game (ended with it): {processes} process(es), {} other thread(s)",
        threads.saturating_sub(processes)
    ))
}

/// A lockstep game in play, as the host sees it.
struct LockstepGame {
    /// Its processes: number 0 the referee, then one per group of seats.
    procs: Vec<Proc>,
    /// Per seat: its calls played (served: answered), as its own process said.
    calls: Vec<u64>,
    /// Served mode: the calls the referee has asked of each seat.
    asked: Vec<u64>,
    /// Per seat: why it is out of the game.
    out: Vec<Option<String>>,
    /// Per seat: a program bot, which keeps its calls' deadlines itself.
    times_itself: Vec<bool>,
    /// The limit per call.
    limit: Duration,
    /// Served mode ([`Game::SERVES_CALLS`]).
    served: bool,
    /// Once the referee has answered, the others have until this to answer too (they
    /// only have the game's last calls to play back).
    finish_by: Option<Instant>,
    /// Served answers taken for the referee and not sent yet: the lines that came
    /// together go to it in one write ([`LockstepGame::send_to_referee`]).
    to_referee: String,
    /// A seat whose own process says its program was killed from outside its box, and
    /// what it says (`Worker::lockstep_fault` decides).
    fault: Option<(usize, String)>,
}

impl LockstepGame {
    fn new(procs: Vec<Proc>, times_itself: Vec<bool>, limit: Duration, served: bool) -> LockstepGame {
        let seats = times_itself.len();
        LockstepGame {
            procs,
            calls: vec![0; seats],
            asked: vec![0; seats],
            out: vec![None; seats],
            times_itself,
            limit,
            served,
            finish_by: None,
            to_referee: String::new(),
            fault: None,
        }
    }

    /// Takes the lines that came together from process `w`: a worker's calls that came
    /// together go on together (served mode: the referee's requests to each seat's
    /// process only, the answers to the referee only, held until the host has taken
    /// what came meanwhile from the other processes: [`LockstepGame::send_to_referee`]).
    fn take_lines(&mut self, w: usize, lines: Vec<String>) {
        let mut relay = String::new();
        let mut to_referee = std::mem::take(&mut self.to_referee);
        for line in lines {
            self.take_line(w, line, &mut relay, &mut to_referee);
        }
        if !relay.is_empty() {
            pass_on(&mut self.procs, w, &relay);
        }
        self.to_referee = to_referee;
    }

    /// Sends the referee the served answers taken and not sent yet, in one write.
    fn send_to_referee(&mut self) {
        let lines = std::mem::take(&mut self.to_referee);
        if !lines.is_empty() && !self.procs[0].ended && self.procs[0].answer.is_none() {
            self.procs[0].feed.send(lines);
        }
    }

    /// Takes one line of process `w`: sent on at once (a served request), or added to
    /// `relay` (a call, for every other process) or `to_referee` (a served answer).
    fn take_line(&mut self, w: usize, line: String, relay: &mut String, to_referee: &mut String) {
        let seats = self.calls.len();
        match lockstep::parse_line(&line) {
            lockstep::Line::Request(s, n) if w == 0 && s < seats && self.out[s].is_none() => {
                if let Some(p) = self.procs.iter_mut().skip(1).find(|p| p.seats.contains(&s) && !p.ended) {
                    self.asked[s] += n;
                    p.feed.send(line);
                }
            }
            lockstep::Line::Answer(s, n)
                if w > 0
                    && self.procs[w].seats.contains(&s)
                    && self.out[s].is_none()
                    && self.calls[s] + n <= self.asked[s] =>
            {
                self.calls[s] += n;
                self.procs[w].awaited = None;
                to_referee.push_str(&line);
            }
            // Only a seat's own worker speaks for it.
            lockstep::Line::Call(s) if w > 0 && self.procs[w].seats.contains(&s) && self.out[s].is_none() => {
                self.calls[s] += 1;
                self.procs[w].awaited = None;
                relay.push_str(&line);
            }
            // Only the referee, which runs no bot, says whose call it waits for; a call
            // already passed on is not awaited.
            lockstep::Line::Wait(s, consumed) if w == 0 && s < seats => {
                let times_itself = self.times_itself[s];
                // Served, the calls asked for and not answered yet are timed together.
                let batch = self.asked[s].saturating_sub(self.calls[s]).max(1);
                if let Some(p) = self.procs.iter_mut().skip(1).find(|p| p.seats == [s] && !p.ended)
                    && self.calls[s] == consumed
                {
                    p.await_call(consumed, batch, times_itself);
                }
            }
            // Only a seat's own process of one entry speaks of its program's death.
            lockstep::Line::Fault(s, why) if w > 0 && self.procs[w].seats == [s] && self.out[s].is_none() => {
                self.fault.get_or_insert((s, why.to_owned()));
            }
            lockstep::Line::Call(_)
            | lockstep::Line::Fault(..)
            | lockstep::Line::Out(..)
            | lockstep::Line::Wait(..)
            | lockstep::Line::Request(..)
            | lockstep::Line::Answer(..) => {}
            lockstep::Line::Other if line == READY && !self.procs[w].ready => self.ready(w),
            lockstep::Line::Other => self.take_answer(w, &line),
        }
    }

    /// Process `w` has loaded its entries: the call the referee already waits for is
    /// timed from now.
    fn ready(&mut self, w: usize) {
        let proc = &mut self.procs[w];
        proc.ready = true;
        // Its playing thread, and the pids a kill from outside would be sent to, found
        // while it lives (a death is judged on them: `killed_from_outside`); its box's
        // forks so far taken in by the witness.
        let _ = proc.running.player_probe();
        if let Some(witness) = crate::process::SignalWitness::get() {
            witness.note_forks();
        }
        if let Some((call, batch, times_itself)) = proc.deferred.take()
            && proc.seats.len() == 1
            && self.calls[proc.seats[0]] == call
        {
            proc.await_call(call, batch, times_itself);
        }
    }

    /// `line` of process `w`, when it is its answer (it carries its request's nonce).
    /// Once the referee has answered, the others have until the backstop to answer too;
    /// served seats, which have played every call, are asked for their counters.
    fn take_answer(&mut self, w: usize, line: &str) {
        if let Ok(answer) = serde_json::from_str::<GameAnswer>(line)
            && answer.nonce == self.procs[w].nonce
            && self.procs[w].answer.is_none()
        {
            self.procs[w].answer = Some(answer.response);
            if w == 0 {
                self.finish_by = Some(Instant::now() + crate::clock::backstop(self.limit));
                if self.served {
                    for p in self.procs.iter().skip(1).filter(|p| !p.ended) {
                        p.feed.send(lockstep::END_LINE.to_owned());
                    }
                }
            }
        }
    }

    /// The watchdog's look at every seat's process still playing: one that is stuck, or
    /// has not answered by the game's end plus the backstop, is ended, and its seat put
    /// out. `true` when a process of several seats was ended (whose fault is unknown).
    fn look(&mut self) -> bool {
        for w in 1..self.procs.len() {
            if self.procs[w].ended || self.procs[w].answer.is_some() {
                continue;
            }
            let proc = &mut self.procs[w];
            let blamed = match self.finish_by {
                Some(t) if Instant::now() >= t => Some(Blamed {
                    verdict: "gave no answer at the end of the game".to_owned(),
                    measured: Some(format!(
                        "{:.0} s after the game's end",
                        crate::clock::backstop(self.limit).as_secs_f64()
                    )),
                }),
                _ => proc.stuck(self.limit, self.finish_by.is_some()),
            };
            let Some(blamed) = blamed else { continue };
            proc.ended = true;
            proc.running.kill();
            if proc.seats.len() > 1 {
                break;
            }
            let s = proc.seats[0];
            let at = call_in_progress(proc, self.calls[s], self.asked[s], self.served);
            let reason = match blamed.measured {
                Some(m) => format!("{} at its call {at} ({m})", blamed.verdict),
                None => format!("{} at its call {at}", blamed.verdict),
            };
            put_out(&mut self.procs, &mut self.out, s, reason);
        }
        self.procs.iter().skip(1).any(|p| p.ended && p.seats.len() > 1)
    }
}

/// How a lockstep game went.
pub(super) enum Lockstepped<G: Game> {
    /// Played to its end; `out`: the seats whose worker crashed or hung.
    Played { outcome: Outcome, replay: Option<Box<Replay<G>>>, out: Vec<usize> },
    /// A worker of several seats failed: play again with a process per seat.
    Regroup,
}

/// The call a seat's process was in when it died or was ended: the host's count of its
/// calls, or in served mode, where answers come a batch at a time, the call its own
/// blame page names within the batch asked for (the page is the seat's own: its bot can
/// misname only its own call, and the game does not depend on it: a seat is out from
/// the first call of the batch it did not answer).
fn call_in_progress(proc: &Proc, answered: u64, asked: u64, served: bool) -> u64 {
    match proc.running.blame.current() {
        Some(c) if served && (answered..asked).contains(&c.call) => c.call,
        _ => answered,
    }
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
    /// limit plus a [`grace`](super::grace) of its own time (or reached the wall-clock
    /// backstop); else what its own blame page says (which a bot can write: it can only
    /// frame itself).
    /// A stopped process is resumed first when something waits for it (a call the
    /// referee awaits, or its answer at the game's `ending`): only its own box could have
    /// stopped it, or someone outside every box; the time it stood counts until this
    /// look. (Reading every process's state at every look cost the host more than any
    /// other part of its watch.)
    fn stuck(&mut self, limit: Duration, ending: bool) -> Option<Blamed> {
        if self.awaited.is_some() || ending {
            self.running.resume_if_stopped();
        }
        if let Some(a) = &mut self.awaited
            && let Some(blamed) = a.over(&mut self.running, limit)
        {
            return Some(blamed);
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
