//! Program bots: bots that are separate programs, in any language, talking over stdin/stdout.
//!
//! This module is the process layer only: it starts a program (optionally inside `bwrap`),
//! applies resource limits, sends requests and reads line answers with a deadline, drains
//! stderr into a capped sink, and ends the program with every process it forked. It knows
//! nothing about games, turns or the text of requests and answers: the caller speaks the
//! protocol, and the caller decides what a [`CallError`] costs the entry.
//!
//! Two ways to run a program:
//! - [`Process`]: persistent; one process answers many requests (`ask`). A request that
//!   times out leaves the process running; the lines it still owes are discarded when they
//!   arrive, so a late answer is never taken for the next one.
//! - [`run_once`]: one process per request; input on stdin, stdin closed, up to
//!   `max_lines` lines read (or EOF), then the process group is killed and reaped.
//!
//! Guarantees and their limits:
//! - Every child runs in its own process group; `kill` (also on `Drop`, and at the end of
//!   `run_once`) sends SIGKILL to the whole group and reaps the child, so neither the bot
//!   nor anything it forked is left behind. A process that leaves the group (`setsid`,
//!   `setpgid`) escapes that `killpg`, unless the bot runs under [`Sandbox::Bwrap`]: there
//!   the group holds bwrap, and its `--unshare-pid` namespace dies with it.
//! - Limits are `setrlimit` calls in the child between fork and exec. RLIMIT_CPU counts the
//!   whole life of a persistent process, not one request. RLIMIT_NPROC counts every process
//!   of the *user* and root ignores it: use [`Limits::run_as`] ([`default_run_as`] gives
//!   `nobody` when the host is root). A bot that runs as another user needs its files, and
//!   every directory above them, readable (and its program executable) by that user:
//!   [`Process::spawn`] checks this first and fails with one line saying what is missing
//!   (e.g. an interpreter under `/root`, like a pyenv shim, is out of reach for `nobody`).
//!   The count is per uid: bots running at the same time as the same uid share it, so give
//!   them room (threads count too) or a uid each.
//! - SIGPIPE: writes go to non-blocking pipes and `EPIPE` is handled (the child is then
//!   reported as [`CallError::Exited`]). The host must still not die of the signal itself:
//!   a Rust `main` ignores SIGPIPE already; others call [`ignore_sigpipe`] once. Children
//!   get SIGPIPE back at its default.
//! - Children get `PYTHONUNBUFFERED=1`. Programs in other languages must flush stdout after
//!   each answer (C: `fflush(stdout)` or `setvbuf(stdout, NULL, _IOLBF, 0)`), or they look
//!   hung to a persistent [`Process`]; [`run_once`] programs flush at exit anyway.
//!
//! Not here: the protocol, time banks, the choice of limits, tournament bookkeeping, and any
//! security beyond rlimits, a dropped uid, a `pids` control group with a memory control
//! group (where the host can make them: RLIMIT_AS alone is per process and does not count
//! shared mappings) and (optionally) bwrap. Its one seccomp filter (`seccomp`) keeps the
//! stamps true; it is no sandbox.
//!
//! The parts, by what they do (each public item is re-exported here, so callers name
//! `crate::process::X` whatever part holds it):
//! - `spawn`: starting a program in its own process group with its pipes, ending and
//!   reaping the whole group, how it ended; and confining the host's own helpers
//!   (workers, probes: [`confine_helper`], [`kill_group`], [`has_ended`]);
//! - `rlimits`: what the child applies between fork and exec (rlimits, its cap's group,
//!   SIGPIPE, another uid, the `seccomp` filter) and the checks that the uid can reach the program's files;
//! - `cap`: [`ProcessCap`], the `pids` control group capping a program's or a helper's
//!   processes, and its memory control group ([`ProcessCap::cap_memory`]);
//! - `sandbox`: [`Sandbox`] and the `bwrap` command lines (programs, helpers), and whether
//!   bwrap works here;
//! - `pipes`: polling on the program's own time, non-blocking reads and writes, lines,
//!   and the capped stderr sink, which both ways of running share;
//! - `stamped`: a program's stdin and stdout as FIFOs whose writes the kernel stamps,
//!   to tell when a request was all written to the program and when its answer was
//!   written, whenever the host got to either;
//! - `seccomp`: the system calls a program may not make, those that would write into
//!   its stdout without moving its stamp (`splice`, `tee`, `vmsplice`, `sendfile`,
//!   `io_uring`), installed between fork and exec, and, in a worker's box, those that
//!   would kill or stop the worker from another of the box's processes (its guard);
//! - `persistent`: [`Process`], the conversation with one long-lived program;
//! - `once`: [`run_once`], one process per request;
//! - `witness`: [`SignalWitness`], the kernel's word (its tracing, as root) on whether a
//!   boxed helper's SIGKILL came from outside its box.

use std::ffi::OsString;
use std::fmt;
use std::io;
use std::path::PathBuf;

mod cap;
mod once;
mod persistent;
mod pipes;
mod rlimits;
mod sandbox;
mod seccomp;
mod spawn;
mod stamped;
mod uids;
mod witness;

pub use cap::{BOX_FILES_MEMORY, MACHINE_OOM, MachineOom, OomKills, PROGRAMS_ENV, ProcessCap};
pub use once::{run_once, run_once_timed};
pub use persistent::Process;
pub use rlimits::default_run_as;
pub use sandbox::{Sandbox, box_filter_missing, boxes_guarded, bwrap_available, helper_command};
pub use seccomp::unavailable as filter_unavailable;
pub use spawn::signal_name;
pub use spawn::{
    GUARD_PROGRAMS_ENV, HOST_NICE, REFUSE_SELF_KILLS_ENV, confine_helper, describe_status, ends_by_itself, first_child,
    guard_programs, has_ended, ignore_sigpipe, kill_group, no_inherited_descriptors, raise_host_priority,
    refuse_self_kills,
};
pub use uids::{BoxUser, open_box_file};
pub use witness::{NO_WITNESS_ENV, STOPS as STOP_SIGNALS, SignalWitness};

/// Makes writes to `pipe` (and reads) return at once instead of waiting.
pub fn set_nonblocking(pipe: &std::fs::File) -> std::io::Result<()> {
    spawn::set_nonblocking(std::os::fd::AsRawFd::as_raw_fd(pipe))
}

/// Writes all of `bytes` to a pipe that does not block (`set_nonblocking`), waiting in
/// `poll` while it is full; an error once the reader is gone.
pub fn write_all_waiting(pipe: &std::fs::File, mut bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    while !bytes.is_empty() {
        match (&*pipe).write(bytes) {
            Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(n) => bytes = &bytes[n..],
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                let fd = std::os::fd::AsRawFd::as_raw_fd(pipe);
                let mut fds = [libc::pollfd { fd, events: libc::POLLOUT, revents: 0 }];
                // SAFETY: one valid pollfd, for as long as the call.
                if unsafe { libc::poll(fds.as_mut_ptr(), 1, -1) } < 0 {
                    let e = std::io::Error::last_os_error();
                    if e.kind() != std::io::ErrorKind::Interrupted {
                        return Err(e);
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Reads once what the non-blocking `pipe` holds now, at most `max` bytes, into `buf`'s
/// end. `Ok(None)`: nothing to read yet; `Ok(Some(0))`: its writer is gone (end of file).
pub fn read_available(pipe: &mut std::fs::File, buf: &mut Vec<u8>, max: usize) -> io::Result<Option<usize>> {
    pipes::read_some(pipe, buf, max)
}

/// Waits at most `timeout` until one of `fds` can be read or its writer is gone (a
/// signal that comes meanwhile ends the wait early); `ready` is set to the positions in
/// `fds` of those that can.
pub fn wait_readable(
    fds: &[std::os::fd::RawFd],
    timeout: std::time::Duration,
    ready: &mut Vec<usize>,
) -> io::Result<()> {
    let mut polled: Vec<libc::pollfd> = fds.iter().map(|&fd| pipes::pollfd(fd, libc::POLLIN)).collect();
    ready.clear();
    if pipes::poll_for(&mut polled, timeout)? {
        ready.extend(polled.iter().enumerate().filter(|(_, p)| p.revents != 0).map(|(i, _)| i));
    }
    Ok(())
}

/// How to start a program.
#[derive(Debug, Clone, Default)]
pub struct ProgramSpec {
    /// argv; `command[0]` is the program (a path, or a name looked up in `PATH`). For a
    /// script with a shebang line, just `[path]`.
    pub command: Vec<OsString>,
    /// Working directory; the host's when `None`.
    pub dir: Option<PathBuf>,
    /// Extra environment variables (the host's environment is inherited).
    pub env: Vec<(OsString, OsString)>,
    /// A directory of the program's own files (a program bot's `<file>.files/`): in a
    /// box it is bound back read-only beside the files of its command line.
    pub files: Option<PathBuf>,
}

impl ProgramSpec {
    /// A spec for `argv` with no directory and no extra environment.
    pub fn new<I, S>(argv: I) -> ProgramSpec
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        ProgramSpec { command: argv.into_iter().map(Into::into).collect(), dir: None, env: Vec::new(), files: None }
    }
}

/// Resource limits and policies for one program.
#[derive(Debug, Clone)]
pub struct Limits {
    /// RLIMIT_AS in bytes (virtual memory per process).
    pub address_space: Option<u64>,
    /// RLIMIT_CPU in seconds (SIGXCPU then, SIGKILL a second later); over the whole life of
    /// the process. Not set by a boxed worker, whose filter refuses every new CPU limit
    /// (for its children too).
    pub cpu_seconds: Option<u64>,
    /// Processes and threads of the program: its own `pids` control group's cap where
    /// the host (or a worker, in its room) can make one; else RLIMIT_NPROC, which counts
    /// every process of its user, and so is set only with `run_as` (root ignores it).
    pub processes: Option<u64>,
    /// RLIMIT_NOFILE: open file descriptors per process.
    pub open_files: Option<u64>,
    /// RLIMIT_FSIZE in bytes: the largest file the program may write (pipes are not counted).
    pub file_size: Option<u64>,
    /// The most bytes one answer (all its lines, newlines included) may take; more is
    /// [`CallError::Flood`]. Also the memory the host spends per answer.
    pub max_answer_bytes: usize,
    /// Bytes of stderr passed to the sink per process; the rest is read and dropped, and a
    /// single `[stderr truncated]` line is written instead.
    pub stderr_cap: u64,
    /// Sandbox to run in.
    pub sandbox: Sandbox,
    /// `(uid, gid)` to switch to before exec (needs root). See [`default_run_as`].
    pub run_as: Option<(u32, u32)>,
}

impl Default for Limits {
    /// No rlimits, 64 KiB per answer, 64 KiB of stderr, no sandbox, no uid change.
    fn default() -> Limits {
        Limits {
            address_space: None,
            cpu_seconds: None,
            processes: None,
            open_files: None,
            file_size: None,
            max_answer_bytes: 64 * 1024,
            stderr_cap: 64 * 1024,
            sandbox: Sandbox::None,
            run_as: None,
        }
    }
}

/// Why a call to a program failed. `Display` is one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallError {
    /// The deadline passed before the answer was complete. A [`Process`] stays alive.
    Timeout,
    /// The program ended (or closed its stdin/stdout) before answering: "exit status 1",
    /// "killed by signal 9 (SIGKILL)", ...
    Exited(String),
    /// The answer was longer than `max_answer_bytes`.
    Flood,
    /// The answer was not text (a line that is not UTF-8).
    Garbage(String),
    /// An I/O error on the host's side: what the host was doing (`"read"`, `"poll"`, ...)
    /// and the error, kept as the error's [`source`](std::error::Error::source).
    Io(&'static str, HostIo),
    /// The program could not be started.
    Spawn(String),
    /// The program's box was killed from outside it (in its own box, or in a boxed
    /// worker of one entry): the program died of a SIGKILL that nothing in its box
    /// could have sent (its filter guards it: `seccomp`), with no memory or CPU limit
    /// of its own reached, or its bwrap died of a signal; or the call ran out of time
    /// while it stood stopped by a signal (which, too, only something outside its box
    /// can send it): then the host has killed it. The host's fault or
    /// the machine's, not the program's: how it ended, as [`CallError::Exited`] says it.
    /// It cannot fake it by exiting with status 137 (the boxes' exit rule kills it by
    /// SIGSYS: `seccomp`) nor by lowering its CPU limit (its filter refuses it), and
    /// where it has no memory group a death while the machine's OOM killer killed a
    /// process is not this ([`MachineOom`]); what it can still bring on itself
    /// (`docs/hardening.md`) the caller believes as often as it decides.
    KilledFromOutside(String),
}

impl CallError {
    /// How the program ended, when it did ([`CallError::Exited`] or
    /// [`CallError::KilledFromOutside`]): every later call of its process fails so.
    pub fn ended(&self) -> Option<&str> {
        match self {
            CallError::Exited(how) | CallError::KilledFromOutside(how) => Some(how),
            _ => None,
        }
    }
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::Timeout => f.write_str("timed out"),
            CallError::Exited(how) => write!(f, "program ended: {how}"),
            CallError::Flood => f.write_str("answer too long"),
            CallError::Garbage(what) => write!(f, "garbage answer: {what}"),
            CallError::Io(doing, e) => write!(f, "i/o error: {doing}: {}", e.0),
            CallError::Spawn(what) => write!(f, "cannot start program: {what}"),
            CallError::KilledFromOutside(how) => write!(f, "program killed from outside its box ({how})"),
        }
    }
}

impl std::error::Error for CallError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CallError::Io(_, e) => Some(&*e.0),
            _ => None,
        }
    }
}

/// An I/O error of the host's, shared so that a [`CallError`] stays `Clone`; two are
/// equal when their kinds and messages are.
#[derive(Debug, Clone)]
pub struct HostIo(pub std::sync::Arc<io::Error>);

impl PartialEq for HostIo {
    fn eq(&self, other: &Self) -> bool {
        self.0.kind() == other.0.kind() && self.0.to_string() == other.0.to_string()
    }
}

impl Eq for HostIo {}

fn io_err(doing: &'static str, e: io::Error) -> CallError {
    CallError::Io(doing, HostIo(std::sync::Arc::new(e)))
}

/// For a test that cannot run on this machine (no box, no filter, not root): says so
/// on stderr, and fails instead under `CI`, which must run every test (as
/// `tests/util::skip` does for the integration tests).
#[cfg(test)]
pub(crate) fn skip(line: &str) {
    assert!(std::env::var_os("CI").is_none(), "CI must run this test, but: {line}");
    eprintln!("{line}");
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::{CallError, io_err};

    #[test]
    fn a_host_io_error_says_what_the_host_was_doing_and_keeps_the_error_as_its_source() {
        let e = io_err("read", std::io::Error::from(std::io::ErrorKind::BrokenPipe));
        assert_eq!(e.to_string(), format!("i/o error: read: {}", std::io::Error::from(std::io::ErrorKind::BrokenPipe)));
        let source = e.source().and_then(|s| s.downcast_ref::<std::io::Error>()).expect("the io::Error as source");
        assert_eq!(source.kind(), std::io::ErrorKind::BrokenPipe);
        assert_eq!(e.clone(), e);
        assert_ne!(e, io_err("poll", std::io::Error::from(std::io::ErrorKind::BrokenPipe)));
        assert!(CallError::Timeout.source().is_none());
    }
}
