//! [`ProcessCap`]: a `pids` control group capping the processes and threads of one
//! program bot or one helper of the host and everything it forks, whatever process group
//! or session they move to; removed, with whatever is left in it killed, when dropped.
//! Groups that a host quitting at once left behind are swept on the first use.
//!
//! Not here: RLIMIT_NPROC, the fallback where no group can be made (`rlimits`, `spawn`).

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A control group of the `pids` controller holding one helper process and everything
/// it forks, capped at `max` processes and threads: a fork bomb in a native bot stops
/// there, even as root (whom RLIMIT_NPROC does not limit), and whatever left the
/// helper's process group is still found and killed. Made where the host may create
/// one (root, cgroup v1 or the v2 root); elsewhere [`ProcessCap::new`] says why not.
/// Dropping it kills what is left in it and removes it.
#[derive(Debug)]
pub struct ProcessCap {
    dir: PathBuf,
    pub(super) procs: std::ffi::CString,
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
        members_of(&self.dir)
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
        remove_group_tree(&self.dir);
    }
}

/// Kills every process in the control group `dir` and in the groups nested in it (a
/// worker's group holds the groups of the program bots it started), then removes them,
/// the innermost first. On cgroup v2, `cgroup.kill` ends the whole subtree at once.
fn remove_group_tree(dir: &Path) {
    let _ = std::fs::write(dir.join("cgroup.kill"), "1");
    for _ in 0..100 {
        let nested: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|d| d.flatten().filter(|e| e.path().is_dir()).map(|e| e.path()).collect())
            .unwrap_or_default();
        for child in &nested {
            remove_group_tree(child);
        }
        let members = members_of(dir);
        if members.is_empty() && std::fs::remove_dir(dir).is_ok() {
            return;
        }
        if !dir.exists() {
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

fn members_of(dir: &Path) -> Vec<u32> {
    let text = std::fs::read_to_string(dir.join("cgroup.procs")).unwrap_or_default();
    text.lines().filter_map(|l| l.trim().parse().ok()).collect()
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
