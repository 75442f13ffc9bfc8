//! The probe: a native library loaded in a child process (the hidden `__probe` command,
//! in the workers' box and limits), which reports its name, kind and game, so that the
//! host never runs a library's code, not even its initialisers.
//!
//! It is not the worker: a probe loads one library, writes one report and ends.

use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::bot::{BotError, Entry};
use crate::game::Game;
use crate::loaders::native::LibraryInfo;
use crate::process::kill_group;

use super::Isolation;
use super::scratch::{box_user, make_home};
use super::signals::describe_exit;

/// What a probe writes about one library.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub enum ProbeReport {
    /// It is a bot library: its name, kind and game.
    Bot(LibraryInfo),
    /// It is not, and why.
    Skipped(String),
}

/// Time a probe may take to load a library.
pub(super) const PROBE_TIME: Duration = Duration::from_secs(10);

/// Loads a library in a child process and says what it is, without the host ever
/// running the library's code.
pub fn probe<G: Game>(iso: &Isolation, path: &Path) -> Result<Entry<G>, String> {
    let user = box_user(&iso.sandbox)?;
    let uid = user.as_ref().map(|u| u.uid);
    // The probe's box writes only its own directory, where its report goes.
    let home = make_home(&iso.scratch, "probe", uid)?;
    let out = home.join("report.json");
    let file = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let mut cmd =
        crate::process::helper_command(&iso.program, &iso.sandbox, std::slice::from_ref(&file), &[home.as_path()]);
    let mut cap = crate::process::ProcessCap::new(iso.processes).ok();
    // A memory group too (its memory and its box's /tmp and /dev/shm), where one can be made.
    if let Some(cap) = cap.as_mut() {
        let _ = cap.cap_memory(iso.memory.saturating_add(crate::process::BOX_FILES_MEMORY));
    }
    crate::process::confine_helper(&mut cmd, iso.memory, iso.processes, cap.as_ref(), uid, &iso.sandbox);
    let spawned = cmd
        .args(["__probe"])
        .arg(&file)
        .arg("--out")
        .arg(&out)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&home);
            return Err(format!("cannot start a probe process: {e}"));
        }
    };
    if let Some(cap) = &cap {
        cap.admit(child.id());
    }
    if !ends_within(&mut child, PROBE_TIME) {
        let _ = std::fs::remove_dir_all(&home);
        return Err(format!("hung while loading (over {} s)", PROBE_TIME.as_secs()));
    }
    // Whatever the library forked while loading goes with it.
    kill_group(&mut child);
    let status = child.wait().map_err(|e| format!("cannot watch the probe: {e}"))?;
    drop(cap);
    let report = std::fs::read(&out);
    let _ = std::fs::remove_dir_all(&home);
    drop(user);
    if !status.success() {
        return Err(format!("crashed while loading ({})", describe_exit(status)));
    }
    let report: ProbeReport = report
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .ok_or_else(|| "the probe wrote no report".to_owned())?;
    match report {
        ProbeReport::Bot(info) => {
            crate::loaders::native::check_game::<G>(&info.game)?;
            let factory = || Err(BotError::Failed("an isolated entry plays only in a worker process".into()));
            Ok(Entry::new(info.name, info.kind, path.to_owned(), Arc::new(factory)))
        }
        ProbeReport::Skipped(reason) => Err(reason),
    }
}

/// Waits for `child` to end, for at most `time`: `false` when it did not (it is then
/// killed with its group, and reaped).
fn ends_within(child: &mut Child, time: Duration) -> bool {
    let started = Instant::now();
    while !crate::process::has_ended(child) {
        if started.elapsed() > time {
            kill_group(child);
            let _ = child.wait();
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    true
}
