//! Watching a game in a worker: the [`grace`] of own time past a call's budget, the
//! shared worker's game sent and waited for ([`watch`], which kills a stuck worker), the
//! timing of the call a lockstep referee awaits ([`Awaited`], on the seat process's own
//! counters), and the threads and processes a worker has running ([`Tasks`]).
//!
//! The looks at one worker's blame page and counters are [`Running`]'s own (`running`);
//! what a lockstep game makes of a verdict is `lockstep_host`'s.

use std::io::Write;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::running::{Running, surely_over};
use super::wire::{GameRequest, GameResponse, answer_to};

/// How a game in a worker went, as the host saw it.
pub(super) enum Watched {
    /// The answer to the request (or why the line carrying its nonce is not one).
    Answered(Result<GameResponse, String>),
    /// The worker died or was killed (what it says of whom to blame is not believed:
    /// see [`super::Worker::play`]).
    Lost,
}

/// Why the watchdog ends a call.
pub(super) struct Blamed {
    /// The verdict: "crashed (...)", "hung in a call past its time limit".
    pub(super) verdict: String,
    /// What was measured, for a watchdog's verdict: "0.52 s of its own time; ...".
    pub(super) measured: Option<String>,
}

/// Sends a request and waits for its answer, killing the worker when a call is stuck:
/// when it has used its budget plus a [`grace`] of its **own** time (`crate::clock`:
/// the wall time less the time the worker's playing thread waited for a CPU, read from
/// that thread's counters), so a worker that is only waiting for a core on a loaded
/// machine is never mistaken for a stuck one; or, whatever the counters say, at the
/// wall-clock backstop ([`crate::clock::backstop`]). A call to a bot that keeps its own
/// deadline (a program bot) is held to the backstop only.
pub(super) fn watch(mut r: Running, request: &GameRequest, limit: Duration) -> (Running, Watched) {
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

/// How much own time past its budget a call may run before the watchdog ends it: 5% of
/// the budget, at least 10 ms and at most 250 ms (a call that returns past its budget
/// but within this is an overrun, decided by the worker itself).
pub fn grace(budget: Duration) -> Duration {
    (budget / 20).clamp(Duration::from_millis(10), Duration::from_millis(250))
}

/// The threads and processes of a process tree.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Tasks {
    threads: u32,
    processes: u32,
}

impl Tasks {
    /// More threads or more processes than `base`.
    pub(super) fn more_than(self, base: Tasks) -> bool {
        self.threads > base.threads || self.processes > base.processes
    }

    /// How many threads and processes more than `base`.
    pub(super) fn beyond(self, base: Tasks) -> (u32, u32) {
        (self.threads.saturating_sub(base.threads), self.processes.saturating_sub(base.processes))
    }
}

/// The threads and processes of `root` and every process below it that are alive (as
/// `/proc` shows them now; a process that left the tree by losing its parent is not
/// counted, but a worker's process cap still ends it). A process already on its way out
/// (a zombie, or exiting: the kernel has set `PF_EXITING`, as it does on a SIGKILL or
/// when its PID namespace is torn down) is not running and is not counted.
pub(super) fn tree_tasks(root: u32) -> Tasks {
    let mut tasks = Tasks::default();
    let mut todo = vec![root];
    while let Some(pid) = todo.pop() {
        let Ok(threads) = std::fs::read_dir(format!("/proc/{pid}/task")) else { continue };
        let alive = std::fs::read(format!("/proc/{pid}/stat")).ok().is_some_and(|s| !dying(&s));
        if alive {
            tasks.processes += 1;
        }
        for t in threads.flatten() {
            if alive {
                tasks.threads += 1;
            }
            let children = std::fs::read_to_string(t.path().join("children")).unwrap_or_default();
            todo.extend(children.split_ascii_whitespace().filter_map(|c| c.parse::<u32>().ok()));
        }
        if tasks.processes > 100_000 {
            break;
        }
    }
    tasks
}

/// The kernel's flag of a task that has begun to exit.
const PF_EXITING: u64 = 0x4;

/// Whether a `/proc/<pid>/stat` line is a process that is dead or dying: state `Z`
/// (zombie), `X` (dead), or the `PF_EXITING` flag (field 9).
fn dying(stat: &[u8]) -> bool {
    let Some(mut fields) = crate::clock::stat_fields(stat) else { return false };
    let state = fields.next().unwrap_or("");
    // After the state: ppid, pgrp, session, tty_nr, tpgid, flags.
    let flags = fields.nth(5).and_then(|f| f.parse::<u64>().ok()).unwrap_or(0);
    matches!(state, "Z" | "X" | "x") || flags & PF_EXITING != 0
}

/// How long what a game's processes hold beyond `base` is given to go before it is
/// counted as left running: a box that was just ended takes a moment to empty (its
/// init's death kills the rest of its PID namespace, the kill lands in each of them,
/// and a loaded machine may take its time to run them to their end).
pub(super) const SETTLE: Duration = Duration::from_millis(300);

/// [`tree_tasks`] of `root`; while it holds more than `base`, looked at again until
/// [`SETTLE`] has passed: what a game really left running stays, what was dying goes.
pub(super) fn settled_tree_tasks(root: u32, base: Tasks) -> Tasks {
    let until = Instant::now() + SETTLE;
    loop {
        let tasks = tree_tasks(root);
        if !tasks.more_than(base) || Instant::now() >= until {
            return tasks;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A call of a seat that the referee waits for: timed by the host from the moment the
/// referee said so, on the seat's process's own counters (nothing the bot can write).
pub(super) struct Awaited {
    /// Calls of the seat played before it.
    pub(super) call: u64,
    /// The calls asked for together with it (served mode: its batch), which share one
    /// limit per call.
    pub(super) batch: u64,
    /// A program bot's call: the worker keeps its deadline on the program's own time;
    /// the host holds it to the wall-clock backstop only.
    pub(super) times_itself: bool,
    /// When the referee said so (monotonic nanoseconds), and the playing thread's own
    /// time then.
    pub(super) started: u64,
    pub(super) own_start: Option<u64>,
    /// It seemed over at the last look (the two-look rule: a wait for a CPU shows only
    /// once the thread has run again).
    pub(super) suspect: bool,
    /// A batch's last progress: the playing thread's CPU time, and its own time then.
    pub(super) progress: Option<(u64, u64)>,
}

impl Awaited {
    /// A batch is allowed its calls' limits while it computes; a playing thread that ran
    /// no code for a call's limit of its own time (it blocks: a bot that cleared its page
    /// and sleeps) is ended then, not at the batch's end.
    fn blocked(
        &mut self,
        running: &mut Running,
        calls: u32,
        elapsed: u64,
        now: u64,
        limit: Duration,
    ) -> Option<Blamed> {
        let one_call = (limit + grace(limit)).as_nanos() as u64;
        if calls <= 1 || self.times_itself || elapsed < one_call {
            return None;
        }
        let probe = running.player_probe()?;
        // A runnable thread may be sitting in a wait for a CPU its counters do not show
        // yet (`TaskProbe::own_surely`): it is not blocked.
        if probe.state() == Some(b'R') {
            return None;
        }
        let (cpu, own) = probe.read().map(|s| (s.cpu, now.saturating_sub(s.wait)))?;
        match self.progress {
            Some((last, since)) if last == cpu && own.saturating_sub(since) >= one_call => Some(Blamed {
                verdict: "hung in a call past its time limit".to_owned(),
                measured: Some(format!(
                    "{:.2} s of its own time without running; its limit {:.2} s",
                    own.saturating_sub(since) as f64 / 1e9,
                    limit.as_secs_f64()
                )),
            }),
            Some((last, _)) if last == cpu => None,
            _ => {
                self.progress = Some((cpu, own));
                None
            }
        }
    }

    /// The verdict when this call (`limit` per call of its batch) has used its limits plus
    /// a [`grace`] of the own time of its seat's process (`running`), or reached the
    /// wall-clock backstop; a call timed by its bot itself is held to the backstop only.
    pub(super) fn over(&mut self, running: &mut Running, limit: Duration) -> Option<Blamed> {
        let now = crate::clock::monotonic_nanos();
        if self.own_start.is_none()
            && let Some(own) = running.player_probe().and_then(|p| p.own(now))
        {
            // The playing thread was not there to read when the referee said so (the
            // worker was still starting): the call is timed from now, in its favour.
            self.started = now;
            self.own_start = Some(own);
        }
        let elapsed = now.saturating_sub(self.started);
        // A batch of calls has a limit per call, and one grace.
        let calls = u32::try_from(self.batch).unwrap_or(u32::MAX).max(1);
        let backstop = crate::clock::backstop(limit.saturating_mul(calls)).as_nanos() as u64;
        let allowed = (limit.saturating_mul(calls) + grace(limit)).as_nanos() as u64;
        if let Some(blocked) = self.blocked(running, calls, elapsed, now, limit) {
            return Some(blocked);
        }
        let mut used = None;
        let over = if elapsed >= backstop {
            true
        } else if elapsed < allowed || self.times_itself {
            self.suspect = false;
            false
        } else {
            let probe = running.player_probe();
            used = match (probe, self.own_start) {
                (Some(p), Some(start)) => p.own(now).map(|own| own.saturating_sub(start)),
                _ => None,
            };
            if used.unwrap_or(elapsed) < allowed {
                self.suspect = false;
                false
            } else if self.suspect {
                // Decided on the own time the thread surely used (not a wait for a CPU
                // it may be sitting in now), or put off while it only waits.
                let (over, surely) = surely_over(running.player_probe(), self.own_start, now, allowed);
                used = surely.or(used);
                over
            } else {
                self.suspect = true;
                if let Some(p) = running.player_probe() {
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
            return Some(Blamed { verdict: "hung in a call past its time limit".to_owned(), measured: Some(measured) });
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_zombie_or_an_exiting_process_is_dying_and_a_running_one_is_not() {
        assert!(!dying(b"21059 (cat) R 21055 21055 3362 0 -1 4194304 123 0 0"));
        assert!(!dying(b"7 (sleep) S 1 7 7 0 -1 4194560 80 0 0"));
        assert!(dying(b"21059 (cat) Z 21055 21055 3362 0 -1 4194304 123 0 0"));
        // Running its exit (PF_EXITING, 0x4, beside PF_FORKNOEXEC 0x40).
        assert!(dying(b"21059 (cat) R 21055 21055 3362 0 -1 4194372 123 0 0"));
        // A name that holds ") Z " does not fool it.
        assert!(!dying(b"99 (a) Z 1 2 3 0 -1 4 (x) S 1 99 99 0 -1 4194560 0"));
        assert!(!dying(b"garbage"));
    }

    #[test]
    fn a_killed_process_not_yet_reaped_is_not_counted_and_a_settled_tree_is_empty() {
        let mut child = std::process::Command::new("sleep").arg("30").spawn().expect("sleep starts");
        let pid = child.id();
        let alive = tree_tasks(pid);
        assert_eq!((alive.processes, alive.threads), (1, 1));
        child.kill().expect("kill");
        // Not reaped yet: a zombie, or still exiting, until `settled_tree_tasks` sees it go.
        let settled = settled_tree_tasks(pid, Tasks::default());
        assert_eq!(settled, Tasks::default());
        let _ = child.wait();
    }
}
