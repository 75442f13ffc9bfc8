//! Starting a program and ending it: the child in its own process group with its three
//! pipes (stdin and stdout non-blocking) and a pidfd, its limits applied between fork and
//! exec (`rlimits`), in a process cap of its own where the host can make one (`cap`),
//! under bwrap when asked (`sandbox`); then SIGKILL to the whole group and the reap, and
//! how it ended in words. Also the host's own helpers (workers, probes): confined to a
//! group, a data cap and a process cap ([`confine_helper`]), and killed with their group
//! ([`kill_group`]); and the process-wide settings of a host that starts children
//! ([`ignore_sigpipe`], [`no_inherited_descriptors`]).
//!
//! Not here: talking to the program (`persistent`, `once`), what the limits are (the
//! caller's [`Limits`]).

use std::ffi::OsStr;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use super::cap::{MACHINE_OOM, MachineOom, ProcessCap};
use super::rlimits::{ChildSetup, become_user, check_access, lower_limit, own_session_keyring};
use super::sandbox::{self, Sandbox};
use super::uids::BoxUser;
use super::{CallError, Limits, ProgramSpec, io_err};

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

/// The nice value of a root host that plays games: above its bots (which start at 0),
/// so that its watchdog and the referee's relay look on time on a loaded machine.
pub const HOST_NICE: i32 = -5;

/// Raises this process's priority to [`HOST_NICE`] when it may (as root); every child it
/// starts for a bot goes back to 0. Verdicts do not depend on it (they are on the bots'
/// own time): it makes the host notice a call over its limit sooner when the machine is
/// crowded, so that the own time a verdict reports stays close to the limit.
pub fn raise_host_priority() {
    // SAFETY: geteuid cannot fail; setpriority only changes this process's nice value.
    unsafe {
        if libc::geteuid() == 0 {
            libc::setpriority(libc::PRIO_PROCESS, 0, HOST_NICE);
        }
    }
}

/// In a child between fork and exec: back to the ordinary priority (a root host runs
/// above it). Async-signal-safe.
pub(super) fn ordinary_priority() {
    // SAFETY: setpriority on the calling process; async-signal-safe.
    unsafe {
        if libc::getpriority(libc::PRIO_PROCESS, 0) < 0 {
            libc::setpriority(libc::PRIO_PROCESS, 0, 0);
        }
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

/// Confines a helper process of the host that runs native bots' code (a game worker, a
/// library probe): its own process group, so that [`kill_group`] takes whatever it
/// forked; killed when the thread that started it ends (the host quitting at once
/// included); at most `memory` bytes of data (RLIMIT_DATA: heap and private writable
/// mappings, not mere reservations, so that a bot's many threads' malloc arenas do not
/// count; a memory bomb fails inside the helper instead of exhausting the machine); no
/// core dumps; and at most `processes` processes and threads, whatever it forks:
/// through `cap` (made with that many beforehand where the host may make one: keep it
/// as long as the helper runs, and [`ProcessCap::admit`] the helper once started), and,
/// for a host that is not root, through RLIMIT_NPROC over the user's current count.
/// As root without a control group there is no such cap. A memory group made in `cap`
/// beforehand ([`ProcessCap::cap_memory`]) is joined with it. With `user` (a box's uid, for
/// a root host) it runs as that uid, with no supplementary groups; without a control
/// group, RLIMIT_NPROC then caps that uid's processes: the box's.
pub fn confine_helper(
    cmd: &mut Command,
    memory: u64,
    processes: u32,
    cap: Option<&ProcessCap>,
    user: Option<u32>,
    sandbox: &Sandbox,
) {
    cmd.process_group(0);
    // The boxes' system-call filter (`seccomp`), as for program bots (no bot may undo
    // its box's `--die-with-parent` by `prctl`), and in a box with its guard: nothing
    // else in the box can kill or stop the helper, its process 2 under bwrap's own
    // process 1 (`sandbox::helper_command`).
    let filter = match sandbox {
        Sandbox::None => super::seccomp::program_filter(),
        Sandbox::Bwrap { .. } => super::seccomp::boxed_filter().filter(|_| sandbox::filter_in_box()),
    };
    let joins: Vec<std::ffi::CString> = cap.map(ProcessCap::join_files).unwrap_or_default();
    // SAFETY: geteuid cannot fail.
    // A box's uid has no other process: RLIMIT_NPROC is then its cap, where no control
    // group is (with one, the group caps the worker alone, and its programs, which run as
    // the same uid, have groups of their own).
    let nproc = match user {
        Some(_) => cap.is_none().then_some(u64::from(processes)),
        None => (unsafe { libc::geteuid() } != 0).then(|| user_processes() + u64::from(processes)),
    };
    // SAFETY: the closure only makes async-signal-safe calls (setrlimit, prctl, open,
    // write, close, setgroups, setgid, setuid, seccomp) on data prepared before the fork, and
    // does not allocate.
    unsafe {
        cmd.pre_exec(move || {
            ordinary_priority();
            lower_limit(libc::RLIMIT_DATA, memory, memory)?;
            lower_limit(libc::RLIMIT_CORE, 0, 0)?;
            // "0" moves the writing process into the groups (its `pids` group, its
            // memory group), before it can fork (bwrap does at once) and while it may
            // still write there as root; `ProcessCap::admit` checks it worked.
            join_groups(&joins);
            if let Some(uid) = user {
                become_user(uid, uid)?;
            }
            own_session_keyring();
            if let Some(n) = nproc {
                lower_limit(libc::RLIMIT_NPROC, n, n)?;
            }
            // After the uid switch, which clears it.
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(io::Error::last_os_error());
            }
            if let Some(filter) = filter {
                super::seccomp::install(filter)?;
            }
            Ok(())
        });
    }
}

/// In a child between fork and exec: writes "0" to each `cgroup.procs` of `files`, which
/// moves the calling process into those control groups. Async-signal-safe (open, write,
/// close); does not allocate. A group that cannot be joined is left: the caller checks.
pub(super) fn join_groups(files: &[std::ffi::CString]) {
    for procs in files {
        // SAFETY: open/write/close on a path prepared before the fork.
        unsafe {
            let fd = libc::open(procs.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
            if fd >= 0 {
                libc::write(fd, b"0".as_ptr().cast(), 1);
                libc::close(fd);
            }
        }
    }
}

/// "over its memory limit of N MiB ...", when the memory group of `cap` had a process
/// of the program killed by the kernel for the group's own limit (read after the
/// program ended, before the cap is dropped).
pub(super) fn over_memory(cap: Option<&ProcessCap>) -> Option<String> {
    let cap = cap?;
    (cap.oom_kills() == super::cap::OomKills::OverItsLimit).then(|| {
        format!(
            "over its memory limit of {} MiB (its processes, its /tmp and /dev/shm together; killed by the kernel)",
            cap.memory_limit().unwrap_or(0) >> 20
        )
    })
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
    kill_first_in_box(child.id());
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: a plain syscall; the group is the child's own (see `confine_helper`),
        // whose id cannot be reused while the child is unreaped.
        unsafe {
            libc::killpg(pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
}

/// SIGKILL to the first child of process `pid` (under bwrap, its box's process 1), from
/// the host: a second line (that process is bwrap's own, which runs no bot code and
/// dies with bwrap; a box whose first process ran bot code could have undone its
/// `--die-with-parent`, `PR_SET_PDEATHSIG`), as its box is not in bwrap's process group
/// (`--new-session`), so ending bwrap alone would leave the box running. A signal from
/// the host, in a parent PID namespace, reaches it. The child is taken through a pidfd,
/// and only while it is still `pid`'s child.
fn kill_first_in_box(pid: u32) {
    let Some(first) = first_child(pid) else { return };
    let Some(fd) = pidfd_open(first) else { return };
    let parent = std::fs::read(format!("/proc/{first}/stat")).ok().and_then(|stat| {
        crate::clock::stat_fields(&stat).and_then(|mut f| f.nth(1)).and_then(|p| p.parse::<u32>().ok())
    });
    if parent == Some(pid) {
        // SAFETY: pidfd_send_signal on a pidfd we own, a null siginfo, no flags.
        unsafe {
            libc::syscall(libc::SYS_pidfd_send_signal, fd.as_raw_fd(), libc::SIGKILL, std::ptr::null::<u8>(), 0);
        }
    }
}

/// How long the host gives a process whose output ended (a program, a worker) to end
/// by itself before it ends it, and so before a death it finds is taken as the
/// process's own end: in a box that end goes through the box's process 1 and bwrap, each
/// of which must be scheduled, on a loaded machine too.
pub const OWN_END_GRACE: Duration = Duration::from_millis(500);

/// Whether `child` ends (or has ended) by itself within [`OWN_END_GRACE`], without
/// reaping it.
pub fn ends_by_itself(child: &Child) -> bool {
    wait_exit(child.id(), OWN_END_GRACE)
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

pub fn signal_name(sig: i32) -> &'static str {
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

pub(super) fn set_nonblocking(fd: RawFd) -> io::Result<()> {
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
pub(super) struct Started {
    pub(super) child: Child,
    pub(super) stdin: ChildStdin,
    pub(super) stdout: ChildStdout,
    pub(super) stderr: ChildStderr,
    pub(super) pidfd: Option<OwnedFd>,
    /// The program's own process cap, where the host can make one: dropped (whatever is
    /// left in it killed, a process that left the group included) after the program.
    pub(super) cap: Option<ProcessCap>,
    /// The uid its box runs as (a root host's lease), held while it lives.
    pub(super) user: Option<BoxUser>,
    /// The machine's OOM kills when it started ([`MachineOom::unaccounted`]).
    pub(super) machine_oom: MachineOom,
    /// Stdout is a stamped pipe: `stamped::written` on it tells when the program last
    /// wrote.
    pub(super) stamped: bool,
    /// Stdin is a stamped pipe: `stamped::written` tells from it when the host last
    /// wrote.
    pub(super) stdin_stamped: bool,
}

/// Starts the program. `stamp_stdin`: its stdin is a stamped FIFO where one can be made
/// (for a program the host keeps writing to: a FIFO's reader that opens it again by
/// name, `/dev/stdin`, waits for a writer, and finds none once the host has closed its
/// end, as `run_once` does after the input: there stdin is a plain pipe).
pub(super) fn start(spec: &ProgramSpec, limits: &Limits, stamp_stdin: bool) -> Result<Started, CallError> {
    if spec.command.is_empty() {
        return Err(CallError::Spawn("empty command".to_string()));
    }
    // A box of a root host runs as a uid of its own, leased for the program's life.
    let user = limits.sandbox.user().map_err(CallError::Spawn)?;
    let run_as = user.as_ref().map(|u| (u.uid, u.uid)).or(limits.run_as);
    if let Some((uid, gid)) = run_as {
        check_access(spec, uid, gid).map_err(CallError::Spawn)?;
    }
    let mut cmd = match &limits.sandbox {
        Sandbox::None => {
            let mut cmd = Command::new(&spec.command[0]);
            cmd.args(&spec.command[1..]);
            cmd
        }
        Sandbox::Bwrap { writable, hidden } => sandbox::program_command(spec, writable, hidden),
    };
    if let Some(dir) = &spec.dir {
        cmd.current_dir(dir);
    }
    cmd.env("PYTHONUNBUFFERED", "1").env_remove(super::cap::PROGRAMS_ENV);
    for (k, v) in &spec.env {
        cmd.env(k, v);
    }
    // Stdout through a pipe whose writes the kernel stamps, where one can be made.
    let pipe = || plain_pipe().map_err(|e| io_err("pipe", e));
    let (stamped_stdout, (stdout_host, stdout_child)) = match super::stamped::stamped_pipe() {
        Some(ends) => (true, ends),
        None => (false, pipe()?),
    };
    // Stdin too: when a request was all written, whenever the host got back from it.
    let (stamped_stdin, (stdin_child, stdin_host)) = match stamp_stdin.then(super::stamped::stamped_stdin).flatten() {
        Some(ends) => (true, ends),
        None => (false, pipe()?),
    };
    let (stderr_host, stderr_child) = pipe()?;
    // A program that runs as a user of its own may open its pipes again by name
    // (`/dev/stdin`, `> /dev/stderr`, as shell and JavaScript bots do): its group may
    // read its stdin and write its stdout and stderr. Not write its stdin: its times,
    // the request's stamp, are not the program's to move (`stamped`). A host that may
    // not give them (no CAP_CHOWN) starts it all the same: only those opens fail. Only
    // a box's own user (the group is its alone): programs run unboxed as `nobody` share
    // that user, and one could then open another's pipes through `/proc`.
    if let Some(gid) = user.as_ref().map(|u| u.uid) {
        for (end, mode) in [(&stdin_child, 0o640), (&stdout_child, 0o620), (&stderr_child, 0o620)] {
            let _ = open_to_group(end, gid, mode);
        }
    }
    cmd.stdin(Stdio::from(stdin_child)).stdout(Stdio::from(stdout_child)).stderr(Stdio::from(stderr_child));
    cmd.process_group(0);
    // A process cap of the program's own (a pids control group) counts only its own
    // processes, so no other program, and no other process of its user, can starve it;
    // where none can be made, RLIMIT_NPROC counts every process of its user.
    let mut cap = limits.processes.and_then(|max| ProcessCap::new(u32::try_from(max).unwrap_or(u32::MAX)).ok());
    // And a memory group of its own, which counts what RLIMIT_AS does not (shared
    // mappings, its box's /tmp and /dev/shm): its address space plus those files.
    if let (Some(cap), Some(bytes)) = (cap.as_mut(), limits.address_space) {
        let _ = cap.cap_memory(bytes.saturating_add(super::cap::BOX_FILES_MEMORY));
    }
    let mut setup = ChildSetup {
        cgroups: cap.as_ref().map(ProcessCap::join_files).unwrap_or_default(),
        address_space: limits.address_space,
        // Not in a boxed worker, whose filter refuses every new CPU limit (for its own
        // process, which its native bots share, and so for the children it forks).
        cpu_seconds: limits.cpu_seconds.filter(|_| super::rlimits::cpu_limit_settable()),
        // RLIMIT_NPROC counts a user's processes: only for a user of the program's own.
        processes: if cap.is_some() || run_as.is_none() { None } else { limits.processes },
        open_files: limits.open_files,
        file_size: limits.file_size,
        run_as,
        // No `splice` and the like into its stdout, whose stamp they would not move;
        // in a box only where bwrap works under it (`sandbox::filter_in_box`), with the
        // guard of its pid there.
        filter: match limits.sandbox {
            Sandbox::None => super::seccomp::program_filter(),
            Sandbox::Bwrap { .. } => super::seccomp::boxed_filter().filter(|_| sandbox::filter_in_box()),
        },
        // In a boxed worker of one entry: nothing else in the box may kill or stop it.
        guard: programs_guarded(limits).then(super::seccomp::program_guard).flatten(),
    };
    // SAFETY: the closure only calls async-signal-safe functions (getrlimit, setrlimit,
    // signal, setgroups, setgid, setuid, prctl, getpid, seccomp) on plain copied data,
    // and does not allocate (the guard is filled in place).
    unsafe {
        cmd.pre_exec(move || setup.apply());
    }
    // The machine's OOM kills before it runs: where it has no memory group, what tells
    // whether a death by SIGKILL may be the machine's OOM killer's.
    let machine_oom = MachineOom::watch(cap.as_ref());
    // In a worker, forked from its room for programs (charged there, not to the worker's
    // own cap that its native bots may have filled), then back.
    let in_room = super::cap::fork_in_room();
    // Where the host has the kernel's word on signals, a program's box is the boxes'
    // for it from its first instruction, its forks known (a death or a stop is then
    // believed only on that word: `witnessed`).
    if let Sandbox::Bwrap { .. } = limits.sandbox
        && let Some(witness) = super::SignalWitness::get()
    {
        witness.join_thread().map_err(|e| CallError::Spawn(format!("cannot join the signal witness: {e}")))?;
    }
    let spawned = cmd.spawn();
    drop(in_room);
    let child = spawned.map_err(|e| {
        let program = Path::new(if matches!(limits.sandbox, Sandbox::Bwrap { .. }) {
            OsStr::new("bwrap")
        } else {
            &spec.command[0]
        })
        .display()
        .to_string();
        match (e.kind(), run_as) {
            (io::ErrorKind::PermissionDenied, Some((uid, _))) => CallError::Spawn(format!(
                "{program}: permission denied as uid {uid} (the bot's files and every directory above them must be readable by that user)"
            )),
            _ => CallError::Spawn(format!("{program}: {e}")),
        }
    })?;
    // Our copies of the pipes' child ends go with the command.
    drop(cmd);
    let (stdin, stdout, stderr) =
        (ChildStdin::from(stdin_host), ChildStdout::from(stdout_host), ChildStderr::from(stderr_host));
    let pidfd = pidfd_open(child.id());
    let cap = cap.filter(|c| c.holds(child.id()));
    let started = Started {
        child,
        stdin,
        stdout,
        stderr,
        pidfd,
        cap,
        user,
        machine_oom,
        stamped: stamped_stdout,
        stdin_stamped: stamped_stdin,
    };
    for fd in [started.stdin.as_raw_fd(), started.stdout.as_raw_fd()] {
        if let Err(e) = set_nonblocking(fd) {
            let mut started = started;
            end_group(&mut started.child);
            return Err(io_err("fcntl", e));
        }
    }
    Ok(started)
}

/// An anonymous pipe, both ends close-on-exec: (read, write).
fn plain_pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two descriptors into `fds`.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors are new and owned by nothing else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Gives a pipe (its inode, both ends) to group `gid` with `mode`; its owner stays.
fn open_to_group(end: &OwnedFd, gid: u32, mode: libc::mode_t) -> io::Result<()> {
    // SAFETY: fchown and fchmod on a descriptor we own; uid -1 leaves the owner.
    if unsafe { libc::fchown(end.as_raw_fd(), u32::MAX, gid) } != 0
        || unsafe { libc::fchmod(end.as_raw_fd(), mode) } != 0
    {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// SIGKILL to the child's whole process group, then reap the child. The group id is the
/// child's pid, reserved until the child is reaped, so the group is signalled before the
/// reap; a second signal after the leader has died catches processes forked meanwhile.
pub(super) fn end_group(child: &mut Child) -> ExitStatus {
    end_group_timed(child).0
}

/// [`end_group`], and the CPU time (user and system) of the child and of what it waited
/// for: a boxed program's own, since its bwrap waits for it (`None` when the reap failed:
/// then the status is made up, and nothing is concluded from it).
pub(super) fn end_group_timed(child: &mut Child) -> (ExitStatus, Option<Duration>) {
    let pgid = child.id() as libc::pid_t;
    kill_first_in_box(child.id());
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
    let (status, cpu) = reap(pgid);
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
    (status, cpu)
}

/// Reaps the child `pid` (already ended): its exit status and CPU time (a made-up
/// SIGKILL and no time when it cannot be reaped). The `Child` it came from must not be
/// waited for again.
fn reap(pid: libc::pid_t) -> (ExitStatus, Option<Duration>) {
    let mut raw = 0;
    // SAFETY: wait4 writes the status and a zeroed rusage we own; `pid` is our unreaped child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: as above.
        let got = unsafe { libc::wait4(pid, &mut raw, 0, &mut usage) };
        if got == pid {
            break;
        }
        if got < 0 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
            continue;
        }
        return (ExitStatus::from_raw(libc::SIGKILL), None);
    }
    let time = |t: libc::timeval| Duration::new(t.tv_sec.max(0) as u64, (t.tv_usec.max(0) as u32) * 1000);
    (ExitStatus::from_raw(raw), Some(time(usage.ru_utime) + time(usage.ru_stime)))
}

/// Whether a boxed program (`pid` is its bwrap's, or, in a boxed worker of one entry,
/// the program's own) is stopped by a signal (state `T`) now: guarded in its box (see
/// [`killed_from_outside`]) it cannot be stopped from inside its box by a stop sent to
/// its pid (its filter refuses every stop signal to it, its own included), nor can
/// bwrap's process 1 above it, so the stop came from outside, and the time it stands is
/// not its own. Where the host has the kernel's word ([`witnessed`]), only when a task
/// outside every box sent a task of the box a stop: a program can stop itself by the
/// id of one of its threads.
pub(super) fn stopped_from_outside(pid: u32, limits: &Limits) -> bool {
    let stopped = |p: u32| state_of(p) == Some(b'T');
    match limits.sandbox {
        Sandbox::Bwrap { .. } if sandbox::boxes_guarded() => {
            let init = first_child(pid);
            let program = init.and_then(first_child);
            [init, program].into_iter().flatten().any(stopped) && witnessed(pid, &super::witness::STOPS)
        }
        Sandbox::Bwrap { .. } => false,
        Sandbox::None => programs_guarded(limits) && stopped(pid),
    }
}

/// Where this process has the kernel's word on who sent a signal (`SignalWitness`: a
/// root host, never a worker), whether a task outside every box sent one of `sigs` to
/// a task of the box whose first process is `pid` (a program's bwrap, forked by a
/// thread that joined the witness: `start`); elsewhere `true`, the caller's own rules
/// deciding alone.
pub(super) fn witnessed(pid: u32, sigs: &[i32]) -> bool {
    super::SignalWitness::get().is_none_or(|w| w.sent_from_outside_to_tree(pid, sigs))
}

/// The state of process `pid` now, as `/proc/<pid>/stat` gives it (`R`, `S`, `T`, `Z`,
/// ...); `None` when it is gone.
pub(super) fn state_of(pid: u32) -> Option<u8> {
    let stat = std::fs::read(format!("/proc/{pid}/stat")).ok()?;
    crate::clock::stat_fields(&stat)?.next()?.bytes().next()
}

/// The first child of process `pid`'s main thread (`/proc/<pid>/task/<pid>/children`):
/// a box's first process, under its bwrap.
pub fn first_child(pid: u32) -> Option<u32> {
    let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).ok()?;
    children.split_ascii_whitespace().next()?.parse().ok()
}

/// What a program stopped from outside its box ([`stopped_from_outside`]) is reported as.
pub(super) const STOPPED_FROM_OUTSIDE: &str = "stopped by a signal sent from outside it, then ended by the host";

/// How the call of a program that ended goes: `how` (its end in words) with its own
/// memory group's verdict added (`over_memory`, see [`over_memory`]); else killed from
/// outside its box ([`CallError::KilledFromOutside`]) when it ended by itself
/// (`by_itself`, not killed by the host) and only that explains its end
/// ([`killed_from_outside`], from its reaped status and CPU time `ended`, and the
/// kernel's word on its box, `witness`: [`witnessed`] of its bwrap), unless the
/// machine's OOM killer may have killed it (`machine_oom`: it killed a process of the
/// machine while the program ran, and no memory group of its own says whose, see
/// [`MachineOom::unaccounted`]; its end is then its own, and says why).
pub(super) fn ending(
    witness: &dyn Fn(&[i32]) -> bool,
    how: String,
    by_itself: bool,
    (status, cpu): (ExitStatus, Option<Duration>),
    limits: &Limits,
    over_memory: Option<&str>,
    machine_oom: bool,
) -> CallError {
    match over_memory {
        Some(over) => CallError::Exited(format!("{how}: {over}")),
        None if by_itself && killed_from_outside(witness, status, cpu, limits) => match machine_oom {
            true => CallError::Exited(format!("{how}: {MACHINE_OOM}")),
            false => CallError::KilledFromOutside(how),
        },
        None => CallError::Exited(how),
    }
}

/// Whether a program that ended by itself with `status` (reaped after using `cpu`; never
/// when it could not be reaped), not over its memory group's limit ([`ending`] looks
/// first), was killed from outside its box ([`CallError::KilledFromOutside`]): under
/// [`Sandbox::Bwrap`], bwrap's own death by a signal, or, where its filter guards the
/// program (its box's process 2 under bwrap's process 1: no other process of the box,
/// and not the program itself, may send it SIGKILL), a SIGKILL of the program (bwrap's
/// exit status 128 + 9); in a boxed worker of one entry, where the program's
/// filter guards it ([`programs_guarded`]: no other process of the box may send it
/// SIGKILL; its worker's own kills are not deaths by itself), its death by SIGKILL.
/// Never a SIGKILL that its CPU limit explains (`limits.cpu_seconds`, which the kernel
/// enforces with a SIGKILL), and where the host has the kernel's word, a boxed
/// program's SIGKILL only when a task outside every box sent one to a task of its box
/// (`witness`, [`witnessed`] of its bwrap; the guard does not see a `kill` of one of the
/// program's threads' ids, nor a timer).
fn killed_from_outside(
    witness: &dyn Fn(&[i32]) -> bool,
    status: ExitStatus,
    cpu: Option<Duration>,
    limits: &Limits,
) -> bool {
    let Some(cpu) = cpu else { return false };
    let under_cpu_limit = limits.cpu_seconds.is_none_or(|s| cpu < Duration::from_secs(s));
    match limits.sandbox {
        Sandbox::Bwrap { .. } => {
            status.signal().is_some()
                || (status.code() == Some(128 + libc::SIGKILL)
                    && under_cpu_limit
                    && sandbox::boxes_guarded()
                    && witness(&[libc::SIGKILL]))
        }
        Sandbox::None => programs_guarded(limits) && status.signal() == Some(libc::SIGKILL) && under_cpu_limit,
    }
}

/// Whether this process is a boxed worker of one entry ([`guard_programs`]).
static GUARD_PROGRAMS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The variable by which the host tells a boxed worker of one entry, whose filter guards
/// it, to guard the programs it starts too ([`guard_programs`]).
pub const GUARD_PROGRAMS_ENV: &str = "ARENA_GUARD_PROGRAMS";

/// Called by a boxed worker of one entry at its start (told by [`GUARD_PROGRAMS_ENV`]),
/// before any bot is loaded: every program it starts then gets a guard of its own pid
/// (`seccomp::program_guard`), so that no other process of the box (the worker's being
/// its own entry's, the program's own children) may kill or stop it, and its death by
/// SIGKILL is known to come from outside (`killed_from_outside`). Not in a worker of
/// several entries, whose native bots share its box with the programs.
pub fn guard_programs() {
    GUARD_PROGRAMS.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// The variable by which the host tells a boxed worker of one entry that starts no
/// program (a native or script entry), whose filter guards it, to refuse its bots the
/// ways to a SIGKILL of its own that the guard does not see ([`refuse_self_kills`]):
/// where the host has no signal witness (`SignalWitness`) to tell such a death from one
/// from outside.
pub const REFUSE_SELF_KILLS_ENV: &str = "ARENA_REFUSE_SELF_KILLS";

/// Called by a boxed worker of one entry that starts no program, at its start (told by
/// [`REFUSE_SELF_KILLS_ENV`]), before any bot is loaded: from then on none of its
/// threads, nor any process they start, may send SIGKILL or a stop signal to a single
/// process by `kill` (a thread's id of its own among them), nor have the kernel send
/// one later (a timer, an I/O signal, a message queue's, a child's exit signal):
/// `seccomp::self_kill_rule`. With the guard of its filter, nothing in its box can
/// then bring a SIGKILL on it, so its death by one came from outside. Where there is
/// no filter, nothing is installed (the host does not ask: its boxes are not guarded).
pub fn refuse_self_kills() -> io::Result<()> {
    match super::seccomp::self_kill_rule() {
        Some(rule) => super::seccomp::install_on_every_thread(rule),
        None => Ok(()),
    }
}

/// Whether a program started under `limits` gets its own guard ([`guard_programs`]): in
/// a boxed worker of one entry, unboxed itself (bwrap does not nest), where there is a
/// filter.
fn programs_guarded(limits: &Limits) -> bool {
    GUARD_PROGRAMS.load(std::sync::atomic::Ordering::Relaxed)
        && matches!(limits.sandbox, Sandbox::None)
        && super::seccomp::program_filter().is_some()
}

/// Whether the child has ended (without reaping it).
pub(super) fn has_exited(pid: u32) -> bool {
    // SAFETY: waitid writes into a zeroed siginfo_t we own; WNOWAIT leaves it waitable.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, libc::WEXITED | libc::WNOHANG | libc::WNOWAIT) == 0
            && info.si_pid() != 0
    }
}

/// Waits up to `grace` for the child to end by itself.
pub(super) fn wait_exit(pid: u32, grace: Duration) -> bool {
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

#[cfg(test)]
mod tests {
    use std::os::unix::process::ExitStatusExt;
    use std::process::ExitStatus;
    use std::time::Duration;

    use super::{CallError, Limits, Sandbox, ending};

    /// bwrap's exit status 128 + 9, as a wait status.
    fn exit(code: i32) -> ExitStatus {
        ExitStatus::from_raw(code << 8)
    }

    /// Whether [`ending`] takes a program that ended by itself so for killed from outside.
    fn outside(status: ExitStatus, cpu: Option<Duration>, limits: &Limits, over_memory: bool) -> bool {
        let over = over_memory.then_some("over its memory limit");
        let error = ending(&|_| true, "how".to_owned(), true, (status, cpu), limits, over, false);
        matches!(error, CallError::KilledFromOutside(_))
    }

    /// A boxed program's SIGKILL that would pass for one from outside is its own end
    /// when the machine's OOM killer killed a process while it ran and no memory group
    /// of its own says whose (`machine_oom`), and the reason says so.
    #[test]
    fn a_boxed_programs_sigkill_while_the_machines_oom_killer_killed_is_not_from_outside() {
        if !super::sandbox::boxes_guarded() {
            return crate::process::skip("skipped: this machine's boxes are not guarded");
        }
        let boxed = Limits { sandbox: Sandbox::Bwrap { writable: vec![], hidden: vec![] }, ..Limits::default() };
        let end = (exit(137), Some(Duration::from_millis(20)));
        let believed = ending(&|_| true, "exit status 137".to_owned(), true, end, &boxed, None, false);
        assert_eq!(believed, CallError::KilledFromOutside("exit status 137".to_owned()));
        let error = ending(&|_| true, "exit status 137".to_owned(), true, end, &boxed, None, true);
        assert_eq!(error, CallError::Exited(format!("exit status 137: {}", super::MACHINE_OOM)));
        // Its own exit: the same as without.
        assert_eq!(
            ending(&|_| true, "exit status 1".to_owned(), true, (exit(1), end.1), &boxed, None, true),
            CallError::Exited("exit status 1".to_owned())
        );
    }

    #[test]
    fn only_a_boxed_programs_sigkill_that_no_limit_of_its_own_explains_came_from_outside() {
        let boxed = Limits { sandbox: Sandbox::Bwrap { writable: vec![], hidden: vec![] }, ..Limits::default() };
        let cpu = Some(Duration::from_millis(20));
        // A SIGKILL of the program itself: from outside where its filter guards it.
        let guarded = super::sandbox::boxes_guarded();
        assert!(guarded || std::env::var_os("CI").is_none(), "CI must have guarded boxes");
        assert_eq!(outside(exit(137), cpu, &boxed, false), guarded);
        // Its bwrap killed by a signal.
        assert!(outside(ExitStatus::from_raw(libc::SIGKILL), cpu, &boxed, false));
        // Its own memory group's OOM killer, its own exit, its own fault.
        assert!(!outside(exit(137), cpu, &boxed, true));
        assert!(!outside(exit(1), cpu, &boxed, false));
        assert!(!outside(exit(139), cpu, &boxed, false));
        // Its CPU limit, which the kernel enforces with a SIGKILL.
        let timed = Limits { cpu_seconds: Some(3), ..boxed.clone() };
        assert_eq!(outside(exit(137), cpu, &timed, false), guarded);
        assert!(!outside(exit(137), Some(Duration::from_millis(4100)), &timed, false));
        // Not reaped: nothing concluded.
        assert!(!outside(exit(137), None, &boxed, false));
        // Unboxed, its own processes could have sent it.
        assert!(!outside(exit(137), cpu, &Limits::default(), false));
        assert!(!outside(ExitStatus::from_raw(libc::SIGKILL), cpu, &Limits::default(), false));
        // Where the kernel says that no task outside every box sent its box a SIGKILL
        // (a thread's id, a timer): its own; its bwrap's death by a signal still is not.
        let unseen = ending(&|_| false, "how".to_owned(), true, (exit(137), cpu), &boxed, None, false);
        assert_eq!(unseen, CallError::Exited("how".to_owned()));
        let bwraps =
            ending(&|_| false, "how".to_owned(), true, (ExitStatus::from_raw(libc::SIGKILL), cpu), &boxed, None, false);
        assert_eq!(bwraps, CallError::KilledFromOutside("how".to_owned()));
        // Killed by the host (not by itself): never from outside.
        let by_host = ending(&|_| true, "how".to_owned(), false, (exit(137), cpu), &boxed, None, false);
        assert_eq!(by_host, CallError::Exited("how".to_owned()));
        // Its memory group's verdict is added to how it ended.
        let over = ending(&|_| true, "exit status 137".to_owned(), true, (exit(137), cpu), &boxed, Some("over"), false);
        assert_eq!(over, CallError::Exited("exit status 137: over".to_owned()));
    }

    /// A box's first process that undid its `--die-with-parent` is ended by
    /// [`super::kill_group`] all the same: the host signals it itself.
    #[test]
    fn a_boxs_first_process_that_undid_its_die_with_parent_is_ended_with_its_box() {
        if let Err(why) = super::sandbox::bwrap_available() {
            return crate::process::skip(&format!("skipped: {why}"));
        }
        // PR_SET_PDEATHSIG (1) to 0, then a long sleep, as the box's process 1.
        let script = "import ctypes, time; ctypes.CDLL(None).prctl(1, 0); print('ready', flush=True); time.sleep(60)";
        let mut cmd = std::process::Command::new("bwrap");
        cmd.args(["--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/", "/"])
            .args(["--proc", "/proc", "--dev", "/dev", "--as-pid-1", "--", "/usr/bin/python3", "-c", script])
            .stdout(std::process::Stdio::piped());
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd.spawn().unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(child.stdout.take().unwrap()), &mut line).unwrap();
        assert_eq!(line, "ready\n");
        let first = super::first_child(child.id()).expect("the box's first process");
        super::kill_group(&mut child);
        child.wait().unwrap();
        let gone = |pid: u32| super::state_of(pid).is_none_or(|s| s == b'Z');
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while !gone(first) && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(gone(first), "the box's first process {first} outlived its box");
    }
}
