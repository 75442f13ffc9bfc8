//! The conversation with a persistent program: [`Process`], one process that answers
//! many requests (`ask`: write a request, read its lines before the call has used its
//! own time). A request that fails (timeout, flood, garbage) leaves its lines owed; they
//! are discarded when they arrive, never taken for the next answer. Its stderr is drained
//! by a thread into a capped sink.
//!
//! Not here: the protocol (the games' `program.rs`), one process per request (`once`).

use std::fmt;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::process::{Child, ChildStdin, ChildStdout, ExitStatus};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

#[cfg(doc)]
use super::Sandbox;
use super::cap::ProcessCap;
use super::pipes::{READ_CHUNK, StderrCap, line_to_string, poll_timed, pollfd, read_some, write_some};
use super::spawn::{
    STOPPED_FROM_OUTSIDE, Started, describe_status, end_group_timed, ending, start, stopped_from_outside, wait_exit,
    witnessed,
};
use super::{CallError, Limits, ProgramSpec, io_err};
use crate::clock::{ProgramTasks, ProgramTimer};

/// A persistent program: one process, many requests. Killed (with its whole process group)
/// and reaped by [`Process::kill`] or on drop.
pub struct Process {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: ChildStdout,
    /// Stdout is a stamped pipe (`super::stamped`).
    stamped: bool,
    /// Stdin is one too.
    stdin_stamped: bool,
    /// Bytes read from stdout in the call in progress (or the last).
    read_in_call: usize,
    pidfd: Option<OwnedFd>,
    /// Bytes read from stdout and not yet consumed.
    buf: Vec<u8>,
    /// Lines still owed for earlier requests that failed (timeout, flood, garbage); they are
    /// discarded when they arrive.
    stale: usize,
    /// Request bytes not yet taken by the pipe (kept across calls, so no request is cut).
    unwritten: Vec<u8>,
    /// Answer lines owed to requests sent ahead of their calls ([`Process::send_ahead`]):
    /// kept when they arrive, for the calls that will read them.
    ahead: usize,
    max_answer: usize,
    /// Set once the process has ended: why, for every later call.
    ended: Option<String>,
    reaped: bool,
    stderr_done: Option<(mpsc::Receiver<()>, JoinHandle<()>)>,
    /// Its tasks, whose waits for a CPU are not charged to its calls.
    tasks: ProgramTasks,
    /// The own time of the last call (`crate::clock`).
    last_time: Duration,
    /// Its own process cap, if any (dropped after the program is killed).
    cap: Option<ProcessCap>,
    /// Set when it is killed: its memory group's OOM killer ended a process of it for
    /// its own memory limit (see [`super::spawn::over_memory`]).
    over_memory: Option<String>,
    /// The machine's OOM kills when it started (see [`super::cap::MachineOom`]).
    machine_oom: super::cap::MachineOom,
    /// Set when it is killed: the machine's OOM killer killed a process while it ran,
    /// and no memory group of its own says whose.
    oom_unaccounted: bool,
    /// The uid its box runs as, if leased (released after the program is killed).
    _user: Option<super::uids::BoxUser>,
    /// What it was started under: whether a death was its own ([`ending`]).
    limits: Limits,
}

impl Process {
    /// Starts the program. Its stderr is drained by a thread into `stderr_sink`, capped at
    /// `limits.stderr_cap` bytes.
    pub fn spawn(
        spec: &ProgramSpec,
        limits: &Limits,
        mut stderr_sink: Box<dyn Write + Send>,
    ) -> Result<Process, CallError> {
        let Started {
            child,
            stdin,
            stdout,
            mut stderr,
            pidfd,
            cap: process_cap,
            user,
            machine_oom,
            stamped,
            stdin_stamped,
        } = start(spec, limits, true)?;
        let cap = limits.stderr_cap;
        let (tx, rx) = mpsc::channel();
        let thread = std::thread::Builder::new().name(format!("stderr-{}", child.id())).spawn(move || {
            let mut capper = StderrCap::new(cap);
            let mut chunk = vec![0u8; 16 * 1024];
            loop {
                match stderr.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => capper.feed(&mut *stderr_sink, &chunk[..n]),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            let _ = stderr_sink.flush();
            let _ = tx.send(());
        });
        let mut process = Process {
            child,
            stdin: Some(stdin),
            stdout,
            stamped,
            stdin_stamped,
            read_in_call: 0,
            pidfd,
            buf: Vec::new(),
            stale: 0,
            unwritten: Vec::new(),
            ahead: 0,
            max_answer: limits.max_answer_bytes,
            ended: None,
            reaped: false,
            stderr_done: None,
            tasks: ProgramTasks::default(),
            last_time: Duration::ZERO,
            cap: process_cap,
            over_memory: None,
            machine_oom,
            oom_unaccounted: false,
            _user: user,
            limits: limits.clone(),
        };
        process.tasks = ProgramTasks::new(process.child.id());
        match thread {
            Ok(handle) => process.stderr_done = Some((rx, handle)),
            Err(e) => {
                process.kill();
                return Err(io_err("cannot start the stderr thread", e));
            }
        }
        Ok(process)
    }

    /// The child's pid (also its process group id). With [`Sandbox::Bwrap`], bwrap's pid.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Lines still owed for earlier failed requests, to be discarded when they arrive.
    pub fn stale_lines(&self) -> usize {
        self.stale
    }

    /// Whether the process has ended (found dead by a call, or killed).
    pub fn has_ended(&self) -> bool {
        self.ended.is_some()
    }

    /// Writes `request` (sent as is: include the newline) and reads exactly `lines` lines
    /// before `timeout`. First discards lines still owed for earlier failed requests and any
    /// output nobody asked for. With `lines == 0`, only waits until the request is written.
    ///
    /// On `Timeout`, `Flood` and `Garbage` the process stays alive and the rest of the answer
    /// is discarded when it arrives; on `Exited` it has been killed and reaped, and every
    /// later call returns `Exited` again. The program counts as ended when its first process
    /// ends, even if a child of it still holds stdout open.
    ///
    /// `timeout` is the program's own time (`crate::clock`): the wall time of the call
    /// less the time the program's tasks and the calling thread waited for a CPU, so a
    /// loaded machine does not make a call time out; [`Process::last_call_time`] is
    /// what the call took.
    pub fn ask(&mut self, request: &[u8], lines: usize, timeout: Duration) -> Result<Vec<String>, CallError> {
        if let Some(how) = &self.ended {
            return Err(CallError::Exited(how.clone()));
        }
        let mut tasks = std::mem::take(&mut self.tasks);
        let mut timer = ProgramTimer::start(timeout, Some(&mut tasks));
        self.read_in_call = 0;
        let result = self.ask_timed(request, lines, &mut timer, &mut tasks);
        // The stamps before the waits (`ProgramTimer::wants_stamp`).
        let written = timer.wants_stamp().then(|| self.written(lines)).flatten();
        self.last_time = timer.charge(Some(&mut tasks), false);
        self.tasks = tasks;
        let late = timer.answered_late(|| written);
        match (result, late) {
            // Read in full, but written after its deadline and past the limit.
            (Ok(_), Some(time)) => {
                self.last_time = time;
                Err(CallError::Timeout)
            }
            // Read in full, but after its own time was up: it came while the host took
            // its second look at a call that seemed over its limit.
            (Ok(_), None) if self.last_time > timeout => Err(CallError::Timeout),
            (other, _) => other,
        }
    }

    /// Sends `request` now for a call that will read its `lines` answer lines later
    /// ([`Process::ask_ahead`]), so that a program gets a turn's calls in one write and
    /// answers them one after the other without waiting for the host between them.
    /// Nothing is written yet: the next call writes every request sent ahead in one
    /// write (as much as the pipe takes; the rest as it drains, within its deadline).
    pub fn send_ahead(&mut self, request: &[u8], lines: usize) {
        if self.ended.is_some() {
            return;
        }
        self.unwritten.extend_from_slice(request);
        self.ahead += lines;
    }

    /// Reads the answer of a request sent ahead: first drops the answers of the `skip`
    /// requests sent before it (calls that were not made), then reads its `lines` lines
    /// as [`Process::ask`] does, nothing more being written.
    pub fn ask_ahead(&mut self, skip: usize, lines: usize, timeout: Duration) -> Result<Vec<String>, CallError> {
        self.forget_ahead(skip);
        let result = self.ask(&[], lines, timeout);
        self.ahead = self.ahead.saturating_sub(lines);
        result
    }

    /// The answers of `lines` lines sent ahead will not be read: they are owed, and
    /// dropped when they arrive.
    pub fn forget_ahead(&mut self, lines: usize) {
        let lines = lines.min(self.ahead);
        self.ahead -= lines;
        self.stale += lines;
    }

    /// When the program last wrote its stdout, and the host its stdin, by their stamps
    /// (`super::stamped::written`), after a call that read `lines` lines. The last write
    /// is the answer's only if nothing came after it: no answer to a request sent ahead
    /// was owed after it, nothing is left unread (a `#` line, say), and the pipe never
    /// filled in the call (a program blocked on a full pipe writes its last bytes when
    /// the host has read the others, however long that takes).
    fn written(&self, lines: usize) -> Option<super::super::clock::Written> {
        let fd = self.stdout.as_raw_fd();
        let stdin = self.stdin.as_ref().filter(|_| self.stdin_stamped).map(AsRawFd::as_raw_fd);
        let mut written = super::stamped::written(self.stamped, fd, stdin)?;
        // After the stamp: a byte written since is seen unread.
        let answer_last = self.ahead <= lines
            && self.buf.is_empty()
            && super::stamped::unread(fd) == Some(0)
            && super::stamped::pipe_size(fd)
                .is_some_and(|size| self.read_in_call.saturating_add(libc::PIPE_BUF) < size);
        if !answer_last {
            written.earliest = None;
        }
        Some(written)
    }

    /// The own time the last [`Process::ask`] took.
    pub fn last_call_time(&self) -> Duration {
        self.last_time
    }

    fn ask_timed(
        &mut self,
        request: &[u8],
        lines: usize,
        timer: &mut ProgramTimer,
        tasks: &mut ProgramTasks,
    ) -> Result<Vec<String>, CallError> {
        // Drop what arrived since the last call: owed lines, then anything unasked for.
        self.fill_available()?;
        self.skip_stale();
        if self.stale == 0 && self.ahead == 0 {
            self.buf.clear();
        }
        self.unwritten.extend_from_slice(request);
        let mut answer: Vec<String> = Vec::with_capacity(lines);
        let mut answer_bytes = 0usize;
        let mut exited = false;
        let mut eof = false;
        loop {
            if !self.unwritten.is_empty()
                && let Some(stdin) = &mut self.stdin
                && let Err(e) = write_some(stdin, &mut self.unwritten)
            {
                if e.kind() == io::ErrorKind::BrokenPipe {
                    return Err(self.died("closed its stdin"));
                }
                return Err(io_err("write", e));
            }
            if self.unwritten.is_empty() {
                // Its stamp is read only if it may decide (`Written::requested`).
                timer.request_written();
            }
            if let Err(e) = self.take_lines(&mut answer, &mut answer_bytes, lines) {
                return Err(self.fail(e, lines, answer.len()));
            }
            if answer.len() == lines && (lines > 0 || self.unwritten.is_empty()) {
                return Ok(answer);
            }
            if exited || eof {
                return Err(self.died("closed its stdout"));
            }
            let mut fds = [
                pollfd(self.stdout.as_raw_fd(), libc::POLLIN),
                pollfd(self.pidfd.as_ref().map_or(-1, |f| f.as_raw_fd()), libc::POLLIN),
                pollfd(
                    match &self.stdin {
                        Some(s) if !self.unwritten.is_empty() => s.as_raw_fd(),
                        _ => -1,
                    },
                    libc::POLLOUT,
                ),
            ];
            match poll_timed(&mut fds, timer, Some(tasks), false) {
                Err(e) => return Err(io_err("poll", e)),
                // Out of time while stopped from outside its box: not its doing.
                Ok(false) if stopped_from_outside(self.pid(), &self.limits) => {
                    self.kill_inner();
                    self.ended = Some(STOPPED_FROM_OUTSIDE.to_owned());
                    return Err(CallError::KilledFromOutside(STOPPED_FROM_OUTSIDE.to_owned()));
                }
                Ok(false) => return Err(self.fail(CallError::Timeout, lines, answer.len())),
                Ok(true) => {}
            }
            if fds[1].revents != 0 {
                // The leader ended: everything it wrote is in the pipe; read it all.
                exited = true;
                loop {
                    match read_some(&mut self.stdout, &mut self.buf, READ_CHUNK) {
                        Ok(Some(0)) | Ok(None) => break,
                        Ok(Some(n)) => {
                            self.read_in_call += n;
                            if let Err(e) = self.take_lines(&mut answer, &mut answer_bytes, lines) {
                                return Err(self.fail(e, lines, answer.len()));
                            }
                            if answer.len() == lines {
                                break;
                            }
                        }
                        Err(e) => return Err(io_err("read", e)),
                    }
                }
            } else if fds[0].revents != 0 {
                match read_some(&mut self.stdout, &mut self.buf, READ_CHUNK) {
                    Ok(Some(0)) => eof = true,
                    Ok(Some(n)) => self.read_in_call += n,
                    Ok(None) => {}
                    Err(e) => return Err(io_err("read", e)),
                }
            }
        }
    }

    /// Reads whatever is available now without blocking (bounded), dropping owed lines as it
    /// goes so that a flooding bot costs no memory.
    fn fill_available(&mut self) -> Result<(), CallError> {
        let mut budget = 4 * READ_CHUNK.max(self.max_answer);
        while budget > 0 {
            match read_some(&mut self.stdout, &mut self.buf, READ_CHUNK) {
                Ok(Some(0)) | Ok(None) => break,
                Ok(Some(n)) => {
                    self.read_in_call += n;
                    budget = budget.saturating_sub(n);
                    self.skip_stale();
                    if self.stale == 0 && self.ahead == 0 {
                        self.buf.clear();
                    } else if self.stale == 0 && self.buf.len() > self.max_answer {
                        // Answers of calls sent ahead wait here: a call reads them (and
                        // finds a flood) before more is read.
                        break;
                    }
                }
                Err(e) => return Err(io_err("read", e)),
            }
        }
        Ok(())
    }

    /// Drops owed lines from the front of `buf`; a partial owed line is dropped too (its
    /// end is still owed).
    fn skip_stale(&mut self) {
        let mut pos = 0;
        while self.stale > 0 {
            match self.buf[pos..].iter().position(|&b| b == b'\n') {
                Some(i) => {
                    if !super::pipes::is_said(&self.buf[pos..pos + i]) {
                        self.stale -= 1;
                    }
                    pos += i + 1;
                }
                None => {
                    pos = self.buf.len();
                    break;
                }
            }
        }
        self.buf.drain(..pos);
    }

    /// Moves complete lines from `buf` into `answer` (after dropping owed lines).
    fn take_lines(&mut self, answer: &mut Vec<String>, bytes: &mut usize, lines: usize) -> Result<(), CallError> {
        self.skip_stale();
        if self.stale > 0 {
            return Ok(());
        }
        let mut pos = 0;
        let mut result = Ok(());
        while answer.len() < lines {
            let Some(i) = self.buf[pos..].iter().position(|&b| b == b'\n') else { break };
            if super::pipes::said_line(&self.buf[pos..pos + i]) {
                pos += i + 1;
                continue;
            }
            *bytes += i + 1;
            if *bytes > self.max_answer {
                result = Err(CallError::Flood);
                break;
            }
            match line_to_string(&self.buf[pos..pos + i], answer.len()) {
                Ok(s) => answer.push(s),
                Err(e) => {
                    pos += i + 1;
                    // This line is consumed; the rest of the answer is owed.
                    self.buf.drain(..pos);
                    self.stale += lines - answer.len() - 1;
                    return Err(e);
                }
            }
            pos += i + 1;
        }
        self.buf.drain(..pos);
        if result.is_ok() && answer.len() < lines && *bytes + self.buf.len() > self.max_answer {
            result = Err(CallError::Flood);
        }
        if result.is_err() {
            // The rest of the answer is owed, starting with the line too long to keep.
            self.stale += lines - answer.len();
            self.skip_stale();
        }
        result
    }

    /// Books the rest of a failed answer as owed (Timeout, Flood); Garbage is booked where
    /// it is found.
    fn fail(&mut self, e: CallError, lines: usize, got: usize) -> CallError {
        if e == CallError::Timeout {
            self.stale += lines - got;
        }
        e
    }

    /// The child closed a pipe or ended: give it a moment to end by itself
    /// ([`super::spawn::OWN_END_GRACE`]), then kill the group and report how it ended
    /// (killed from outside its box, when only that can explain it: [`ending`]).
    fn died(&mut self, what: &str) -> CallError {
        let exited = wait_exit(self.pid(), super::spawn::OWN_END_GRACE);
        let error = match self.kill_inner() {
            Some(end) if exited => {
                let over = self.over_memory.as_deref();
                ending(
                    &|sigs| witnessed(self.pid(), sigs),
                    describe_status(end.0),
                    true,
                    end,
                    &self.limits,
                    over,
                    self.oom_unaccounted,
                )
            }
            _ => CallError::Exited(what.to_string()),
        };
        self.ended = error.ended().map(str::to_owned);
        error
    }

    /// Kills the whole process group with SIGKILL and reaps the child. Idempotent; also
    /// done on drop. Waits up to half a second for the stderr thread to pass on the rest.
    pub fn kill(&mut self) {
        self.kill_inner();
        if self.ended.is_none() {
            self.ended = Some("killed by the host".to_string());
        }
    }

    fn kill_inner(&mut self) -> Option<(ExitStatus, Option<Duration>)> {
        if self.reaped {
            return None;
        }
        self.stdin = None;
        let status = end_group_timed(&mut self.child);
        self.reaped = true;
        self.over_memory = super::spawn::over_memory(self.cap.as_ref());
        self.oom_unaccounted = self.machine_oom.unaccounted(self.cap.as_ref());
        // What left the process group (a `setsid` daemon) is still in the cap.
        drop(self.cap.take());
        if let Some((rx, handle)) = self.stderr_done.take() {
            // A process that left the group may hold stderr open: then detach the thread.
            if rx.recv_timeout(Duration::from_millis(500)).is_ok() {
                let _ = handle.join();
            }
        }
        Some(status)
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill_inner();
    }
}

impl fmt::Debug for Process {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Process")
            .field("pid", &self.pid())
            .field("stale", &self.stale)
            .field("ended", &self.ended)
            .finish()
    }
}
