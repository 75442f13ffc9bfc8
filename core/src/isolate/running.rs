//! One started worker process as the host holds it ([`Running`]): its pipes, how its
//! lines are read (a shared worker's by a thread of their own, [`spawn_reader`]; a
//! lockstep process's by the game's loop itself, [`LineReader`]), the tail of its standard error, its
//! end (killed with its group, its logs collected, its box removed), and the looks the
//! watchdog takes at it: the call its blame page names, the counters of its playing
//! thread, a stopped worker resumed.
//!
//! It does not start workers (`worker`) nor decide what a game's verdicts are
//! (`watchdog`, `lockstep_host`).

use std::io::{BufRead, Read};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, ExitStatus};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::clock::TaskProbe;
use crate::limits::BlamePage;
use crate::process::kill_group;

use super::watchdog::{Blamed, Tasks, grace};
use super::wire::MAX_ANSWER_LINE;

/// A worker process and the host's ends of its pipes.
#[derive(Debug)]
pub(super) struct Running {
    pub(super) child: Child,
    pub(super) requests: ChildStdin,
    /// The lines it answers with (`None` once its pipe closed), for a shared worker,
    /// watched alone: read by a thread of their own ([`spawn_reader`]).
    pub(super) answers: Option<mpsc::Receiver<Event>>,
    /// A lockstep process's output, read by the game's loop itself.
    pub(super) lines: Option<LineReader>,
    pub(super) blame: BlamePage,
    pub(super) stderr: StderrTail,
    /// The worker's process cap; dropped (what is left in it killed) after the worker.
    pub(super) cap: Option<crate::process::ProcessCap>,
    /// The machine's OOM kills when it started: where its cap has no memory group,
    /// whether its death by SIGKILL may be the machine's OOM killer's
    /// ([`crate::process::MachineOom::unaccounted`]).
    pub(super) machine_oom: crate::process::MachineOom,
    /// The worker's playing thread (found when first needed): its counters.
    pub(super) player: Option<TaskProbe>,
    /// Found with the playing thread: the processes from the host's child down to the
    /// worker (in a box: bwrap, the box's first process, the worker), in the host's PID
    /// namespace, the worker's own (its playing thread's) last: where a signal from
    /// outside the box that ended the worker was sent (`crate::process::SignalWitness`).
    pub(super) chain: Vec<u32>,
    /// Its box's directory, the only one it may write: its blame page, its replays,
    /// its entries' logs (`logs/`, moved to the real logs by the host after each game)
    /// and the output of the game in play (`pending/`, kept if the host ends it).
    pub(super) home: PathBuf,
    /// The real log directory.
    pub(super) logs: Option<PathBuf>,
    /// The entries whose logs it writes (a file of another name in its logs is not
    /// believed: a bot could write it).
    pub(super) names: Vec<String>,
    /// Its threads and processes at rest (between games).
    pub(super) at_rest: Tasks,
    /// Its playing thread's CPU time at the last look where it had changed, and when
    /// (monotonic nanoseconds): a worker in a game never stands still for long.
    pub(super) last_progress: Option<(u64, u64)>,
    /// The uid its box runs as (a root host's lease), released after it ended.
    pub(super) _user: Option<crate::process::BoxUser>,
}

impl Running {
    /// Kills the worker and removes its scratch files; returns its last words.
    pub(super) fn end(mut self) -> String {
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
    pub(super) fn collect_logs(&self) {
        crate::loaders::log::collect_box_logs(&self.home.join("logs"), self.logs.as_deref(), &self.names);
    }

    /// Kills the worker with its group and reaps it.
    pub(super) fn kill(&mut self) -> ExitStatus {
        kill_group(&mut self.child);
        self.child.wait().unwrap_or_else(|_| ExitStatus::default())
    }

    /// Looks at the call in progress on the worker's blame page: the verdict when it is
    /// stuck (the caller kills the worker), when it has used its budget plus a [`grace`]
    /// of its **own** time, or reached the wall-clock backstop. `suspect` carries the
    /// call that seemed over at the last look, since a wait for a CPU shows in the
    /// counters only once the thread has run again.
    pub(super) fn stuck(&mut self, suspect: &mut Option<(usize, u64)>) -> Option<Blamed> {
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
            // look (5 ms on) on the own time it surely used, unless it was still only
            // waiting then.
            match (over, *suspect) {
                (false, _) => {
                    *suspect = None;
                    false
                }
                (true, Some(s)) if s == (c.entry, c.call) => {
                    let origin = (c.own_origin != 0).then_some(c.own_origin);
                    let (over, surely) = surely_over(self.player.as_mut(), origin, now, allowed);
                    used = surely.or(used);
                    over
                }
                (true, _) => {
                    *suspect = Some((c.entry, c.call));
                    if let Some(p) = self.player.as_mut() {
                        p.mark();
                    }
                    false
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

    /// The own time the call in progress has used, from its playing thread's counters
    /// (`None` when they cannot be read, or the worker's clock is not on their scale).
    fn own_used(&mut self, call: &crate::limits::CallInProgress, now: u64) -> Option<u64> {
        if call.own_origin == 0 {
            return None;
        }
        let own = self.player_probe()?.own(now)?;
        Some(own.saturating_sub(call.own_origin))
    }

    /// The verdict when the worker's playing thread has run no code for the wall-clock
    /// backstop of a call (`limit`), whatever its blame page says: a worker in a game
    /// always computes, or waits for a bot's call (a native call is ended sooner on its
    /// own time; a program call wakes the worker within its deadline). A bot that clears
    /// or forges the page of a shared worker and then blocks is caught so: the worker is
    /// ended and the game played again in lockstep, where the host times each call from
    /// the referee's word and names the culprit.
    pub(super) fn stalled(&mut self, limit: Duration) -> Option<Blamed> {
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
    pub(super) fn player_probe(&mut self) -> Option<&mut TaskProbe> {
        if self.player.is_none()
            && let Some((chain, probe)) = player_task(self.child.id())
        {
            self.player = Some(probe);
            self.chain = chain;
        }
        self.player.as_mut()
    }

    /// Resumes the worker if it is stopped (SIGSTOP, SIGTSTP, ...): a stopped worker
    /// would otherwise stand until its call's time ran out.
    pub(super) fn resume_if_stopped(&mut self) {
        if self.player_probe().and_then(|p| p.state()) == Some(b'T')
            && let Some(pid) = self.chain.last().and_then(|&p| i32::try_from(p).ok())
        {
            // SAFETY: a plain syscall; the pid is the unreaped worker's (its box's).
            unsafe {
                libc::kill(pid, libc::SIGCONT);
            }
        }
    }
}

/// The second look at a call that seemed over at the first (its playing thread
/// `probe` marked then): whether it is, on the own time the thread surely used since
/// `origin` (`TaskProbe::own_surely`; that time too, for the verdict's message), or not
/// yet while the thread only waits for a CPU. Without a probe it is not (the wall-clock
/// backstop decides); without an origin on the probe's scale, it is over unless the
/// thread only waits.
pub(super) fn surely_over(
    probe: Option<&mut TaskProbe>,
    origin: Option<u64>,
    now: u64,
    allowed: u64,
) -> (bool, Option<u64>) {
    match (probe, origin) {
        // No playing thread to read: the worker is gone, or going (its death, which comes
        // through its box's process 1 and bwrap, is reported once its output ends), and
        // is not blamed for a hang; the wall-clock backstop still ends one never found.
        (None, _) => (false, None),
        (Some(p), None) => (!p.waiting(), None),
        (Some(p), Some(origin)) => {
            let surely = p.own_surely(now).map(|own| own.saturating_sub(origin));
            (surely.is_some_and(|used| used >= allowed), surely)
        }
    }
}

/// The end of what a worker writes to its standard error (a panic's message, a bot's
/// stray prints: a worker's stdout goes there too), read by a thread of the host that
/// keeps only the last [`StderrTail::KEPT`] bytes: no amount of output fills a disk or
/// blocks the worker.
#[derive(Debug)]
pub(super) struct StderrTail {
    kept: Arc<std::sync::Mutex<Vec<u8>>>,
    reader: std::thread::JoinHandle<()>,
}

impl StderrTail {
    const KEPT: usize = 64 << 10;

    pub(super) fn drain(mut from: impl std::io::Read + Send + 'static) -> StderrTail {
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
    pub(super) fn last_words(&self) -> String {
        let deadline = Instant::now() + Duration::from_millis(500);
        while !self.reader.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(2));
        }
        let kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        String::from_utf8_lossy(&kept[kept.len().saturating_sub(Self::KEPT)..]).into_owned()
    }
}

/// A line from worker number `.0` (`None`: its answer pipe closed: it died).
pub(super) type Event = (usize, Option<Vec<String>>);

/// Sends worker `w`'s lines (`None`: it died) along `events`, if anyone listens.
fn send_on(events: &mpsc::Sender<Event>, w: usize, lines: Option<Vec<String>>) {
    let _ = events.send((w, lines));
}

/// Reads a worker's standard output `out` on a thread of its own: sends along `lines`,
/// as worker `w`'s, the whole lines that came in one read together, then `None` once
/// the pipe closes or a line longer than [`MAX_ANSWER_LINE`] comes (that line is
/// dropped unread and nothing after it is read: it holds at most that much of a
/// worker's output).
pub(super) fn spawn_reader(out: ChildStdout, w: usize, lines: mpsc::Sender<Event>) {
    std::thread::spawn(move || {
        // A referee writes a whole turn's requests at once: read them in few reads.
        let mut out = std::io::BufReader::with_capacity(1 << 16, out);
        // The whole lines that came in one read go on together.
        let mut came = Vec::new();
        loop {
            let mut line = Vec::new();
            match (&mut out).take(MAX_ANSWER_LINE).read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => {
                    if !came.is_empty() {
                        send_on(&lines, w, Some(std::mem::take(&mut came)));
                    }
                    send_on(&lines, w, None);
                    break;
                }
                Ok(_) => {}
            }
            if line.last() != Some(&b'\n') {
                // Cut off: no line of the protocol is that long, so the process's output
                // can no longer be trusted (a bot in it writes to the pipe). What came
                // before goes on; then the pipe counts as closed, which ends the process
                // now, instead of keeping (or waiting for) the rest of a line that may
                // never end.
                if !came.is_empty() {
                    send_on(&lines, w, Some(std::mem::take(&mut came)));
                }
                send_on(&lines, w, None);
                break;
            } else if let Ok(line) = String::from_utf8(line) {
                came.push(line);
            }
            if !came.is_empty() && !out.buffer().contains(&b'\n') {
                send_on(&lines, w, Some(std::mem::take(&mut came)));
            }
        }
    });
}

/// A lockstep process's standard output as the game's loop reads it: at once, in the
/// host's own thread (a line's crossing wakes the host once, where a reader thread in
/// between woke twice: the thread, then the host). The same lines as [`spawn_reader`]'s:
/// whole lines, none that is not UTF-8, and nothing more once one longer than
/// [`MAX_ANSWER_LINE`] comes or the pipe closes.
#[derive(Debug)]
pub(super) struct LineReader {
    pipe: std::fs::File,
    /// What was read and is not a whole line yet.
    partial: Vec<u8>,
    /// Nothing more is read: its pipe closed, or a line over the cap came.
    closed: bool,
}

impl LineReader {
    /// The most bytes one [`LineReader::read`] takes: a flood of lines never holds off
    /// the other processes, nor the watchdog's look.
    const READ_AT_ONCE: usize = 1 << 18;

    pub(super) fn new(out: ChildStdout) -> std::io::Result<LineReader> {
        let pipe = std::fs::File::from(std::os::fd::OwnedFd::from(out));
        crate::process::set_nonblocking(&pipe)?;
        Ok(LineReader { pipe, partial: Vec::new(), closed: false })
    }

    /// The descriptor to wait on.
    pub(super) fn fd(&self) -> std::os::fd::RawFd {
        std::os::fd::AsRawFd::as_raw_fd(&self.pipe)
    }

    pub(super) fn closed(&self) -> bool {
        self.closed
    }

    /// Reads what the pipe holds now and appends the whole lines in it to `lines`;
    /// `true` when the reading ended (the pipe closed, or a line over the cap came: what
    /// came before it is in `lines`).
    pub(super) fn read(&mut self, lines: &mut Vec<String>) -> bool {
        if self.closed {
            return true;
        }
        let mut taken = 0;
        while taken < Self::READ_AT_ONCE {
            let before = self.partial.len();
            match crate::process::read_available(&mut self.pipe, &mut self.partial, 1 << 16) {
                Ok(None) => break,
                Ok(Some(0)) | Err(_) => {
                    self.closed = true;
                    break;
                }
                Ok(Some(n)) => taken += n,
            }
            if self.take_lines(before, lines) {
                self.closed = true;
                break;
            }
        }
        if self.closed {
            self.partial = Vec::new();
        }
        self.closed
    }

    /// Moves the whole lines of `partial` (whose first `searched` bytes hold no newline)
    /// to `lines`; `true` when one is over the cap.
    fn take_lines(&mut self, searched: usize, lines: &mut Vec<String>) -> bool {
        let cap = MAX_ANSWER_LINE as usize;
        let mut start = 0;
        let mut from = searched;
        while let Some(i) = memchr::memchr(b'\n', &self.partial[from..]) {
            let end = from + i + 1;
            if end - start > cap {
                return true;
            }
            if let Ok(line) = std::str::from_utf8(&self.partial[start..end]) {
                lines.push(line.to_owned());
            }
            start = end;
            from = end;
        }
        self.partial.drain(..start);
        self.partial.len() >= cap
    }

    /// Drops what came since the last game (a kept process's lines between games are
    /// nobody's answer).
    pub(super) fn discard(&mut self) {
        let mut stale = Vec::new();
        self.read(&mut stale);
        self.partial.clear();
    }
}

/// The thread that plays a worker's games: the worker's main thread (in a box, the
/// main thread of the process bwrap started), with the pids from `root` down to it
/// (its own last).
fn player_task(root: u32) -> Option<(Vec<u32>, TaskProbe)> {
    let me = std::env::current_exe().ok()?;
    let mut chain = vec![root];
    for _ in 0..4 {
        let pid = *chain.last()?;
        if std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|exe| exe == me) {
            return TaskProbe::open(pid, pid).map(|p| (chain, p));
        }
        chain.push(crate::process::first_child(pid)?);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_over_the_cap_ends_the_reading_of_a_worker_at_once() {
        // A line, then 20 MiB with no newline (over the 16 MiB cap), then one more line.
        let script = "printf 'first\\n'; head -c 20971520 /dev/zero | tr '\\0' x; printf '\\nafter\\n'";
        let mut child = std::process::Command::new("sh")
            .args(["-c", script])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("sh starts");
        let (send, events) = mpsc::channel();
        spawn_reader(child.stdout.take().expect("piped"), 7, send);
        let mut got = Vec::new();
        while let Ok((w, lines)) = events.recv_timeout(std::time::Duration::from_secs(60)) {
            assert_eq!(w, 7);
            let end = lines.is_none();
            got.extend(lines.unwrap_or_default());
            if end {
                got.push("(closed)".to_owned());
                break;
            }
        }
        // The line after the flood is never read: the process's output is done with.
        assert_eq!(got, ["first\n", "(closed)"]);
        let _ = child.kill();
        let _ = child.wait();
    }

    #[test]
    fn a_lockstep_processs_reader_takes_the_same_lines_and_stops_at_the_cap_too() {
        // Lines split across writes, one that is not UTF-8 (dropped), then a flood over
        // the cap and one more line, which is never read.
        let script = "printf 'first\\nsec'; sleep 0.05; printf 'ond\\n\\377\\nthird\\n'; \
                      head -c 20971520 /dev/zero | tr '\\0' x; printf '\\nafter\\n'";
        let mut child = std::process::Command::new("sh")
            .args(["-c", script])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("sh starts");
        let mut reader = LineReader::new(child.stdout.take().expect("piped")).expect("a pipe");
        let mut got = Vec::new();
        let mut ready = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(60);
        while !reader.read(&mut got) {
            assert!(Instant::now() < deadline, "the reading never ended: {got:?}");
            crate::process::wait_readable(&[reader.fd()], Duration::from_secs(1), &mut ready).expect("poll");
        }
        assert_eq!(got, ["first\n", "second\n", "third\n"]);
        assert!(reader.closed());
        let _ = child.kill();
        let _ = child.wait();
    }

    #[test]
    fn a_lockstep_processs_reader_sees_its_end() {
        let mut child = std::process::Command::new("sh")
            .args(["-c", "printf 'last\\nunfinished'"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("sh starts");
        let mut reader = LineReader::new(child.stdout.take().expect("piped")).expect("a pipe");
        let _ = child.wait();
        let mut got = Vec::new();
        assert!(reader.read(&mut got));
        // A line its writer never ended is not a line.
        assert_eq!(got, ["last\n"]);
    }

    #[test]
    fn a_flood_on_stderr_keeps_only_its_last_64_kib() {
        let mut flood = vec![b'x'; 5 << 20];
        flood.extend_from_slice(b"\nthe last words\n");
        let tail = StderrTail::drain(std::io::Cursor::new(flood)).last_words();
        assert_eq!(tail.len(), StderrTail::KEPT);
        assert!(tail.ends_with("x\nthe last words\n"));
    }
}
