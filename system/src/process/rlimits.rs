//! What a program's child process applies to itself between fork and exec, and who it
//! runs as: the rlimits of its [`Limits`](super::Limits) (address space, CPU seconds,
//! processes, open files, file size), joining its process cap's group, SIGPIPE back at
//! its default, and another uid ([`default_run_as`]: `nobody` when the host is root),
//! with the check, before the fork, that this uid can reach the program's files.
//!
//! Not here: the fork itself (`spawn`), the cap's group (`cap`), bwrap (`sandbox`).

use std::ffi::OsStr;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::ProgramSpec;

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

/// Everything the child applies between fork and exec; plain data, so that the `pre_exec`
/// closure neither allocates nor locks.
#[derive(Clone)]
pub(super) struct ChildSetup {
    /// The `cgroup.procs` of the program's own process cap (its `pids` group, its memory
    /// group), joined before anything else.
    pub(super) cgroups: Vec<std::ffi::CString>,
    pub(super) address_space: Option<u64>,
    pub(super) cpu_seconds: Option<u64>,
    pub(super) processes: Option<u64>,
    pub(super) open_files: Option<u64>,
    pub(super) file_size: Option<u64>,
    pub(super) run_as: Option<(u32, u32)>,
    /// The system-call filter of program bots (`seccomp`), installed last.
    pub(super) filter: Option<&'static [libc::sock_filter]>,
    /// In a boxed worker of one entry, the guard of the program's own pid (filled in the
    /// child: `seccomp::fill_guard`), installed after `filter`.
    pub(super) guard: Option<Vec<libc::sock_filter>>,
}

/// Lowers one limit (soft and hard) to at most `soft`/`hard`. Async-signal-safe.
pub(super) fn lower_limit(resource: libc::__rlimit_resource_t, soft: u64, hard: u64) -> io::Result<()> {
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

/// Whether this process may set a CPU limit (RLIMIT_CPU) for a child it starts: not in
/// a box whose filter refuses every new RLIMIT_CPU (`seccomp`'s guard, which a boxed
/// worker runs under, and so every child it forks until its exec). Asked of the kernel
/// once, by setting this process's own limit to what it is. Where it may not, a program
/// the worker starts runs without a CPU limit of its own: its calls' deadlines, on the
/// worker's clock, are what bound it (as they bound a persistent program, which never
/// has one).
pub(super) fn cpu_limit_settable() -> bool {
    static SETTABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SETTABLE.get_or_init(|| {
        let mut now = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: prlimit on this process, reading into and then writing from a struct
        // we own: the limit is set to what it already is.
        unsafe {
            libc::prlimit(0, libc::RLIMIT_CPU, std::ptr::null(), &mut now) == 0
                && libc::prlimit(0, libc::RLIMIT_CPU, &now, std::ptr::null_mut()) == 0
        }
    })
}

impl ChildSetup {
    /// Runs in the child after fork, before exec: only async-signal-safe calls, no
    /// allocation (`io::Error::last_os_error` does not allocate).
    pub(super) fn apply(&mut self) -> io::Result<()> {
        super::spawn::ordinary_priority();
        // "0" moves this process into its groups before it can fork (and before it
        // drops root).
        super::spawn::join_groups(&self.cgroups);
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
            become_user(uid, gid)?;
        }
        own_session_keyring();
        if let Some(filter) = self.filter {
            super::seccomp::install(filter)?;
        }
        if let Some(guard) = self.guard.as_mut() {
            // SAFETY: getpid cannot fail.
            super::seccomp::fill_guard(guard, unsafe { libc::getpid() } as u32);
            super::seccomp::install(guard)?;
        }
        Ok(())
    }
}

/// Gives the calling process (a child between fork and exec, after its uid switch) a
/// new, empty session keyring of its own, so that it cannot read the keys of the
/// session it was started from (the host's: a login's keys, tokens) nor leave keys
/// there for another box to read. Keyrings are not namespaced: bwrap's `--new-session`
/// is only `setsid`. Async-signal-safe (one system call); where the kernel has no
/// keyrings there is nothing to leave behind, so a failure is ignored.
pub(super) fn own_session_keyring() {
    const KEYCTL_JOIN_SESSION_KEYRING: libc::c_long = 1;
    // SAFETY: keyctl(JOIN_SESSION_KEYRING, NULL) only replaces the calling process's
    // session keyring with a new anonymous one.
    unsafe {
        libc::syscall(libc::SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, std::ptr::null::<libc::c_char>());
    }
}

/// Switches the calling process (a child between fork and exec) to `uid`/`gid` with no
/// supplementary groups. Async-signal-safe; does not allocate.
pub(super) fn become_user(uid: u32, gid: u32) -> io::Result<()> {
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
    Ok(())
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
pub(super) fn check_access(spec: &ProgramSpec, uid: u32, gid: u32) -> Result<(), String> {
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
