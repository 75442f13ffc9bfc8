//! Boxes: what a bot's processes see, as `bwrap` (bubblewrap) command lines, and whether
//! bwrap works on this machine at all.
//!
//! A box ([`Sandbox::Bwrap`]) is one entry's world: its own user namespace (and, when
//! the host is root, a uid of its own from a reserved range: `uids`), its own PID, IPC,
//! UTS and network namespaces (it sees and can signal only its own processes, shares no
//! SysV IPC or socket with anyone, and has no network), its own mount namespace with the
//! whole file system read-only, a private empty `/tmp` and `/dev/shm` of 64 MiB each, the
//! directories of the other entries, the logs and the host's scratch space covered by
//! empty ones (a bot given as a file by an empty file), and only its own files and its
//! scratch directory bound back. Its environment is cleared but for a few harmless
//! variables ([`BOX_ENV`]); its session keyring is a new one of its own (`rlimits`, in
//! the child before bwrap starts). Where its process 2 is guarded (`seccomp`), bwrap
//! also installs the boxes' exit rule in it and in its process 1 (an exit with 137
//! dies of SIGSYS, so that bwrap's 137 is a real SIGKILL: [`boxes_guarded`]). It has
//! no capabilities, and it dies
//! with the process that started it (`--die-with-parent`): when its first process ends,
//! the kernel ends every process of its PID namespace.
//!
//! Not here: starting the command (`spawn`), the uid switch and limits a boxed process
//! also gets (`rlimits`, `cap`, `uids`), or choosing a sandbox (the CLI's `--sandbox`
//! and `--trust-bots`).

use std::io::{self, Seek, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use super::ProgramSpec;
use super::spawn::describe_status;
use super::uids::BoxUser;

/// Whether to run a bot's processes in a box.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Sandbox {
    /// Run them directly, as the host's user (or `nobody`, for programs of a root host).
    #[default]
    None,
    /// In a box of their own (see the module's documentation).
    Bwrap {
        /// Paths the box may write to (bound read-write at the same place).
        writable: Vec<PathBuf>,
        /// Directories covered by an empty one in the box (the bot directories, the
        /// logs, the host's scratch space): the box's own files under them are bound
        /// back, nothing else of them is seen.
        hidden: Vec<PathBuf>,
    },
}

impl Sandbox {
    /// The uid a new process of this sandbox runs as: in a box, its own lease when the
    /// host is root (see [`BoxUser::for_box`]); `None` without a box or not as root.
    pub fn user(&self) -> Result<Option<BoxUser>, String> {
        match self {
            Sandbox::None => Ok(None),
            Sandbox::Bwrap { .. } => BoxUser::for_box(),
        }
    }
}

/// The namespaces and mounts every box has: its private `/tmp` and `/dev/shm` hold at
/// most 64 MiB each (a tmpfs takes the machine's memory; `/dev` itself is made
/// read-only once set up, in [`box_command`]). `--unshare-user` makes a user namespace
/// whatever the uid bwrap starts as (a root host has switched to the box's own uid
/// before it execs bwrap); the cgroup namespace is kept, so that a worker finds its own
/// process cap's group by the host's path.
const BOX_COMMON: [&str; 24] = [
    "--unshare-user",
    "--unshare-ipc",
    "--unshare-pid",
    "--unshare-net",
    "--unshare-uts",
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--size",
    "67108864",
    "--tmpfs",
    "/dev/shm",
    "--proc",
    "/proc",
    "--size",
    "67108864",
    "--tmpfs",
    "/tmp",
];

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_owned())
}

/// A directory as the box's mounts must name it: every link on the way followed (a
/// `target -> /scratch/...` link would otherwise make bwrap fail to mount over it).
fn resolved_dir(dir: &Path) -> PathBuf {
    std::fs::canonicalize(dir).unwrap_or_else(|_| absolute(dir))
}

/// Where a file is bound in the box: its directory resolved, its own name as given, so
/// that a file that is itself a link keeps its name (bwrap follows it at the source).
fn resolved_file(file: &Path) -> PathBuf {
    let file = absolute(file);
    match (file.parent(), file.file_name()) {
        (Some(dir), Some(name)) => resolved_dir(dir).join(name),
        _ => file,
    }
}

/// The host's environment variables a box keeps: where programs are found, the
/// language, the time zone, the temporary directory and Rust's backtraces. Nothing else
/// of the host's environment (tokens, database addresses, keys a contest host may hold
/// there) reaches a box, nor bwrap itself, whose environment a box could read as
/// `/proc/1/environ`.
const BOX_ENV: [&str; 7] = ["PATH", "LANG", "LANGUAGE", "TZ", "TMPDIR", "RUST_BACKTRACE", "RUST_LIB_BACKTRACE"];

/// Clears `cmd`'s environment but for [`BOX_ENV`] and the locale's `LC_*`, and sets
/// `HOME` to the box's working directory (or `/tmp`, its own).
fn box_env(cmd: &mut Command, chdir: Option<&Path>) {
    cmd.env_clear();
    for (key, value) in std::env::vars_os() {
        let keep = key.to_str().is_some_and(|k| BOX_ENV.contains(&k) || k.starts_with("LC_"));
        if keep {
            cmd.env(key, value);
        }
    }
    cmd.env("HOME", chdir.map_or_else(|| PathBuf::from("/tmp"), absolute));
}

/// A box's command line: `hidden` covered, `visible` (files, or directories bound whole)
/// bound back read-only, `writable` bound read-write, run in `chdir`; with the boxes'
/// exit rule when `exit_rule` ([`add_exit_rule`]).
fn box_command(
    hidden: &[PathBuf],
    visible: &[PathBuf],
    writable: &[PathBuf],
    chdir: Option<&Path>,
    exit_rule: bool,
) -> Command {
    let mut cmd = Command::new("bwrap");
    box_env(&mut cmd, chdir);
    cmd.args(BOX_COMMON);
    if exit_rule {
        add_exit_rule(&mut cmd);
    }
    let tmp = Path::new("/tmp");
    let mut covered: Vec<PathBuf> = Vec::new();
    // A directory is covered before those inside it (a cover over a cover hides it).
    let mut hidden: Vec<PathBuf> = hidden.iter().map(|h| resolved_dir(h)).collect();
    hidden.sort_by_key(|h| h.components().count());
    for h in hidden {
        // Under /tmp it is hidden already; the root (or an ancestor of the system's
        // directories) is never covered.
        if h.starts_with(tmp) || h.parent().is_none() || covered.iter().any(|c| h.starts_with(c)) {
            continue;
        }
        if h.is_dir() {
            cmd.args(["--size", "65536", "--tmpfs"]).arg(&h);
            covered.push(h);
        } else if h.is_file() {
            // A bot given as a file (or a file a bot must not read): an empty one over
            // it, the way a directory gets an empty one.
            cmd.arg("--ro-bind").arg("/dev/null").arg(&h);
        }
    }
    // Bound at its real place, and also at the path as given when a link on that path
    // lies where the box has a directory of its own (its `/tmp`, a cover): there the
    // link is missing, and the given path would lead nowhere. Elsewhere the link is in
    // the box's read-only view and leads to the real place.
    let own = |given: &Path, at: &Path| {
        given != at && (given.starts_with(tmp) || covered.iter().any(|c| given.starts_with(c)))
    };
    let mut shown: Vec<PathBuf> = Vec::new();
    for v in visible {
        let given = absolute(v);
        let at = resolved_file(v);
        let also = own(&given, &at).then(|| given.clone());
        for place in std::iter::once(at).chain(also) {
            if !shown.contains(&place) {
                cmd.arg("--ro-bind-try").arg(&given).arg(&place);
                shown.push(place);
            }
        }
    }
    for w in writable {
        let given = absolute(w);
        let at = resolved_dir(w);
        if own(&given, &at) {
            cmd.arg("--bind").arg(&at).arg(&given);
        }
        cmd.arg("--bind").arg(&at).arg(&at);
    }
    // The covers hold nothing but mount points: no box writes there. Nor in `/dev`,
    // whose tmpfs has no size of its own (its devices still work).
    for h in &covered {
        cmd.arg("--remount-ro").arg(h);
    }
    cmd.args(["--remount-ro", "/dev"]);
    if let Some(dir) = chdir {
        cmd.arg("--chdir").arg(absolute(dir));
    }
    cmd
}

/// Gives bwrap the boxes' exit rule (`seccomp::exit_rule`: an `exit` with status 137
/// kills its process by SIGSYS) for the box's processes (`--add-seccomp-fd`, which
/// bwrap applies in its process 1 and, last before the exec, in its process 2; not in
/// bwrap's own first process, outside the box, which must pass on a real SIGKILL of
/// the box's process 2 as 137). The rule travels in a memory file of its own per
/// command, inherited by bwrap alone (close-on-exec but in the child, and closed in the
/// host with the command); where none can be made, or there is no rule, the command
/// fails to start rather than box without it.
fn add_exit_rule(cmd: &mut Command) {
    let fd = super::seccomp::exit_rule().ok_or_else(|| io::Error::from_raw_os_error(libc::ENOSYS)).and_then(rule_file);
    match fd {
        Ok(fd) => {
            cmd.arg("--add-seccomp-fd").arg(fd.as_raw_fd().to_string());
            // SAFETY: fcntl on a descriptor the closure owns; async-signal-safe.
            unsafe {
                cmd.pre_exec(move || {
                    if libc::fcntl(fd.as_raw_fd(), libc::F_SETFD, 0) != 0 {
                        return Err(io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        Err(e) => {
            let errno = e.raw_os_error().unwrap_or(libc::EIO);
            // SAFETY: the closure makes no call at all.
            unsafe { cmd.pre_exec(move || Err(io::Error::from_raw_os_error(errno))) };
        }
    }
}

/// A memory file (close-on-exec, above standard error) holding `rule` as bwrap reads a
/// filter: its instructions as the kernel lays them out, read from the start.
fn rule_file(rule: &[libc::sock_filter]) -> io::Result<OwnedFd> {
    // SAFETY: memfd_create takes a name and flags and returns a new descriptor or -1.
    let raw = unsafe { libc::memfd_create(c"arena-exit-rule".as_ptr(), libc::MFD_CLOEXEC) };
    if raw < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel just returned this descriptor to us; nothing else owns it.
    let first = unsafe { OwnedFd::from_raw_fd(raw) };
    // Never 0, 1 or 2, which the child's standard streams take over before its exec
    // (a host started with one of them closed would get one here).
    let fd = if raw > 2 {
        first
    } else {
        // SAFETY: F_DUPFD_CLOEXEC makes a new descriptor (3 or above) of ours.
        let above = unsafe { libc::fcntl(raw, libc::F_DUPFD_CLOEXEC, 3) };
        if above < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: as above, a new descriptor nothing else owns.
        unsafe { OwnedFd::from_raw_fd(above) }
    };
    let mut file = std::fs::File::from(fd);
    let bytes: Vec<u8> = rule
        .iter()
        .flat_map(|i| {
            let mut b = [0u8; 8];
            b[..2].copy_from_slice(&i.code.to_ne_bytes());
            b[2] = i.jt;
            b[3] = i.jf;
            b[4..].copy_from_slice(&i.k.to_ne_bytes());
            b
        })
        .collect();
    file.write_all(&bytes)?;
    file.seek(io::SeekFrom::Start(0))?;
    Ok(OwnedFd::from(file))
}

/// The command that runs a program bot as `spec` says in a box: its program and script
/// files (the files named in its argv) and the directory of its own files (`files`)
/// bound back over `hidden`, its directory as its working directory, `writable` bound
/// read-write. The program runs as the box's process 2 under bwrap's own process 1,
/// which reaps the children it leaves and dies with bwrap (and so with the host),
/// whatever the program does; its filter guards it there (`spawn::start`: no other
/// process of the box may kill or stop it), so its death by SIGKILL came from outside
/// (`spawn::killed_from_outside`).
pub(super) fn program_command(spec: &ProgramSpec, writable: &[PathBuf], hidden: &[PathBuf]) -> Command {
    let visible: Vec<PathBuf> = spec
        .command
        .iter()
        .map(|arg| match &spec.dir {
            Some(d) if Path::new(arg).is_relative() && d.join(arg).is_file() => d.join(arg),
            _ => PathBuf::from(arg),
        })
        .filter(|p| p.is_absolute() && p.is_file())
        .chain(spec.files.iter().map(|f| absolute(f)).filter(|f| f.is_dir()))
        .collect();
    let mut cmd = box_command(hidden, &visible, writable, spec.dir.as_deref(), boxes_guarded());
    cmd.arg("--").args(&spec.command);
    cmd
}

/// The command for a helper of the host (`program`, a game worker or a library probe)
/// run under `sandbox`: directly, or in a box where `program` and `files` (the bots it
/// loads) are bound back read-only, `writable` read-write (with the sandbox's own
/// writable paths), and `writable`'s first path is its working directory. In a box the
/// helper runs under bwrap's own process 1, which reaps the box's orphans and dies with
/// bwrap (and so with the host), whatever the helper's code does; the helper is its
/// box's process 2 (`seccomp::GUARDED_PID`, as a program's), which the boxes' filter keeps
/// every other process of the box from killing or stopping (`spawn::confine_helper`):
/// its death by SIGKILL came from outside the box, from the kernel (its box's OOM
/// killer), or from its own hand (a bot in it can still bring one on itself:
/// `docs/hardening.md`, believed once per entry), never from a neighbour in its box.
pub fn helper_command(program: &Path, sandbox: &Sandbox, files: &[PathBuf], writable: &[&Path]) -> Command {
    match sandbox {
        Sandbox::None => Command::new(program),
        Sandbox::Bwrap { writable: more, hidden } => {
            let visible: Vec<PathBuf> = std::iter::once(program.to_owned()).chain(files.iter().cloned()).collect();
            let writable: Vec<PathBuf> = writable.iter().map(|w| w.to_path_buf()).chain(more.iter().cloned()).collect();
            let mut cmd =
                box_command(hidden, &visible, &writable, writable.first().map(PathBuf::as_path), boxes_guarded());
            cmd.arg("--").arg(program);
            cmd
        }
    }
}

/// Whether [`Sandbox::Bwrap`] works here: runs `bwrap ... true` once, as a box would run
/// (a root host first switches to a box uid, and the program bots' system-call filter
/// is installed: `seccomp`), and caches the answer. `Err` says why not in one line,
/// e.g. bwrap is missing or user namespaces are off.
pub fn bwrap_available() -> Result<(), String> {
    bwrap_check().0.clone()
}

/// Whether a boxed program gets the system-call filter (`seccomp`): where there is one,
/// always, but under a setuid bwrap that does not start under it (`no_new_privs` keeps
/// such a bwrap from the privileges it may need).
pub(super) fn filter_in_box() -> bool {
    bwrap_check().1
}

/// Whether a boxed helper (a worker) or program runs under the boxes' filter with its
/// guard ([`helper_command`], `program_command`), and its box's processes under the
/// boxes' exit rule ([`add_exit_rule`]): then no other process of its box can kill or
/// stop it, and bwrap's exit status 137 says that it died of SIGKILL. Not where boxed
/// programs get no filter ([`box_filter_missing`]), nor where bwrap does not take the
/// exit rule (before bubblewrap 0.5, which has no `--add-seccomp-fd`).
pub fn boxes_guarded() -> bool {
    super::seccomp::boxed_filter().is_some() && filter_in_box() && bwrap_check().2
}

/// Why boxed programs run without the system-call filter here, if they do (and bwrap
/// works): no filter here at all ([`super::seccomp::unavailable`]), or a setuid bwrap
/// that does not start under it.
pub fn box_filter_missing() -> Option<&'static str> {
    match bwrap_check() {
        (Ok(()), false, _) => Some(super::seccomp::unavailable().unwrap_or(SETUID_BWRAP)),
        _ => None,
    }
}

const SETUID_BWRAP: &str = "the setuid bwrap of this machine does not start under no_new_privs";

/// Whether bwrap works, whether it starts under the filter, and whether it takes the
/// exit rule too.
fn bwrap_check() -> &'static (Result<(), String>, bool, bool) {
    static RESULT: OnceLock<(Result<(), String>, bool, bool)> = OnceLock::new();
    RESULT.get_or_init(|| {
        let Some(filter) = super::seccomp::program_filter() else { return (run_bwrap_true(None, false), false, false) };
        if run_bwrap_true(Some(filter), true).is_ok() {
            return (Ok(()), true, true);
        }
        match run_bwrap_true(Some(filter), false) {
            Ok(()) => (Ok(()), true, false),
            // Only a setuid bwrap may need what no_new_privs takes away: any other
            // failure is bwrap's own, and boxes would fail the same way.
            Err(_) if bwrap_is_setuid() => (run_bwrap_true(None, false), false, false),
            Err(why) => (Err(why), false, false),
        }
    })
}

/// Whether the `bwrap` found on the `PATH` is setuid.
fn bwrap_is_setuid() -> bool {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("bwrap"))
        .find_map(|p| std::fs::metadata(p).ok().filter(|m| m.is_file()))
        .is_some_and(|m| m.permissions().mode() & 0o4000 != 0)
}

fn run_bwrap_true(filter: Option<&'static [libc::sock_filter]>, exit_rule: bool) -> Result<(), String> {
    let mut cmd = box_command(&[], &[], &[], Some(Path::new("/")), exit_rule);
    cmd.args(["--", "true"]);
    cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).current_dir("/");
    let user = BoxUser::for_box()?;
    let uid = user.as_ref().map(|u| u.uid);
    // SAFETY: the closure only makes async-signal-safe calls (setgroups, setgid,
    // setuid, prctl, seccomp) and does not allocate.
    unsafe {
        cmd.pre_exec(move || {
            if let Some(uid) = uid {
                super::rlimits::become_user(uid, uid)?;
            }
            if let Some(filter) = filter {
                super::seccomp::install(filter)?;
            }
            Ok(())
        });
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
}
