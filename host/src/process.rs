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
//! security beyond rlimits, a dropped uid and (optionally) bwrap: no seccomp, no cgroups
//! (so no memory limit counted across processes: RLIMIT_AS is per process).

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::clock::{ProgramTasks, ProgramTimer};

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
}

impl ProgramSpec {
    /// A spec for `argv` with no directory and no extra environment.
    pub fn new<I, S>(argv: I) -> ProgramSpec
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        ProgramSpec { command: argv.into_iter().map(Into::into).collect(), dir: None, env: Vec::new() }
    }
}

/// Whether to wrap the program in a sandbox.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Sandbox {
    /// Run the program directly.
    #[default]
    None,
    /// Run it under `bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --unshare-net
    /// --unshare-pid --die-with-parent`: the whole file system read-only, a private empty
    /// `/tmp`, no network, its own pid namespace, a new session. `writable` paths are bound
    /// read-write. The spec's `dir` and the directories of files named by absolute paths
    /// under `/tmp` in the argv are bound read-only over the tmpfs, so bots kept under
    /// `/tmp` stay visible.
    Bwrap {
        /// Paths the bot may write to (bound read-write at the same place).
        writable: Vec<PathBuf>,
    },
}

/// Resource limits and policies for one program.
#[derive(Debug, Clone)]
pub struct Limits {
    /// RLIMIT_AS in bytes (virtual memory per process).
    pub address_space: Option<u64>,
    /// RLIMIT_CPU in seconds (SIGXCPU then, SIGKILL a second later); over the whole life of
    /// the process.
    pub cpu_seconds: Option<u64>,
    /// RLIMIT_NPROC: processes of the user. Root ignores it: see `run_as`.
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
    /// An I/O error on the host's side.
    Io(String),
    /// The program could not be started.
    Spawn(String),
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::Timeout => f.write_str("timed out"),
            CallError::Exited(how) => write!(f, "program ended: {how}"),
            CallError::Flood => f.write_str("answer too long"),
            CallError::Garbage(what) => write!(f, "garbage answer: {what}"),
            CallError::Io(what) => write!(f, "i/o error: {what}"),
            CallError::Spawn(what) => write!(f, "cannot start program: {what}"),
        }
    }
}

impl std::error::Error for CallError {}

fn io_err(context: &str, e: &io::Error) -> CallError {
    CallError::Io(format!("{context}: {e}"))
}

/// Ignores SIGPIPE in the whole host process (idempotent). A Rust `main` does this already
/// at start-up; call it when the host may run with SIGPIPE at its default (e.g. embedded).
/// Writes to a dead bot then fail with `EPIPE`, which this module turns into
/// [`CallError::Exited`]. Children still start with SIGPIPE at its default.
pub fn ignore_sigpipe() {
    // SAFETY: setting a signal's disposition to SIG_IGN installs no handler code; it is
    // process-wide and thread-safe.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
}

/// Marks every descriptor above standard error that this process inherited (a build
/// tool's jobserver pipe, a shell's open files) close-on-exec, so that none reaches a
/// bot the host starts: the only descriptors a bot gets are its own three. Call once at
/// start-up, before any thread starts a child.
pub fn no_inherited_descriptors() {
    let Ok(dir) = std::fs::read_dir("/proc/self/fd") else { return };
    let fds: Vec<RawFd> =
        dir.flatten().filter_map(|e| e.file_name().to_str()?.parse().ok()).filter(|&fd| fd > 2).collect();
    for fd in fds {
        // SAFETY: fcntl on a descriptor number only changes its flags (a closed one, such
        // as the directory's own, fails harmlessly).
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFD);
            if flags >= 0 {
                libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC);
            }
        }
    }
}

/// `nobody`'s uid and gid when the host runs as root (so that RLIMIT_NPROC bites), else
/// `None`. Looked up in `/etc/passwd`; 65534:65534 if it has no `nobody`.
pub fn default_run_as() -> Option<(u32, u32)> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return None;
    }
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    for line in passwd.lines() {
        let fields: Vec<&str> = line.split(':').collect();
        if fields.len() >= 4
            && fields[0] == "nobody"
            && let (Ok(uid), Ok(gid)) = (fields[2].parse(), fields[3].parse())
        {
            return Some((uid, gid));
        }
    }
    Some((65534, 65534))
}

/// What every bwrap sandbox here has: the file system read-only, `/dev` and `/proc`, no
/// network, and an end with its parent. A helper (see [`helper_command`]) has just this.
const BWRAP_COMMON: [&str; 9] =
    ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-net", "--die-with-parent"];
/// What a program bot's sandbox adds: a private `/tmp`, its own pid namespace and session.
const BWRAP_PROGRAM: [&str; 4] = ["--tmpfs", "/tmp", "--unshare-pid", "--new-session"];

/// Binds `path` read-write, at the same place, in a bwrap command.
fn bind_writable(cmd: &mut Command, path: &Path) {
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    cmd.arg("--bind").arg(&path).arg(&path);
}

/// Confines a helper process of the host that runs native bots' code (a game worker, a
/// library probe): its own process group, so that [`kill_group`] takes whatever it
/// forked; killed when the thread that started it ends (the host quitting at once
/// included); at most `memory` bytes of data (RLIMIT_DATA: heap and private writable
/// mappings, not mere reservations, so that a bot's many threads' malloc arenas do not
/// count; a memory bomb fails inside the helper instead of exhausting the machine); no
/// core dumps; and at most `processes` processes and threads, whatever it forks:
/// through a [`ProcessCap`] (returned: keep it as long as the helper runs, and
/// [`ProcessCap::admit`] the helper once started) where the host may make one, and,
/// for a host that is not root, through RLIMIT_NPROC over the user's current count.
/// As root without a control group there is no such cap.
pub fn confine_helper(cmd: &mut Command, memory: u64, processes: u32) -> Option<ProcessCap> {
    cmd.process_group(0);
    let cap = ProcessCap::new(processes).ok();
    let procs = cap.as_ref().map(|c| c.procs.clone());
    // SAFETY: geteuid cannot fail.
    let nproc = (unsafe { libc::geteuid() } != 0).then(|| user_processes() + u64::from(processes));
    // SAFETY: the closure only makes async-signal-safe calls (setrlimit, prctl, open,
    // write, close) on data prepared before the fork, and does not allocate.
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(io::Error::last_os_error());
            }
            lower_limit(libc::RLIMIT_DATA, memory, memory)?;
            lower_limit(libc::RLIMIT_CORE, 0, 0)?;
            if let Some(n) = nproc {
                lower_limit(libc::RLIMIT_NPROC, n, n)?;
            }
            if let Some(procs) = &procs {
                // "0" moves the writing process into the group, before it can fork
                // (bwrap does at once); `ProcessCap::admit` checks it worked.
                let fd = libc::open(procs.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                if fd >= 0 {
                    libc::write(fd, b"0".as_ptr().cast(), 1);
                    libc::close(fd);
                }
            }
            Ok(())
        });
    }
    cap
}

/// The processes (threads included, as RLIMIT_NPROC counts them) of this user now.
fn user_processes() -> u64 {
    // SAFETY: getuid cannot fail.
    let uid = unsafe { libc::getuid() };
    let Ok(dir) = std::fs::read_dir("/proc") else { return 0 };
    dir.flatten()
        .filter(|e| e.file_name().to_str().is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit())))
        .filter(|e| e.metadata().is_ok_and(|m| m.uid() == uid))
        .map(|e| std::fs::read_dir(e.path().join("task")).map_or(1, |t| t.count() as u64))
        .sum()
}

/// A control group of the `pids` controller holding one helper process and everything
/// it forks, capped at `max` processes and threads: a fork bomb in a native bot stops
/// there, even as root (whom RLIMIT_NPROC does not limit), and whatever left the
/// helper's process group is still found and killed. Made where the host may create
/// one (root, cgroup v1 or the v2 root); elsewhere [`ProcessCap::new`] says why not.
/// Dropping it kills what is left in it and removes it.
#[derive(Debug)]
pub struct ProcessCap {
    dir: PathBuf,
    procs: std::ffi::CString,
}

impl ProcessCap {
    /// A new group under the host's own `pids` group, capped at `max` tasks.
    pub fn new(max: u32) -> Result<ProcessCap, String> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        static SWEEP: std::sync::Once = std::sync::Once::new();
        let base = pids_group().ok_or("no pids control group to create one in")?;
        SWEEP.call_once(|| sweep_stale_groups(&base));
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = base.join(format!("arena-{}-{n}", std::process::id()));
        std::fs::create_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let procs = std::ffi::CString::new(dir.join("cgroup.procs").as_os_str().as_bytes()).ok();
        let cap = ProcessCap { procs: procs.unwrap_or_default(), dir };
        std::fs::write(cap.dir.join("pids.max"), max.to_string())
            .map_err(|e| format!("{}: cannot set pids.max: {e}", cap.dir.display()))?;
        Ok(cap)
    }

    /// True when `pid` is in this group.
    pub fn holds(&self, pid: u32) -> bool {
        self.members().contains(&pid)
    }

    /// Makes sure the helper `pid` is in this group (moving it there if it did not get
    /// there itself); false if it cannot be, and the helper then runs without the cap.
    pub fn admit(&self, pid: u32) -> bool {
        self.holds(pid) || (std::fs::write(self.dir.join("cgroup.procs"), pid.to_string()).is_ok() && self.holds(pid))
    }

    fn members(&self) -> Vec<u32> {
        let text = std::fs::read_to_string(self.dir.join("cgroup.procs")).unwrap_or_default();
        text.lines().filter_map(|l| l.trim().parse().ok()).collect()
    }
}

/// Removes the groups of hosts that ended without removing theirs (a second Ctrl-C
/// exits at once), killing what is left in them.
fn sweep_stale_groups(base: &Path) {
    let Ok(dir) = std::fs::read_dir(base) else { return };
    for entry in dir.flatten() {
        let name = entry.file_name();
        let Some(host) = name.to_str().and_then(|n| n.strip_prefix("arena-")?.split('-').next()?.parse::<u32>().ok())
        else {
            continue;
        };
        if !Path::new(&format!("/proc/{host}")).exists() {
            drop(ProcessCap { dir: entry.path(), procs: std::ffi::CString::default() });
        }
    }
}

impl Drop for ProcessCap {
    fn drop(&mut self) {
        for _ in 0..100 {
            let members = self.members();
            if members.is_empty() && std::fs::remove_dir(&self.dir).is_ok() {
                return;
            }
            for pid in members {
                if let Ok(pid) = i32::try_from(pid) {
                    // SAFETY: a plain syscall on a process of this group.
                    unsafe {
                        libc::kill(pid, libc::SIGKILL);
                    }
                }
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// The directory of the host's own `pids` control group, if the controller is there:
/// cgroup v1's `pids` hierarchy, or cgroup v2 when it offers `pids`.
fn pids_group() -> Option<PathBuf> {
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    for line in own.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let path = path.trim_start_matches('/');
        if controllers.split(',').any(|c| c == "pids") {
            let dir = Path::new("/sys/fs/cgroup/pids").join(path);
            return dir.is_dir().then_some(dir);
        }
        if controllers.is_empty() {
            let root = Path::new("/sys/fs/cgroup");
            let offered = std::fs::read_to_string(root.join("cgroup.controllers")).unwrap_or_default();
            if offered.split_whitespace().any(|c| c == "pids") && root.join(path).is_dir() {
                return Some(root.join(path));
            }
        }
    }
    None
}

/// The command for a helper of the host (`program`, a game worker or a library probe)
/// run under `sandbox`: directly, or under bwrap with the whole file system read-only
/// but `writable` (bound read-write, with the sandbox's own writable paths) and no
/// network. Unlike a program bot's, the helper keeps the host's pid namespace and
/// session (the host reads its CPU time and kills its process group) and the real
/// `/tmp`, read-only (bots' files may live there).
pub fn helper_command(program: &Path, sandbox: &Sandbox, writable: &[&Path]) -> Command {
    match sandbox {
        Sandbox::None => Command::new(program),
        Sandbox::Bwrap { writable: more } => {
            let mut cmd = Command::new("bwrap");
            cmd.args(BWRAP_COMMON);
            for w in writable.iter().copied().chain(more.iter().map(PathBuf::as_path)) {
                bind_writable(&mut cmd, w);
            }
            cmd.arg("--").arg(program);
            cmd
        }
    }
}

/// True once `child` has ended, without reaping it (its pid, and so its process group's
/// id, stays reserved until `wait`): call [`kill_group`] then, before `wait`.
pub fn has_ended(child: &Child) -> bool {
    let pid: libc::id_t = child.id();
    // SAFETY: siginfo_t is plain data; waitid writes it. WNOWAIT leaves the child
    // waitable.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let done = libc::waitid(libc::P_PID, pid, &mut info, libc::WEXITED | libc::WNOHANG | libc::WNOWAIT);
        done != 0 || info.si_pid() != 0
    }
}

/// Kills a process started with [`confine_helper`] and everything in its process group.
/// Call it before reaping the process (`wait`), as its pid then names the group safely.
pub fn kill_group(child: &mut Child) {
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: a plain syscall; the group is the child's own (see `confine_helper`),
        // whose id cannot be reused while the child is unreaped.
        unsafe {
            libc::killpg(pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
}

/// Whether [`Sandbox::Bwrap`] works here: runs `bwrap ... true` once (as [`default_run_as`],
/// the way bots would run) and caches the answer. `Err` says why not in one line, e.g.
/// bwrap is missing or user namespaces are off.
pub fn bwrap_available() -> Result<(), String> {
    static RESULT: OnceLock<Result<(), String>> = OnceLock::new();
    RESULT
        .get_or_init(|| {
            let mut cmd = Command::new("bwrap");
            cmd.args(BWRAP_COMMON).args(BWRAP_PROGRAM).args(["--", "true"]);
            cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).current_dir("/");
            if let Some((uid, gid)) = default_run_as() {
                cmd.uid(uid).gid(gid);
            }
            match cmd.output() {
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    Err("bwrap is not installed (Debian package bubblewrap)".to_string())
                }
                Err(e) => Err(format!("bwrap cannot be started: {e}")),
                Ok(out) if out.status.success() => Ok(()),
                Ok(out) => {
                    let text = String::from_utf8_lossy(&out.stderr);
                    let first = text.lines().next().unwrap_or("").trim();
                    Err(format!(
                        "bwrap does not work here ({}): {first} (are unprivileged user namespaces off?)",
                        describe_status(out.status)
                    ))
                }
            }
        })
        .clone()
}

/// "exit status 1", "killed by signal 9 (SIGKILL)".
pub fn describe_status(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        match code {
            // bwrap (and a shell) report a child killed by signal N as 128 + N.
            129..=159 => format!("exit status {code} (killed by signal {} ({}))", code - 128, signal_name(code - 128)),
            _ => format!("exit status {code}"),
        }
    } else if let Some(sig) = status.signal() {
        let core = if status.core_dumped() { ", core dumped" } else { "" };
        format!("killed by signal {sig} ({}{core})", signal_name(sig))
    } else {
        format!("{status}")
    }
}

pub(crate) fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        libc::SIGSYS => "SIGSYS",
        _ => "signal",
    }
}

// ---------------------------------------------------------------------------------------
// Starting

/// Everything the child applies between fork and exec; plain data, so that the `pre_exec`
/// closure neither allocates nor locks.
#[derive(Clone)]
struct ChildSetup {
    /// The `cgroup.procs` of the program's own process cap, joined before anything else.
    cgroup_procs: Option<std::ffi::CString>,
    address_space: Option<u64>,
    cpu_seconds: Option<u64>,
    processes: Option<u64>,
    open_files: Option<u64>,
    file_size: Option<u64>,
    run_as: Option<(u32, u32)>,
}

/// Lowers one limit (soft and hard) to at most `soft`/`hard`. Async-signal-safe.
fn lower_limit(resource: libc::__rlimit_resource_t, soft: u64, hard: u64) -> io::Result<()> {
    let mut old = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes into the struct we own; async-signal-safe syscall.
    if unsafe { libc::getrlimit(resource, &mut old) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let hard = hard.min(old.rlim_max);
    let new = libc::rlimit { rlim_cur: soft.min(hard), rlim_max: hard };
    // SAFETY: setrlimit reads the struct we own; async-signal-safe syscall.
    if unsafe { libc::setrlimit(resource, &new) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

impl ChildSetup {
    /// Runs in the child after fork, before exec: only async-signal-safe calls, no
    /// allocation (`io::Error::last_os_error` does not allocate).
    fn apply(&self) -> io::Result<()> {
        if let Some(procs) = &self.cgroup_procs {
            // SAFETY: open/write/close are async-signal-safe; "0" moves this process
            // into the group before it can fork (and before it drops root).
            unsafe {
                let fd = libc::open(procs.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                if fd >= 0 {
                    libc::write(fd, b"0".as_ptr().cast(), 1);
                    libc::close(fd);
                }
            }
        }
        if let Some(v) = self.address_space {
            lower_limit(libc::RLIMIT_AS, v, v)?;
        }
        if let Some(v) = self.cpu_seconds {
            // SIGXCPU at the soft limit, SIGKILL at the hard one.
            lower_limit(libc::RLIMIT_CPU, v, v.saturating_add(1))?;
        }
        if let Some(v) = self.processes {
            lower_limit(libc::RLIMIT_NPROC, v, v)?;
        }
        if let Some(v) = self.open_files {
            lower_limit(libc::RLIMIT_NOFILE, v, v)?;
        }
        if let Some(v) = self.file_size {
            lower_limit(libc::RLIMIT_FSIZE, v, v)?;
        }
        // SAFETY: signal(SIGPIPE, SIG_DFL) is async-signal-safe; the program starts with the
        // default disposition instead of the host's "ignore".
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
        if let Some((uid, gid)) = self.run_as {
            // SAFETY: setgroups/setgid/setuid are async-signal-safe syscalls on our own
            // credentials; groups first, then gid, then uid (after which we could not).
            unsafe {
                if libc::geteuid() == 0 && libc::setgroups(0, std::ptr::null()) != 0 {
                    return Err(io::Error::last_os_error());
                }
                if libc::setgid(gid) != 0 {
                    return Err(io::Error::last_os_error());
                }
                if libc::setuid(uid) != 0 {
                    return Err(io::Error::last_os_error());
                }
            }
        }
        Ok(())
    }
}

/// Whether `uid`/`gid` may do `want` (bits 4 = read, 1 = exec/search) on `meta`, from the
/// mode bits alone (no ACLs). Root may do anything but exec needs some x bit.
fn mode_allows(meta: &std::fs::Metadata, uid: u32, gid: u32, want: u32) -> bool {
    let mode = meta.mode();
    let bits = if uid == 0 {
        return want & 1 == 0 || mode & 0o111 != 0 || meta.is_dir();
    } else if meta.uid() == uid {
        (mode >> 6) & 7
    } else if meta.gid() == gid {
        (mode >> 3) & 7
    } else {
        mode & 7
    };
    bits & want == want
}

/// Checks that `uid`/`gid` can reach `path` (search on every directory above it) and do
/// `want` on it. Returns the first obstacle as a path and what is missing.
fn reachable_as(path: &Path, uid: u32, gid: u32, want: u32) -> Result<(), String> {
    let Ok(abs) = std::path::absolute(path) else { return Ok(()) };
    let mut ancestors: Vec<&Path> = abs.ancestors().skip(1).collect();
    ancestors.reverse();
    for dir in ancestors {
        if let Ok(meta) = std::fs::metadata(dir)
            && !mode_allows(&meta, uid, gid, 1)
        {
            return Err(format!("directory {} is not searchable", dir.display()));
        }
    }
    match std::fs::metadata(&abs) {
        Err(_) => Ok(()), // let exec report a missing file
        Ok(meta) if !mode_allows(&meta, uid, gid, want) => {
            let what = match want {
                5 => "readable and executable",
                4 => "readable",
                _ => "searchable",
            };
            Err(format!("{} is not {what}", abs.display()))
        }
        Ok(_) => Ok(()),
    }
}

/// The candidates exec would try for `program`: itself if it contains a slash, else each
/// existing file of that name in `PATH`, in order.
fn program_candidates(program: &OsStr, dir: Option<&Path>) -> Vec<PathBuf> {
    let p = Path::new(program);
    if program.as_bytes().contains(&b'/') {
        return vec![match dir {
            Some(d) if p.is_relative() => d.join(p),
            _ => p.to_path_buf(),
        }];
    }
    let Some(path) = std::env::var_os("PATH") else { return Vec::new() };
    std::env::split_paths(&path).map(|d| d.join(p)).filter(|c| c.is_file()).collect()
}

/// One-line reason why `run_as` cannot run this spec, if the mode bits say so.
fn check_access(spec: &ProgramSpec, uid: u32, gid: u32) -> Result<(), String> {
    let advice = "the bot's files and every directory above them must be readable by that user";
    if let Some(dir) = &spec.dir {
        reachable_as(dir, uid, gid, 1).map_err(|e| format!("as uid {uid}: {e} ({advice})"))?;
    }
    // exec skips PATH entries the user cannot reach: fail only if no candidate is usable.
    let mut first_error = None;
    for candidate in program_candidates(&spec.command[0], spec.dir.as_deref()) {
        match reachable_as(&candidate, uid, gid, 5) {
            Ok(()) => {
                first_error = None;
                break;
            }
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    if let Some(e) = first_error {
        return Err(format!("as uid {uid}: {e} ({advice})"));
    }
    // Interpreted scripts given as arguments (`python3 bot.py`): they must be readable.
    for arg in &spec.command[1..] {
        let p = Path::new(arg);
        let p = match &spec.dir {
            Some(d) if p.is_relative() => d.join(p),
            _ => p.to_path_buf(),
        };
        if p.is_file() {
            reachable_as(&p, uid, gid, 4).map_err(|e| format!("as uid {uid}: {e} ({advice})"))?;
        }
    }
    Ok(())
}

fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor we own; F_GETFL/F_SETFL only touch its flags.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

fn pidfd_open(pid: u32) -> Option<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
    if fd < 0 {
        return None;
    }
    // SAFETY: the kernel just returned this descriptor to us; nothing else owns it.
    Some(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// A started child with its pipes (stdin and stdout non-blocking).
struct Started {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
    stderr: ChildStderr,
    pidfd: Option<OwnedFd>,
    /// The program's own process cap, where the host can make one: dropped (whatever is
    /// left in it killed, a process that left the group included) after the program.
    cap: Option<ProcessCap>,
}

fn start(spec: &ProgramSpec, limits: &Limits) -> Result<Started, CallError> {
    if spec.command.is_empty() {
        return Err(CallError::Spawn("empty command".to_string()));
    }
    if let Some((uid, gid)) = limits.run_as {
        check_access(spec, uid, gid).map_err(CallError::Spawn)?;
    }
    let mut cmd = match &limits.sandbox {
        Sandbox::None => {
            let mut cmd = Command::new(&spec.command[0]);
            cmd.args(&spec.command[1..]);
            cmd
        }
        Sandbox::Bwrap { writable } => {
            let mut cmd = Command::new("bwrap");
            cmd.args(BWRAP_COMMON).args(BWRAP_PROGRAM);
            let mut visible: Vec<PathBuf> = Vec::new();
            if let Some(dir) = &spec.dir {
                visible.push(std::path::absolute(dir).unwrap_or_else(|_| dir.clone()));
            }
            // The program and script files given by absolute path under /tmp, which the
            // tmpfs hides.
            for arg in &spec.command {
                let p = Path::new(arg);
                if p.is_absolute()
                    && p.starts_with("/tmp")
                    && p.is_file()
                    && let Some(parent) = p.parent()
                    && !visible.iter().any(|v| v == parent)
                {
                    visible.push(parent.to_path_buf());
                }
            }
            for p in &visible {
                cmd.arg("--ro-bind-try").arg(p).arg(p);
            }
            for w in writable {
                bind_writable(&mut cmd, w);
            }
            if let Some(dir) = visible.first().filter(|_| spec.dir.is_some()) {
                cmd.arg("--chdir").arg(dir);
            }
            cmd.arg("--").args(&spec.command);
            cmd
        }
    };
    if let Some(dir) = &spec.dir {
        cmd.current_dir(dir);
    }
    cmd.env("PYTHONUNBUFFERED", "1");
    for (k, v) in &spec.env {
        cmd.env(k, v);
    }
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.process_group(0);
    // A process cap of the program's own (a pids control group) counts only its own
    // processes, so no other program, and no other process of its user, can starve it;
    // where none can be made, RLIMIT_NPROC counts every process of its user.
    let cap = limits.processes.and_then(|max| ProcessCap::new(u32::try_from(max).unwrap_or(u32::MAX)).ok());
    let setup = ChildSetup {
        cgroup_procs: cap.as_ref().map(|c| c.procs.clone()),
        address_space: limits.address_space,
        cpu_seconds: limits.cpu_seconds,
        processes: if cap.is_some() { None } else { limits.processes },
        open_files: limits.open_files,
        file_size: limits.file_size,
        run_as: limits.run_as,
    };
    // SAFETY: the closure only calls async-signal-safe functions (getrlimit, setrlimit,
    // signal, setgroups, setgid, setuid) on plain copied data, and does not allocate.
    unsafe {
        cmd.pre_exec(move || setup.apply());
    }
    let mut child = cmd.spawn().map_err(|e| {
        let program = Path::new(if matches!(limits.sandbox, Sandbox::Bwrap { .. }) {
            OsStr::new("bwrap")
        } else {
            &spec.command[0]
        })
        .display()
        .to_string();
        match (e.kind(), limits.run_as) {
            (io::ErrorKind::PermissionDenied, Some((uid, _))) => CallError::Spawn(format!(
                "{program}: permission denied as uid {uid} (the bot's files and every directory above them must be readable by that user)"
            )),
            _ => CallError::Spawn(format!("{program}: {e}")),
        }
    })?;
    let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        unreachable!("all three pipes were requested");
    };
    let pidfd = pidfd_open(child.id());
    let cap = cap.filter(|c| c.holds(child.id()));
    let started = Started { child, stdin, stdout, stderr, pidfd, cap };
    for fd in [started.stdin.as_raw_fd(), started.stdout.as_raw_fd()] {
        if let Err(e) = set_nonblocking(fd) {
            let mut started = started;
            end_group(&mut started.child);
            return Err(io_err("fcntl", &e));
        }
    }
    Ok(started)
}

/// SIGKILL to the child's whole process group, then reap the child. The group id is the
/// child's pid, reserved until the child is reaped, so the group is signalled before the
/// reap; a second signal after the leader has died catches processes forked meanwhile.
fn end_group(child: &mut Child) -> ExitStatus {
    let pgid = child.id() as libc::pid_t;
    // SAFETY: killpg only sends a signal; the group is ours (the leader is not yet reaped).
    unsafe {
        libc::killpg(pgid, libc::SIGKILL);
    }
    // Wait for the leader to die without reaping it (keeps the pgid reserved).
    // SAFETY: waitid writes into a zeroed siginfo_t we own; WNOWAIT leaves the child waitable.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        while libc::waitid(libc::P_PID, pgid as libc::id_t, &mut info, libc::WEXITED | libc::WNOWAIT) != 0 {
            if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                break;
            }
        }
        libc::killpg(pgid, libc::SIGKILL);
    }
    let status = child.wait().unwrap_or_else(|_| ExitStatus::from_raw(libc::SIGKILL));
    // Members still alive keep the pgid reserved; keep signalling until none is left.
    for _ in 0..1000 {
        // SAFETY: as above; signal 0 only checks whether the group has members.
        if unsafe { libc::killpg(pgid, 0) } != 0 {
            break;
        }
        // SAFETY: as above.
        unsafe {
            libc::killpg(pgid, libc::SIGKILL);
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    status
}

/// Whether the child has ended (without reaping it).
fn has_exited(pid: u32) -> bool {
    // SAFETY: waitid writes into a zeroed siginfo_t we own; WNOWAIT leaves it waitable.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, libc::WEXITED | libc::WNOHANG | libc::WNOWAIT) == 0
            && info.si_pid() != 0
    }
}

/// Waits up to `grace` for the child to end by itself.
fn wait_exit(pid: u32, grace: Duration) -> bool {
    let end = Instant::now() + grace;
    loop {
        if has_exited(pid) {
            return true;
        }
        if Instant::now() >= end {
            return false;
        }
        std::thread::sleep(Duration::from_micros(500));
    }
}

/// `poll` on up to four descriptors with a deadline; `Ok(false)` when the time is up.
fn poll_until(fds: &mut [libc::pollfd], deadline: Instant) -> io::Result<bool> {
    loop {
        let now = Instant::now();
        if now >= deadline {
            return Ok(false);
        }
        if poll_for(fds, deadline - now)? {
            return Ok(true);
        }
    }
}

/// `poll` on up to four descriptors until the program's call has used its own time
/// (`crate::clock`); `Ok(false)` then. `born`: the program was started within this call.
fn poll_timed(
    fds: &mut [libc::pollfd],
    timer: &mut ProgramTimer,
    mut tasks: Option<&mut ProgramTasks>,
    born: bool,
) -> io::Result<bool> {
    loop {
        let Some(left) = timer.left(tasks.as_deref_mut(), born) else { return Ok(false) };
        if poll_for(fds, left)? {
            return Ok(true);
        }
    }
}

/// One `ppoll` of at most `left`; `Ok(false)` when nothing happened (or a signal came).
fn poll_for(fds: &mut [libc::pollfd], left: Duration) -> io::Result<bool> {
    let ts = libc::timespec { tv_sec: left.as_secs() as libc::time_t, tv_nsec: left.subsec_nanos() as _ };
    // SAFETY: fds is a valid slice of pollfd for the given length; ts lives on the stack.
    let n = unsafe { libc::ppoll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, &ts, std::ptr::null()) };
    if n > 0 {
        return Ok(true);
    }
    if n < 0 {
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
    Ok(false)
}

fn pollfd(fd: RawFd, events: libc::c_short) -> libc::pollfd {
    libc::pollfd { fd, events, revents: 0 }
}

const READ_CHUNK: usize = 64 * 1024;

/// Reads once from a non-blocking reader into `buf`. `Ok(None)`: would block; `Ok(Some(0))`: EOF.
fn read_some(r: &mut impl Read, buf: &mut Vec<u8>, max: usize) -> io::Result<Option<usize>> {
    let old = buf.len();
    buf.resize(old + max, 0);
    let res = loop {
        match r.read(&mut buf[old..]) {
            Ok(n) => break Ok(Some(n)),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break Ok(None),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => break Err(e),
        }
    };
    let n = match res {
        Ok(Some(n)) => n,
        _ => 0,
    };
    buf.truncate(old + n);
    res
}

/// Writes as much of `pending` as the pipe takes now. `Err` with EPIPE when nobody reads.
fn write_some(w: &mut impl Write, pending: &mut Vec<u8>) -> io::Result<()> {
    let mut done = 0;
    while done < pending.len() {
        match w.write(&pending[done..]) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                pending.drain(..done);
                return Err(e);
            }
        }
    }
    pending.drain(..done);
    Ok(())
}

fn line_to_string(mut line: &[u8], index: usize) -> Result<String, CallError> {
    if let [rest @ .., b'\r'] = line {
        line = rest;
    }
    String::from_utf8(line.to_vec()).map_err(|_| CallError::Garbage(format!("line {} is not UTF-8 text", index + 1)))
}

/// Passes stderr bytes to a sink, up to a cap, then one `[stderr truncated]` line.
struct StderrCap {
    cap: u64,
    written: u64,
    truncated: bool,
    /// Whether what was passed on so far ends with a newline (or is empty).
    ends_line: bool,
}

impl StderrCap {
    fn new(cap: u64) -> StderrCap {
        StderrCap { cap, written: 0, truncated: false, ends_line: true }
    }
}

impl StderrCap {
    fn feed(&mut self, sink: &mut dyn Write, data: &[u8]) {
        let room = self.cap.saturating_sub(self.written);
        let take = (data.len() as u64).min(room) as usize;
        if take > 0 {
            let _ = sink.write_all(&data[..take]);
            self.written += take as u64;
            self.ends_line = data[take - 1] == b'\n';
        }
        if take < data.len() && !self.truncated {
            self.truncated = true;
            let line: &[u8] = if self.ends_line { b"[stderr truncated]\n" } else { b"\n[stderr truncated]\n" };
            let _ = sink.write_all(line);
            let _ = sink.flush();
        }
    }
}

// ---------------------------------------------------------------------------------------
// Persistent processes

/// A persistent program: one process, many requests. Killed (with its whole process group)
/// and reaped by [`Process::kill`] or on drop.
pub struct Process {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: ChildStdout,
    pidfd: Option<OwnedFd>,
    /// Bytes read from stdout and not yet consumed.
    buf: Vec<u8>,
    /// Lines still owed for earlier requests that failed (timeout, flood, garbage); they are
    /// discarded when they arrive.
    stale: usize,
    /// Request bytes not yet taken by the pipe (kept across calls, so no request is cut).
    unwritten: Vec<u8>,
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
}

impl Process {
    /// Starts the program. Its stderr is drained by a thread into `stderr_sink`, capped at
    /// `limits.stderr_cap` bytes.
    pub fn spawn(
        spec: &ProgramSpec,
        limits: &Limits,
        mut stderr_sink: Box<dyn Write + Send>,
    ) -> Result<Process, CallError> {
        let Started { child, stdin, stdout, mut stderr, pidfd, cap: process_cap } = start(spec, limits)?;
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
            pidfd,
            buf: Vec::new(),
            stale: 0,
            unwritten: Vec::new(),
            max_answer: limits.max_answer_bytes,
            ended: None,
            reaped: false,
            stderr_done: None,
            tasks: ProgramTasks::default(),
            last_time: Duration::ZERO,
            cap: process_cap,
        };
        process.tasks = ProgramTasks::new(process.child.id());
        match thread {
            Ok(handle) => process.stderr_done = Some((rx, handle)),
            Err(e) => {
                process.kill();
                return Err(io_err("cannot start the stderr thread", &e));
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
        let result = self.ask_timed(request, lines, &mut timer, &mut tasks);
        self.last_time = timer.charge(Some(&mut tasks), false);
        self.tasks = tasks;
        result
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
        if self.stale == 0 {
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
                return Err(io_err("write", &e));
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
                Err(e) => return Err(io_err("poll", &e)),
                Ok(false) => return Err(self.fail(CallError::Timeout, lines, answer.len())),
                Ok(true) => {}
            }
            if fds[1].revents != 0 {
                // The leader ended: everything it wrote is in the pipe; read it all.
                exited = true;
                loop {
                    match read_some(&mut self.stdout, &mut self.buf, READ_CHUNK) {
                        Ok(Some(0)) | Ok(None) => break,
                        Ok(Some(_)) => {
                            if let Err(e) = self.take_lines(&mut answer, &mut answer_bytes, lines) {
                                return Err(self.fail(e, lines, answer.len()));
                            }
                            if answer.len() == lines {
                                break;
                            }
                        }
                        Err(e) => return Err(io_err("read", &e)),
                    }
                }
            } else if fds[0].revents != 0 {
                match read_some(&mut self.stdout, &mut self.buf, READ_CHUNK) {
                    Ok(Some(0)) => eof = true,
                    Ok(_) => {}
                    Err(e) => return Err(io_err("read", &e)),
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
                    budget = budget.saturating_sub(n);
                    self.skip_stale();
                    if self.stale == 0 {
                        self.buf.clear();
                    }
                }
                Err(e) => return Err(io_err("read", &e)),
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
                    pos += i + 1;
                    self.stale -= 1;
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

    /// The child closed a pipe or ended: give it a moment to end by itself, then kill the
    /// group and report how it ended.
    fn died(&mut self, what: &str) -> CallError {
        let exited = wait_exit(self.pid(), Duration::from_millis(100));
        let status = self.kill_inner();
        let how = match status {
            Some(s) if exited => describe_status(s),
            _ => what.to_string(),
        };
        self.ended = Some(how.clone());
        CallError::Exited(how)
    }

    /// Kills the whole process group with SIGKILL and reaps the child. Idempotent; also
    /// done on drop. Waits up to half a second for the stderr thread to pass on the rest.
    pub fn kill(&mut self) {
        self.kill_inner();
        if self.ended.is_none() {
            self.ended = Some("killed by the host".to_string());
        }
    }

    fn kill_inner(&mut self) -> Option<ExitStatus> {
        if self.reaped {
            return None;
        }
        self.stdin = None;
        let status = end_group(&mut self.child);
        self.reaped = true;
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

// ---------------------------------------------------------------------------------------
// One process per request

/// Runs the program once: writes `input` to its stdin and closes it, reads up to
/// `max_lines` lines (or until it closes stdout or ends) before `timeout`, then kills its
/// process group and reaps it. A last line without a newline counts when the output ends.
///
/// Returns the complete lines read, at least one: when the deadline passes after some
/// lines, those are returned; with none, `Timeout`. A program that ends without a line is
/// `Exited` (with its status). Lines after `max_lines` are ignored. Stderr goes to
/// `stderr_sink`, capped at `limits.stderr_cap`.
pub fn run_once(
    spec: &ProgramSpec,
    limits: &Limits,
    input: &[u8],
    max_lines: usize,
    timeout: Duration,
    stderr_sink: &mut dyn Write,
) -> Result<Vec<String>, CallError> {
    run_once_timed(spec, limits, input, max_lines, timeout, stderr_sink).0
}

/// [`run_once`], and the own time the call took (`crate::clock`: the wall time less the
/// time the program's tasks, all born within the call, and the calling thread waited
/// for a CPU). `timeout` is on that clock too.
pub fn run_once_timed(
    spec: &ProgramSpec,
    limits: &Limits,
    input: &[u8],
    max_lines: usize,
    timeout: Duration,
    stderr_sink: &mut dyn Write,
) -> (Result<Vec<String>, CallError>, Duration) {
    let mut timer = ProgramTimer::start(timeout, None);
    let Started { mut child, stdin, mut stdout, mut stderr, pidfd, cap } = match start(spec, limits) {
        Ok(started) => started,
        Err(e) => return (Err(e), timer.charge(None, true)),
    };
    let mut tasks = ProgramTasks::new(child.id());
    let result = run_once_loop(
        stdin,
        &mut stdout,
        &mut stderr,
        pidfd,
        limits,
        input,
        max_lines,
        (&mut timer, &mut tasks),
        stderr_sink,
    );
    // Read before the program is reaped (its first process is still readable then).
    let time = timer.charge(Some(&mut tasks), true);
    let status = end_group(&mut child);
    drop(cap);
    // Pass on the rest of stderr; bounded, as a process that left the group may hold it.
    let mut capper = result.1;
    let _ = set_nonblocking(stderr.as_raw_fd());
    let drain_end = Instant::now() + Duration::from_millis(100);
    let mut chunk = Vec::with_capacity(READ_CHUNK);
    loop {
        chunk.clear();
        match read_some(&mut stderr, &mut chunk, READ_CHUNK) {
            Ok(Some(0)) | Err(_) => break,
            Ok(Some(_)) => capper.feed(stderr_sink, &chunk),
            Ok(None) => {
                let mut fds = [pollfd(stderr.as_raw_fd(), libc::POLLIN)];
                if !matches!(poll_until(&mut fds, drain_end), Ok(true)) {
                    break;
                }
            }
        }
    }
    let _ = stderr_sink.flush();
    let result = match result.0 {
        Ok(lines) if lines.is_empty() => {
            Err(CallError::Exited(format!("{} without printing a line", describe_status(status))))
        }
        other => other,
    };
    (result, time)
}

#[allow(clippy::too_many_arguments)]
fn run_once_loop(
    stdin: ChildStdin,
    stdout: &mut ChildStdout,
    stderr: &mut ChildStderr,
    pidfd: Option<OwnedFd>,
    limits: &Limits,
    input: &[u8],
    max_lines: usize,
    (timer, tasks): (&mut ProgramTimer, &mut ProgramTasks),
    sink: &mut dyn Write,
) -> (Result<Vec<String>, CallError>, StderrCap) {
    let mut capper = StderrCap::new(limits.stderr_cap);
    let mut stdin = Some(stdin);
    let mut pending = input.to_vec();
    let mut buf: Vec<u8> = Vec::new();
    let mut lines: Vec<String> = Vec::new();
    let mut bytes = 0usize;
    let mut stderr_open = true;
    let mut chunk = vec![0u8; 16 * 1024];
    let max_answer = limits.max_answer_bytes;
    // Moves complete lines from buf to lines; `Some` ends the loop.
    let take = |buf: &mut Vec<u8>, lines: &mut Vec<String>, bytes: &mut usize, at_end: bool| -> Option<CallError> {
        let mut pos = 0;
        while lines.len() < max_lines {
            let (end, next) = match buf[pos..].iter().position(|&b| b == b'\n') {
                Some(i) => (pos + i, pos + i + 1),
                None if at_end && pos < buf.len() => (buf.len(), buf.len()),
                None => break,
            };
            *bytes += next - pos;
            if *bytes > max_answer {
                return Some(CallError::Flood);
            }
            match line_to_string(&buf[pos..end], lines.len()) {
                Ok(s) => lines.push(s),
                Err(e) => return Some(e),
            }
            pos = next;
        }
        buf.drain(..pos);
        (lines.len() < max_lines && *bytes + buf.len() > max_answer).then_some(CallError::Flood)
    };
    let mut exited = false;
    loop {
        if let Some(s) = &mut stdin {
            match write_some(s, &mut pending) {
                Ok(()) if pending.is_empty() => stdin = None, // closes it
                Ok(()) => {}
                // The program does not read its input (or has ended): fine, keep reading.
                Err(_) => stdin = None,
            }
        }
        if lines.len() >= max_lines {
            return (Ok(lines), capper);
        }
        if exited {
            // Everything the leader wrote has been read.
            if let Some(e) = take(&mut buf, &mut lines, &mut bytes, true) {
                return (Err(e), capper);
            }
            return (Ok(lines), capper);
        }
        let mut fds = [
            pollfd(stdout.as_raw_fd(), libc::POLLIN),
            pollfd(if stderr_open { stderr.as_raw_fd() } else { -1 }, libc::POLLIN),
            pollfd(pidfd.as_ref().map_or(-1, |f| f.as_raw_fd()), libc::POLLIN),
            pollfd(stdin.as_ref().map_or(-1, |s| s.as_raw_fd()), libc::POLLOUT),
        ];
        match poll_timed(&mut fds, timer, Some(tasks), true) {
            Err(e) => return (Err(io_err("poll", &e)), capper),
            Ok(false) => {
                return (if lines.is_empty() { Err(CallError::Timeout) } else { Ok(lines) }, capper);
            }
            Ok(true) => {}
        }
        if fds[1].revents != 0 {
            // stderr is blocking: poll said readable, so one read does not block.
            match stderr.read(&mut chunk[..]) {
                Ok(0) | Err(_) => stderr_open = false,
                Ok(n) => capper.feed(sink, &chunk[..n]),
            }
        }
        let mut drain_all = fds[2].revents != 0;
        if drain_all {
            exited = true;
        }
        if fds[0].revents != 0 || drain_all {
            loop {
                match read_some(stdout, &mut buf, READ_CHUNK) {
                    Ok(Some(0)) => {
                        exited = true;
                        drain_all = false;
                    }
                    Ok(Some(_)) => {
                        if let Some(e) = take(&mut buf, &mut lines, &mut bytes, false) {
                            return (Err(e), capper);
                        }
                        if lines.len() >= max_lines {
                            return (Ok(lines), capper);
                        }
                    }
                    Ok(None) => drain_all = false,
                    Err(e) => return (Err(io_err("read", &e)), capper),
                }
                if !drain_all {
                    break;
                }
            }
        }
    }
}
