//! The kernel's word on who sent a signal that ends a worker ([`SignalWitness`]):
//! whether a boxed helper (a worker) that died of SIGKILL, or of another signal that
//! ends a process by default ([`TRACED`]), was sent it by a process outside its box, or
//! brought it on itself.
//!
//! A SIGKILL cannot be caught, and a box's exit status only says that one came; a
//! native bot in a worker can send it, or any other, to its own worker, and can say
//! anything its worker could say about it. The kernel's tracing can say who sent it:
//! its `signal_generate` event names the task that made each signal (the sender) and
//! the task it goes to. Where the host is root and tracing is mounted (or it can mount
//! it at `/sys/kernel/tracing`), it keeps two trace instances of its own:
//! - **every such signal** of the machine, with its sender, its target and how it was
//!   sent (`code`: a `kill`, a `tgkill`, ...);
//! - **those the boxes' tasks made**: the same event, traced only for the tasks
//!   the host added and every task they fork (the kernel's `event-fork`): each host
//!   thread that starts helpers joins once ([`SignalWitness::join_thread`]), so every
//!   helper it forks is traced from its first instruction, before it can run a bot's
//!   code.
//!
//! A helper was sent a signal from outside its box when that signal, sent to it by
//! `kill` or `tgkill`, appears in the first and not in the second, from a task that is
//! not the host's own. The second instance also keeps who forked whom among the boxes'
//! tasks (`sched_process_fork`), so that a signal from outside to any task of a box (a
//! program its worker started, a thread) is known as the box's
//! ([`SignalWitness::sent_from_outside_to_tree`]). A signal the kernel sends of itself (a timer's, a CPU limit's,
//! the OOM killer's, a fault's) is not taken as from outside: its sender is whatever
//! task ran at the time.
//!
//! It decides nothing: whether such a death is the entry's fault is its caller's call.
//! Not here: hosts that are not root (no tracing): there the host judges a worker's death
//! without the kernel's word (`lockstep_host::killed_from_outside`).

use std::fs::{File, OpenOptions};
use std::io::{Read as _, Write as _};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// Where tracing is mounted, the first that holds `instances`.
const TRACEFS: [&str; 2] = ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"];

/// The variable that keeps a process from making a witness: set in every worker (the
/// host's witness judges), and by tests that play a host that is not root.
pub const NO_WITNESS_ENV: &str = "ARENA_NO_SIGNAL_WITNESS";

/// The prefix of this host's trace instances (then its pid).
const PREFIX: &str = "arena-witness-";

/// How many events are kept, per instance (the oldest go first).
const KEPT: usize = 4096;

/// Each instance's ring buffer, per CPU, in KiB: such signals are few.
const BUFFER_KIB: &str = "64";

/// The boxes' instance's ring buffer, per CPU, in KiB: it also holds the boxes' forks
/// (threads included) between two reads, some 20,000 of them (a fork's record is about
/// 50 bytes); it is read at every box start ([`SignalWitness::join_thread`]) and when a
/// worker is ready ([`SignalWitness::note_forks`]).
const BOXED_BUFFER_KIB: &str = "1024";

/// Two events of the two instances are the same signal when their times are this close
/// (each instance reads the clock for itself), in microseconds.
const SAME_EVENT_US: u64 = 2_000;

/// The signals traced: SIGKILL, and those that end a worker by default and that it used
/// to tell apart itself (`isolate::watch_outside_signals`, which a worker of a host with
/// a witness leaves off): SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGUSR1,
/// SIGSEGV, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF and SIGSYS. (A worker ignores SIGINT,
/// SIGTERM and SIGHUP; SIGSTOP does not end it.)
const TRACED: [i32; 14] = [9, 3, 4, 5, 6, 7, 8, 10, 11, 12, 14, 26, 27, 31];

/// The signals that stop a task (SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU), traced too: a
/// program stopped from outside its box is not its fault either.
pub const STOPS: [i32; 4] = [19, 20, 21, 22];

/// The most forks kept (who forked whom, [`Instance::forks`]); past it the older half
/// is forgotten.
const FORKS_KEPT: usize = 1 << 18;

/// The kernel's `si_code`s of a signal a task sent by a system call: `kill` (SI_USER),
/// `sigqueue` (SI_QUEUE), `tkill` / `tgkill` (SI_TKILL).
const SENT_CODES: [i32; 3] = [0, -1, -6];

/// One `signal_generate` event: the signal, the sender's task id, the target's, how it
/// was sent, and when (microseconds of the trace clock).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Event {
    sig: i32,
    sender: u32,
    target: u32,
    code: i32,
    at_us: u64,
}

/// One trace instance: its directory, its `trace_pipe` (read without blocking), what
/// was read from it so far and the events kept.
#[derive(Debug)]
struct Instance {
    dir: PathBuf,
    pipe: File,
    partial: Vec<u8>,
    events: std::collections::VecDeque<Event>,
    /// The boxed instance: per task id, the task that forked it and when (the latest
    /// fork of that id: a reused id names its newest task).
    forks: std::collections::HashMap<u32, (u32, u64)>,
}

impl Instance {
    /// Makes the instance `name` tracing every `signal_generate` of a signal of
    /// [`TRACED`] (for the tasks in its `set_event_pid` only, with `boxed`).
    fn make(tracefs: &Path, name: &str, boxed: bool) -> std::io::Result<Instance> {
        let dir = tracefs.join("instances").join(name);
        std::fs::create_dir(&dir)?;
        let made = (|| {
            std::fs::write(dir.join("buffer_size_kb"), if boxed { BOXED_BUFFER_KIB } else { BUFFER_KIB })?;
            // One clock for both instances, comparable across CPUs.
            let _ = std::fs::write(dir.join("trace_clock"), "mono");
            if boxed {
                std::fs::write(dir.join("options/event-fork"), "1")?;
                // An empty list would trace every task: until a box joins, none.
                std::fs::write(dir.join("set_event_pid"), "0")?;
                std::fs::write(dir.join("events/sched/sched_process_fork/enable"), "1")?;
            }
            let event = dir.join("events/signal/signal_generate");
            // The signals traced, sent by a system call (a timer's SIGALRM and a fault's
            // SIGSEGV, which may be many, are not kept).
            let sigs: Vec<String> = TRACED.iter().chain(&STOPS).map(|sig| format!("sig == {sig}")).collect();
            let codes: Vec<String> = SENT_CODES.iter().map(|code| format!("code == {code}")).collect();
            std::fs::write(event.join("filter"), format!("({}) && ({})", sigs.join(" || "), codes.join(" || ")))?;
            std::fs::write(event.join("enable"), "1")?;
            let pipe = OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
                .open(dir.join("trace_pipe"))?;
            Ok(pipe)
        })();
        match made {
            Ok(pipe) => Ok(Instance {
                dir,
                pipe,
                partial: Vec::new(),
                events: std::collections::VecDeque::new(),
                forks: std::collections::HashMap::new(),
            }),
            Err(e) => {
                let _ = std::fs::remove_dir(&dir);
                Err(e)
            }
        }
    }

    /// Reads every event traced since the last read.
    fn drain(&mut self) {
        let mut buf = [0u8; 16 * 1024];
        loop {
            match self.pipe.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => self.partial.extend_from_slice(&buf[..n]),
            }
        }
        let Some(end) = self.partial.iter().rposition(|&b| b == b'\n') else { return };
        let lines: Vec<u8> = self.partial.drain(..=end).collect();
        for line in lines.split(|&b| b == b'\n') {
            let Ok(line) = std::str::from_utf8(line) else { continue };
            if let Some(event) = parse_line(line) {
                if self.events.len() == KEPT {
                    self.events.pop_front();
                }
                self.events.push_back(event);
            } else if let Some((parent, child, at_us)) = parse_fork(line) {
                if self.forks.len() >= FORKS_KEPT {
                    let mut times: Vec<u64> = self.forks.values().map(|&(_, at)| at).collect();
                    let (_, &mut median, _) = times.select_nth_unstable(FORKS_KEPT / 2);
                    self.forks.retain(|_, &mut (_, at)| at > median);
                }
                self.forks.insert(child, (parent, at_us));
            }
        }
    }
}

/// Reads one line of `trace_pipe`:
/// `<comm>-<tid> [<cpu>] <flags> <seconds>.<micros>: signal_generate: sig=9 errno=0
/// code=0 comm=<comm> pid=<tid> grp=1 res=0`. Both names may hold anything, spaces and
/// dashes included (a bot names its own tasks), and are 15 bytes at most: the line is
/// read from the event's name outwards, which no name can hold.
fn parse_line(line: &str) -> Option<Event> {
    let (head, fields) = line.split_once(": signal_generate: ")?;
    let (sender, at_us) = parse_head(head)?;
    // The fields: sig, errno and code first; pid, grp and res last (the target's name
    // between them may hold anything).
    let words: Vec<&str> = fields.split(' ').collect();
    let field = |w: Option<&&str>, key: &str| w.and_then(|w| w.strip_prefix(key)).and_then(|v| v.parse::<i64>().ok());
    let sig = field(words.first(), "sig=")?;
    let code = field(words.get(2), "code=")?;
    let target = field(words.len().checked_sub(3).and_then(|i| words.get(i)), "pid=")?;
    let sig = i32::try_from(sig).ok()?;
    (TRACED.contains(&sig) || STOPS.contains(&sig)).then_some(Event {
        sig,
        sender,
        target: u32::try_from(target).ok()?,
        code: i32::try_from(code).ok()?,
        at_us,
    })
}

/// Reads a fork of `trace_pipe`: `<comm>-<tid> [<cpu>] <flags> <time>: sched_process_fork:
/// comm=<comm> pid=<tid> child_comm=<comm> child_pid=<tid>`, made by the forking task
/// (the head's): `(parent, child, at_us)`. The child's id is the last field, which no
/// name can follow.
fn parse_fork(line: &str) -> Option<(u32, u32, u64)> {
    let (head, fields) = line.split_once(": sched_process_fork: ")?;
    let (parent, at_us) = parse_head(head)?;
    let (_, child) = fields.trim_end().rsplit_once(" child_pid=")?;
    Some((parent, child.parse().ok()?, at_us))
}

/// The task and the time (microseconds) of an event's head, `<comm>-<tid> [<cpu>]
/// <flags> <seconds>.<micros>`, read from its end (the name may hold anything).
fn parse_head(head: &str) -> Option<(u32, u64)> {
    let mut rest = head.trim_end();
    let (before, time) = rest.rsplit_once(' ')?;
    rest = before.trim_end();
    let (before, _flags) = rest.rsplit_once(' ')?;
    rest = before.trim_end();
    let (before, _cpu) = rest.rsplit_once(' ')?;
    let (_, task) = before.trim_end().rsplit_once('-')?;
    let (secs, micros) = time.trim_end_matches(':').split_once('.')?;
    let at_us = secs.parse::<u64>().ok()?.checked_mul(1_000_000)?.checked_add(micros.parse().ok()?)?;
    Some((task.parse().ok()?, at_us))
}

/// The two instances of a host (see the module's doc).
#[derive(Debug)]
pub struct SignalWitness {
    all: Mutex<Instance>,
    boxed: Mutex<Instance>,
    /// The boxed instance's `set_event_pid`, open for appending (a helper's process
    /// writes its own pid there before it runs anything else).
    join: File,
    /// The two instances' directories, and every descriptor the witness holds open in
    /// them (read without the locks by [`remove_at_exit`]).
    dirs: [PathBuf; 2],
    fds: [RawFd; 3],
}

static WITNESS: OnceLock<Option<SignalWitness>> = OnceLock::new();

impl SignalWitness {
    /// The host's witness, made at first use: `None` where the host is not root or
    /// tracing cannot be had (then nothing is ever taken as killed from outside by it).
    pub fn get() -> Option<&'static SignalWitness> {
        WITNESS.get_or_init(SignalWitness::make).as_ref()
    }

    fn make() -> Option<SignalWitness> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 || std::env::var_os(NO_WITNESS_ENV).is_some() {
            return None;
        }
        let tracefs = tracefs()?;
        remove_stale(&tracefs);
        let pid = std::process::id();
        let all = Instance::make(&tracefs, &format!("{PREFIX}{pid}-all"), false).ok()?;
        let boxed = match Instance::make(&tracefs, &format!("{PREFIX}{pid}-boxed"), true) {
            Ok(b) => b,
            Err(_) => {
                remove(&all.dir);
                return None;
            }
        };
        let join =
            match OpenOptions::new().append(true).custom_flags(libc::O_CLOEXEC).open(boxed.dir.join("set_event_pid")) {
                Ok(f) => f,
                Err(_) => {
                    remove(&all.dir);
                    remove(&boxed.dir);
                    return None;
                }
            };
        let dirs = [all.dir.clone(), boxed.dir.clone()];
        let fds = [all.pipe.as_raw_fd(), boxed.pipe.as_raw_fd(), join.as_raw_fd()];
        // SAFETY: `remove_at_exit` is an extern "C" fn that only touches the file system.
        unsafe { libc::atexit(remove_at_exit) };
        Some(SignalWitness { all: Mutex::new(all), boxed: Mutex::new(boxed), join, dirs, fds })
    }

    /// Makes the calling thread the boxes' for the witness, once per thread: from then
    /// on every process it starts (and every task that process forks) is traced as the
    /// boxes' from its first instruction (`event-fork`), with no write of its own. A
    /// write to `set_event_pid` waits for the kernel's RCU grace period (38 ms measured
    /// here), which a write per box, between fork and exec, made every box's start
    /// wait for. The thread's own signals are then traced as the boxes' too: they are
    /// the host's, which [`SignalWitness::sent_from_outside`] never counts anyway.
    pub fn join_thread(&self) -> std::io::Result<()> {
        thread_local! {
            static JOINED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
        }
        // The forks traced since the last box started are taken in first: the ring
        // buffer never has to hold more than those between two box starts.
        self.note_forks();
        if JOINED.get() {
            return Ok(());
        }
        // SAFETY: gettid has no preconditions.
        let tid = unsafe { libc::gettid() } as u32;
        (&self.join).write_all(tid.to_string().as_bytes())?;
        JOINED.set(true);
        Ok(())
    }

    /// Takes in the boxes' forks (and signals) traced so far, before the kernel's ring
    /// buffer could drop them: called at each box start and when a worker is ready (its
    /// box's first forks then known).
    pub fn note_forks(&self) {
        if let Ok(mut boxed) = self.boxed.lock() {
            boxed.drain();
        }
    }

    /// Whether the task `pid` (a helper's process, in the host's PID namespace) was
    /// sent signal `sig` (one of `TRACED`) by `kill` or `tgkill` from a task outside
    /// every box and outside the host. Call it once the process is known dead: the
    /// event was traced before the signal was delivered.
    pub fn sent_from_outside(&self, pid: u32, sig: i32) -> bool {
        self.any_from_outside(|e, _| e.target == pid && e.sig == sig)
    }

    /// Whether any task of the box whose first task is `root` (a boxed helper's bwrap,
    /// the host's child), that is `root` or any task forked from it since, was sent
    /// one of `sigs` (of `TRACED` and [`STOPS`]) by `kill` or `tgkill` from a task
    /// outside every box and outside the host: for a task the host never knew, such as
    /// a program a worker started in its box.
    pub fn sent_from_outside_to_tree(&self, root: u32, sigs: &[i32]) -> bool {
        self.any_from_outside(|e, forks| sigs.contains(&e.sig) && descends_from(forks, e.target, root, e.at_us))
    }

    /// Whether a signal traced by the instance of every task and not by the boxes'
    /// (from a task outside every box), sent by a system call, by a task that is not
    /// the host's, is one that `wanted` takes (given the boxes' forks).
    fn any_from_outside(&self, wanted: impl Fn(&Event, &std::collections::HashMap<u32, (u32, u64)>) -> bool) -> bool {
        let (mut all, mut boxed) = match (self.all.lock(), self.boxed.lock()) {
            (Ok(a), Ok(b)) => (a, b),
            _ => return false,
        };
        all.drain();
        boxed.drain();
        all.events.iter().any(|e| {
            wanted(e, &boxed.forks)
                && SENT_CODES.contains(&e.code)
                && !is_own_task(e.sender)
                && !boxed.events.iter().any(|b| {
                    b.sig == e.sig
                        && b.sender == e.sender
                        && b.target == e.target
                        && b.at_us.abs_diff(e.at_us) <= SAME_EVENT_US
                })
        })
    }
}

/// Whether task `task` was `root` or forked from it (through the boxes' `forks`), every
/// fork on the way made before `at_us` (an id reused since names another task).
fn descends_from(forks: &std::collections::HashMap<u32, (u32, u64)>, mut task: u32, root: u32, at_us: u64) -> bool {
    // A box's tasks are a few levels deep; a loop (ids reused) ends here too.
    for _ in 0..64 {
        if task == root {
            return true;
        }
        match forks.get(&task) {
            Some(&(parent, at)) if at <= at_us => task = parent,
            _ => return false,
        }
    }
    false
}

/// Whether task `tid` is a thread of this process.
fn is_own_task(tid: u32) -> bool {
    Path::new(&format!("/proc/self/task/{tid}")).exists()
}

/// Where tracing is mounted; mounted at `/sys/kernel/tracing` when nothing is yet.
fn tracefs() -> Option<PathBuf> {
    if let Some(found) = TRACEFS.iter().map(Path::new).find(|p| p.join("instances").is_dir()) {
        return Some(found.to_path_buf());
    }
    let at = Path::new(TRACEFS[0]);
    let target = std::ffi::CString::new(TRACEFS[0]).ok()?;
    // SAFETY: plain C strings; a failed mount changes nothing.
    let mounted =
        unsafe { libc::mount(c"nodev".as_ptr(), target.as_ptr(), c"tracefs".as_ptr(), 0, std::ptr::null()) } == 0;
    (mounted && at.join("instances").is_dir()).then(|| at.to_path_buf())
}

/// At the host's exit: closes the witness's descriptors in its instances (an instance
/// with a file open cannot be removed) and removes them.
extern "C" fn remove_at_exit() {
    if let Some(Some(witness)) = WITNESS.get() {
        for &fd in &witness.fds {
            // SAFETY: the witness's own descriptors, never used again: the process is
            // exiting.
            unsafe { libc::close(fd) };
        }
        for dir in &witness.dirs {
            remove(dir);
        }
    }
}

/// Stops an instance's tracing and removes it (refused while a file of it is open: a
/// host killed before its exit leaves its instances, which [`remove_stale`] takes).
fn remove(dir: &Path) {
    let _ = std::fs::write(dir.join("events/signal/signal_generate/enable"), "0");
    let _ = std::fs::write(dir.join("events/sched/sched_process_fork/enable"), "0");
    let _ = std::fs::remove_dir(dir);
}

/// Removes the instances of hosts that ended without removing theirs.
fn remove_stale(tracefs: &Path) {
    let Ok(entries) = std::fs::read_dir(tracefs.join("instances")) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(PREFIX)) else { continue };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else { continue };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            remove(&entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_lines_are_read_from_the_event_outwards() {
        let line = "            bash-28410   [000] d..1. 74565.014692: signal_generate: sig=9 errno=0 code=0 comm=bash pid=28412 grp=1 res=0";
        assert_eq!(
            parse_line(line),
            Some(Event { sig: 9, sender: 28410, target: 28412, code: 0, at_us: 74_565_014_692 })
        );
        // Names that hold spaces, dashes and what looks like fields.
        let line = " a-1 [7] x pid=5-77   [001] d..2. 12.000003: signal_generate: sig=9 errno=0 code=-6 comm=b pid=3 c pid=901 grp=0 res=0";
        assert_eq!(parse_line(line), Some(Event { sig: 9, sender: 77, target: 901, code: -6, at_us: 12_000_003 }));
        let line = "kill-40 [000] d..1. 3.000004: signal_generate: sig=11 errno=0 code=0 comm=w pid=41 grp=1 res=0";
        assert_eq!(parse_line(line), Some(Event { sig: 11, sender: 40, target: 41, code: 0, at_us: 3_000_004 }));
        assert_eq!(parse_line("# tracer: nop"), None);
        assert_eq!(
            parse_line("x-1 [000] d..1. 1.000001: signal_generate: sig=17 errno=0 code=0 comm=x pid=2 grp=1 res=0"),
            None
        );
        let fork = " my worker-9-30 [001] ..... 5.000007: sched_process_fork: comm=w pid=30 child_comm=a child_pid=7 child_pid=31";
        assert_eq!(parse_fork(fork), Some((30, 31, 5_000_007)));
        assert_eq!(parse_fork(line), None);
    }

    /// Writes the calling process's pid to `fd` (the witness's `set_event_pid`): from
    /// then on it and every task it forks are the boxes' for the witness, as a worker
    /// forked by a joined thread is. For a child between fork and exec: no allocation,
    /// `getpid` and `write` only.
    fn join_self(fd: RawFd) -> std::io::Result<()> {
        // SAFETY: getpid has no preconditions.
        let mut pid = unsafe { libc::getpid() } as u32;
        let mut digits = [0u8; 12];
        let mut at = digits.len();
        loop {
            at -= 1;
            digits[at] = b'0' + (pid % 10) as u8;
            pid /= 10;
            if pid == 0 {
                break;
            }
        }
        // SAFETY: writes the initialised tail of `digits` to a descriptor the caller owns.
        let n = unsafe { libc::write(fd, digits[at..].as_ptr().cast(), digits.len() - at) };
        if n < 0 { Err(std::io::Error::last_os_error()) } else { Ok(()) }
    }

    /// `program args` as a process of the witness's boxes (joined on its own: a test
    /// thread must not join, or the test's own `kill` would be the boxes' too).
    fn joined(witness: &SignalWitness, program: &str, args: &[&str]) -> std::process::Command {
        let fd = witness.join.as_raw_fd();
        let mut cmd = std::process::Command::new(program);
        cmd.args(args);
        // SAFETY: join_self only calls getpid and write.
        unsafe { std::os::unix::process::CommandExt::pre_exec(&mut cmd, move || join_self(fd)) };
        cmd
    }

    /// Runs `sh -c script` in the boxes ([`joined`]) to its end; returns its pid and
    /// whether it died of SIGKILL.
    fn boxed_sh(witness: &SignalWitness, script: &str) -> (u32, bool) {
        use std::os::unix::process::ExitStatusExt as _;
        let mut child = joined(witness, "/bin/sh", &["-c", script]).spawn().unwrap();
        let pid = child.id();
        let status = child.wait().unwrap();
        (pid, status.signal() == Some(libc::SIGKILL))
    }

    #[test]
    fn a_sigkill_from_outside_a_box_is_told_from_the_boxs_own() {
        let Some(witness) = SignalWitness::get() else {
            return crate::process::skip("skipped: no signal witness here (not root, or no tracing)");
        };
        // Its own: the box's shell kills itself, or a child of it kills the shell.
        let (pid, killed) = boxed_sh(witness, "kill -9 $$; sleep 5");
        assert!(killed && !witness.sent_from_outside(pid, libc::SIGKILL));
        let (pid, killed) = boxed_sh(witness, "(sleep 0.1; kill -9 $$) & sleep 5");
        assert!(killed);
        assert!(!witness.sent_from_outside(pid, libc::SIGKILL));
        // From outside: a `kill` that is no part of the box (nor of the host).
        let (pid, killed) = boxed_sh(witness, "/bin/kill -9 $$ & sleep 5");
        // That `kill` is the box's child (the shell forked it): its own too.
        assert!(killed && !witness.sent_from_outside(pid, libc::SIGKILL));
        let mut cmd = joined(witness, "/bin/sleep", &["5"]);
        let mut child = cmd.spawn().unwrap();
        let pid = child.id();
        std::thread::sleep(std::time::Duration::from_millis(50));
        let out = std::process::Command::new("/bin/kill").args(["-9", &pid.to_string()]).status().unwrap();
        assert!(out.success());
        child.wait().unwrap();
        assert!(witness.sent_from_outside(pid, libc::SIGKILL));
        // The host's own kill is not from outside either.
        let mut child = cmd.spawn().unwrap();
        let pid = child.id();
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(!witness.sent_from_outside(pid, libc::SIGKILL));
    }

    /// The same for another signal that ends a process (SIGSEGV, sent by `kill`): the
    /// box's own is told from one from outside, and neither is taken for a SIGKILL.
    #[test]
    fn another_fatal_signal_from_outside_a_box_is_told_from_the_boxs_own() {
        let Some(witness) = SignalWitness::get() else {
            return crate::process::skip("skipped: no signal witness here (not root, or no tracing)");
        };
        use std::os::unix::process::ExitStatusExt as _;
        // Its own: the box's shell sends itself SIGSEGV.
        let mut own = joined(witness, "/bin/sh", &["-c", "kill -SEGV $$; sleep 5"]).spawn().unwrap();
        let pid = own.id();
        assert_eq!(own.wait().unwrap().signal(), Some(libc::SIGSEGV));
        assert!(!witness.sent_from_outside(pid, libc::SIGSEGV));
        // From outside.
        let mut victim = joined(witness, "/bin/sleep", &["5"]).spawn().unwrap();
        let pid = victim.id();
        std::thread::sleep(std::time::Duration::from_millis(50));
        let sent = std::process::Command::new("/bin/kill").args(["-SEGV", &pid.to_string()]).status().unwrap();
        assert!(sent.success());
        assert_eq!(victim.wait().unwrap().signal(), Some(libc::SIGSEGV));
        assert!(witness.sent_from_outside(pid, libc::SIGSEGV));
        assert!(!witness.sent_from_outside(pid, libc::SIGKILL) && !witness.sent_from_outside(pid, libc::SIGBUS));
    }

    /// A signal from outside to a task the host never knew (a box's grandchild, as a
    /// program its worker starts) is known as the box's; the box's own kill of it, or
    /// one sent to a task of another box, is not.
    #[test]
    fn a_signal_from_outside_to_any_task_of_a_box_is_known_as_the_boxs() {
        let Some(witness) = SignalWitness::get() else {
            return crate::process::skip("skipped: no signal witness here (not root, or no tracing)");
        };
        use std::io::BufRead as _;
        // A box whose shell starts a child and says its pid; `kill_it` kills it.
        let run = |script: &str, kill_it: &dyn Fn(u32)| -> (u32, u32) {
            let mut sh =
                joined(witness, "/bin/sh", &["-c", script]).stdout(std::process::Stdio::piped()).spawn().unwrap();
            let mut line = String::new();
            std::io::BufReader::new(sh.stdout.take().unwrap()).read_line(&mut line).unwrap();
            let child: u32 = line.trim().parse().unwrap();
            kill_it(child);
            sh.wait().unwrap();
            (sh.id(), child)
        };
        let from_outside = |pid: u32| {
            std::thread::sleep(std::time::Duration::from_millis(50));
            let sent = std::process::Command::new("/bin/kill").args(["-9", &pid.to_string()]).status().unwrap();
            assert!(sent.success());
        };
        let (root, child) = run("sleep 5 & echo $!; wait", &from_outside);
        assert!(witness.sent_from_outside_to_tree(root, &[libc::SIGKILL]));
        assert!(!witness.sent_from_outside(root, libc::SIGKILL) && witness.sent_from_outside(child, libc::SIGKILL));
        // A stop from outside is known the same way, and a SIGKILL is not a stop.
        let stop_then_kill = |pid: u32| {
            std::thread::sleep(std::time::Duration::from_millis(50));
            let sent = std::process::Command::new("/bin/kill").args(["-STOP", &pid.to_string()]).status().unwrap();
            assert!(sent.success());
            // SAFETY: a plain kill of the test's own grandchild, from the host itself
            // (not from outside).
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        };
        let (root, _) = run("sleep 5 & echo $!; wait", &stop_then_kill);
        assert!(witness.sent_from_outside_to_tree(root, &STOPS));
        assert!(!witness.sent_from_outside_to_tree(root, &[libc::SIGKILL]));
        // The box's own: its shell kills its child.
        let (root, _) = run("sleep 5 & echo $!; sleep 0.05; kill -9 $!; wait", &|_| {});
        assert!(!witness.sent_from_outside_to_tree(root, &[libc::SIGKILL]));
        // Another box's task killed from outside is not this box's.
        let (other, _) = run("sleep 5 & echo $!; wait", &from_outside);
        let (root, _) = run("sleep 0.1 & echo $!; wait", &|_| {});
        assert!(witness.sent_from_outside_to_tree(other, &[libc::SIGKILL]));
        assert!(!witness.sent_from_outside_to_tree(root, &[libc::SIGKILL]));
    }

    #[test]
    fn a_pid_is_written_in_decimal() {
        let (read, write) = {
            let mut fds = [0; 2];
            // SAFETY: a valid array of two descriptors to fill.
            assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
            fds
        }
        .into();
        join_self(write).unwrap();
        let mut got = [0u8; 16];
        // SAFETY: reads into a local buffer from the pipe made above.
        let n = unsafe { libc::read(read, got.as_mut_ptr().cast(), got.len()) };
        assert_eq!(std::str::from_utf8(&got[..n as usize]).unwrap(), std::process::id().to_string());
        // SAFETY: closes the two descriptors made above.
        unsafe {
            libc::close(read);
            libc::close(write);
        }
    }
}
