//! Sandboxing with bubblewrap: what a [`Sandbox::Bwrap`] program bot and a sandboxed
//! helper of the host (a worker, a probe) see, as `bwrap` command lines, and whether
//! bwrap works on this machine at all.
//!
//! Not here: starting the command (`spawn`), the limits a sandboxed process also gets
//! (`rlimits`, `cap`), or choosing a sandbox (the CLI's `--sandbox`).

use std::io;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use super::ProgramSpec;
use super::rlimits::default_run_as;
use super::spawn::describe_status;

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

/// The command that runs a program bot as `spec` says under `bwrap`, `writable` bound
/// read-write (see [`Sandbox::Bwrap`]).
pub(super) fn program_command(spec: &ProgramSpec, writable: &[PathBuf]) -> Command {
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
