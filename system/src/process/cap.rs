//! [`ProcessCap`]: a `pids` control group capping the processes and threads of one
//! program bot or one helper of the host and everything it forks, whatever process group
//! or session they move to; removed, with whatever is left in it killed, when dropped.
//! Groups that a host quitting at once left behind are swept on the first use.
//!
//! A cap may also hold a **memory** control group ([`ProcessCap::cap_memory`]): on cgroup
//! v1 a group of the `memory` hierarchy beside the `pids` one (made under the host's own
//! memory group, `memory.limit_in_bytes`), on cgroup v2 the limit of the cap's own group
//! (`memory.max`, `memory.swap.max` 0). Unlike `RLIMIT_DATA` and `RLIMIT_AS` it counts
//! everything the box holds: shared mappings, its `/tmp` and `/dev/shm` (tmpfs pages are
//! charged to the group that wrote them), the page cache it fills. The child joins it
//! before exec with its `pids` group, it is killed and removed with the cap, and its
//! OOM-kill counter says whether a process of the box died of its own limit
//! ([`ProcessCap::oom_kills`]).
//!
//! A worker's cap ([`ProcessCap::with_programs`]) is a group of two: the worker's own
//! group (its cap: the worker, its native bots and all they fork) and, beside it, the
//! group where the worker makes its program bots' groups (told by [`PROGRAMS_ENV`]), the
//! two under one outer cap no process inside can raise. So a native bot that forks up to
//! the worker's cap leaves the programs beside it their own caps, and a worker under
//! bwrap (whose `/sys` is read-only but for that one directory) still gives its programs
//! groups of their own.
//!
//! Where a box has no memory group, the machine's OOM-kill count ([`MachineOom`],
//! `/proc/vmstat`) is what says whether the kernel's OOM killer may have ended it: it
//! tells that some process of the machine was killed, not whose.
//!
//! Not here: RLIMIT_NPROC, the fallback where no group can be made (`rlimits`, `spawn`),
//! and RLIMIT_DATA / RLIMIT_AS, all a box's memory has where no memory group can be.

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
    /// The group removed with the cap (the outer group of a worker's cap).
    dir: PathBuf,
    /// The group the helper joins: `dir`, or a worker's own group inside it.
    own: PathBuf,
    /// Where a worker makes its programs' groups, beside `own` inside `dir`.
    programs: Option<PathBuf>,
    procs: std::ffi::CString,
    /// Its memory group, where one could be made ([`ProcessCap::cap_memory`]).
    memory: Option<MemoryGroup>,
}

/// The memory control group of a [`ProcessCap`].
#[derive(Debug)]
struct MemoryGroup {
    /// Its directory: on cgroup v1 a group of the `memory` hierarchy of its own (removed
    /// with the cap), on v2 the cap's own outer group.
    dir: PathBuf,
    /// Its `cgroup.procs`, joined beside the `pids` group's (cgroup v1 only: on v2 it is
    /// the same group).
    procs: Option<std::ffi::CString>,
    /// The limit, in bytes.
    limit: u64,
}

/// What the kernel's OOM killer did in a box's memory group ([`ProcessCap::oom_kills`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OomKills {
    /// It killed nothing there (or the cap has no memory group).
    None,
    /// It killed a process of the box because the box reached its own limit: the box's
    /// doing.
    OverItsLimit,
    /// It killed a process of the box while the box was under its own limit: the
    /// machine (or a group above the host's) was short of memory, not the box's fault.
    MachineShort,
}

/// The machine's count of OOM kills (`oom_kill` in `/proc/vmstat`, Linux 4.13 and
/// later), taken when a box starts, to tell when its death is judged whether the
/// kernel's OOM killer killed any process of the machine meanwhile
/// ([`MachineOom::killed_since`]). It is what answers where the box has no memory
/// group of its own ([`ProcessCap::oom_kills`] then says [`OomKills::None`]): a bot
/// that raised its own `oom_score_adj` and exhausted the machine's memory dies of the
/// global OOM killer's SIGKILL, which nothing else tells from one sent from outside.
/// It says nothing of whose process was killed, nor why: any OOM kill on the machine
/// meanwhile makes a death by SIGKILL not believed. A kernel without the counter
/// answers nothing (every `killed_since` is `false`, as before it was looked at).
#[derive(Debug, Clone, Copy)]
pub struct MachineOom {
    /// Where the count comes from: `/proc/vmstat` ([`MachineOom::watch`]), or a test's.
    count: fn() -> Option<u64>,
    /// The count when the box started.
    at_start: Option<u64>,
}

impl MachineOom {
    /// The machine's count now, as a box with `cap` starts; not read (nor later) where
    /// that cap has a memory group, which answers itself ([`MachineOom::unaccounted`]):
    /// a program started for each call would read `/proc/vmstat` for nothing.
    pub fn watch(cap: Option<&ProcessCap>) -> MachineOom {
        MachineOom::watch_with(machine_oom_kills, cap.and_then(ProcessCap::memory_limit).is_some())
    }

    fn watch_with(count: fn() -> Option<u64>, grouped: bool) -> MachineOom {
        MachineOom { count, at_start: if grouped { None } else { count() } }
    }

    /// Whether the machine's OOM killer has killed a process since [`MachineOom::watch`]
    /// (`false` where the kernel does not count them, or the count was not read).
    pub fn killed_since(&self) -> bool {
        self.at_start.is_some_and(|then| (self.count)().is_some_and(|now| now > then))
    }

    /// Whether a box's death by SIGKILL may be the kernel's OOM killer's where nothing
    /// else says: its cap (`cap`, if it has one) has no memory group of its own, and
    /// the machine's OOM killer killed a process since the box started. With a memory
    /// group, [`ProcessCap::oom_kills`] answers (the kernel counts a global OOM kill in
    /// the victim's group too).
    pub fn unaccounted(&self, cap: Option<&ProcessCap>) -> bool {
        cap.and_then(ProcessCap::memory_limit).is_none() && self.killed_since()
    }
}

/// Why a death by SIGKILL that [`MachineOom::unaccounted`] may explain is not taken for
/// one from outside its box.
pub const MACHINE_OOM: &str = "the kernel's OOM killer killed a process of this machine while it ran, and no memory group of its box says whose: not taken for a kill from outside";

/// The machine's OOM kills so far: the `oom_kill` line of `/proc/vmstat`; `None` where
/// there is none (before Linux 4.13).
pub fn machine_oom_kills() -> Option<u64> {
    vmstat_oom_kills(&std::fs::read_to_string("/proc/vmstat").ok()?)
}

/// The `oom_kill` count of a `/proc/vmstat` text.
fn vmstat_oom_kills(vmstat: &str) -> Option<u64> {
    vmstat.lines().find_map(|l| l.strip_prefix("oom_kill ")?.trim().parse().ok())
}

/// The memory a box's `/tmp` and `/dev/shm` may hold together (64 MiB each, see
/// `sandbox`): added to a process's own memory limit for its memory group, since tmpfs
/// pages are charged there.
pub const BOX_FILES_MEMORY: u64 = 128 << 20;

/// The environment variable that tells a worker the directory in which to make its
/// program bots' groups ([`ProcessCap::programs_dir`]); without it, a process makes
/// them under its own `pids` group.
pub const PROGRAMS_ENV: &str = "ARENA_PROGRAM_GROUPS";

impl ProcessCap {
    /// A new group capped at `max` tasks: in the directory [`PROGRAMS_ENV`] names (in a
    /// worker), or else under the host's own `pids` group.
    pub fn new(max: u32) -> Result<ProcessCap, String> {
        let dir = new_group(max)?;
        Ok(ProcessCap { procs: procs_of(&dir), own: dir.clone(), programs: None, dir, memory: None })
    }

    /// A worker's cap: the worker and everything it forks capped at `max` tasks, and
    /// beside that group an empty one ([`ProcessCap::programs_dir`]) for the groups of
    /// the program bots it will start, all of them under an outer cap of `max +
    /// programs` tasks that no process inside can change (it is not in the directory a
    /// sandboxed worker may write).
    pub fn with_programs(max: u32, programs: u32) -> Result<ProcessCap, String> {
        let dir = new_group(max.saturating_add(programs))?;
        let mut cap =
            ProcessCap { procs: std::ffi::CString::default(), own: dir.clone(), programs: None, dir, memory: None };
        // cgroup v2 passes a controller down only where the parent enables it.
        let _ = std::fs::write(cap.dir.join("cgroup.subtree_control"), "+pids");
        let (own, programs_dir) = (cap.dir.join("own"), cap.dir.join("programs"));
        for d in [&own, &programs_dir] {
            std::fs::create_dir(d).map_err(|e| format!("{}: {e}", d.display()))?;
        }
        std::fs::write(own.join("pids.max"), max.to_string())
            .map_err(|e| format!("{}: cannot set pids.max: {e}", own.display()))?;
        let _ = std::fs::write(programs_dir.join("cgroup.subtree_control"), "+pids");
        cap.procs = procs_of(&own);
        cap.own = own;
        cap.programs = Some(programs_dir);
        Ok(cap)
    }

    /// Caps the memory of everything in the cap at `bytes` (give a process's own limit
    /// plus [`BOX_FILES_MEMORY`] for a box): a memory control group under the host's own
    /// (cgroup v1), or the cap's own group's `memory.max` (cgroup v2, where the host's
    /// group passes the `memory` controller down). The child joins it before exec
    /// ([`ProcessCap::join_files`]). `Err` says why none could be made (no `memory`
    /// controller, not root, a read-only `/sys` in a box): the cap then goes on
    /// without, as before.
    pub fn cap_memory(&mut self, bytes: u64) -> Result<(), String> {
        let bytes = bytes.max(MIN_MEMORY);
        if !self.dir.starts_with(V1_PIDS) {
            // cgroup v2: one group holds every controller.
            if let Some(parent) = self.dir.parent() {
                let _ = std::fs::write(parent.join("cgroup.subtree_control"), "+memory");
            }
            std::fs::write(self.dir.join("memory.max"), bytes.to_string())
                .map_err(|e| format!("{}: cannot set memory.max: {e}", self.dir.display()))?;
            let _ = std::fs::write(self.dir.join("memory.swap.max"), "0");
            self.memory = Some(MemoryGroup { dir: self.dir.clone(), procs: None, limit: bytes });
            return Ok(());
        }
        static SWEEP: std::sync::Once = std::sync::Once::new();
        let base = memory_group_of("/proc/self/cgroup").ok_or("no memory control group to create one in")?;
        SWEEP.call_once(|| sweep_stale_groups(&base));
        let name = self.dir.file_name().ok_or("a process cap with no name")?;
        let dir = base.join(name);
        std::fs::create_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        if let Err(e) = std::fs::write(dir.join("memory.limit_in_bytes"), bytes.to_string()) {
            remove_group_tree(&dir);
            return Err(format!("{}: cannot set memory.limit_in_bytes: {e}", dir.display()));
        }
        // With swap accounting, swap counts too (there is none to write where it is off).
        let _ = std::fs::write(dir.join("memory.memsw.limit_in_bytes"), bytes.to_string());
        self.memory = Some(MemoryGroup { procs: Some(procs_of(&dir)), dir, limit: bytes });
        Ok(())
    }

    /// The memory limit of the cap's memory group, in bytes, if it has one.
    pub fn memory_limit(&self) -> Option<u64> {
        self.memory.as_ref().map(|m| m.limit)
    }

    /// The `cgroup.procs` files a child writes "0" to between fork and exec, in order:
    /// its `pids` group's, then (cgroup v1) its memory group's.
    pub(super) fn join_files(&self) -> Vec<std::ffi::CString> {
        std::iter::once(self.procs.clone()).chain(self.memory.as_ref().and_then(|m| m.procs.clone())).collect()
    }

    /// What the kernel's OOM killer did in the cap's memory group so far (read it after
    /// a process of the box died of SIGKILL, before the cap is dropped). The group is
    /// new for each box, so any kill there is this box's: [`OomKills::OverItsLimit`]
    /// when the group also reached its own limit (cgroup v1: a failed charge counted,
    /// or its highest use within 4 MiB of the limit; v2: an `oom` event), else [`OomKills::MachineShort`] (the kernel counts an OOM kill of
    /// the machine's, or of a group above, in the victim's group too). On cgroup v1
    /// a box that once reached its limit and was later killed by the machine's
    /// shortage is taken for one over its limit.
    pub fn oom_kills(&self) -> OomKills {
        let Some(m) = &self.memory else { return OomKills::None };
        let count = |file: &str, key: &str| -> u64 {
            let text = std::fs::read_to_string(m.dir.join(file)).unwrap_or_default();
            text.lines().filter_map(|l| l.strip_prefix(key)?.strip_prefix(' ')?.trim().parse().ok()).next().unwrap_or(0)
        };
        let (killed, reached) = if m.procs.is_some() {
            let number = |file: &str| -> u64 {
                std::fs::read_to_string(m.dir.join(file)).ok().and_then(|t| t.trim().parse().ok()).unwrap_or(0)
            };
            // The kernel counts a failed charge only in some counters (not where the
            // swap counter, of the same limit, failed first): the highest use seen
            // within a charge batch of the limit says so too (a group above that ran
            // out leaves it well below).
            let failed = number("memory.failcnt") + number("memory.memsw.failcnt");
            let peak = number("memory.max_usage_in_bytes").max(number("memory.memsw.max_usage_in_bytes"));
            (count("memory.oom_control", "oom_kill"), failed > 0 || peak.saturating_add(LIMIT_SLACK) >= m.limit)
        } else {
            (count("memory.events", "oom_kill"), count("memory.events", "oom") > 0)
        };
        match (killed, reached) {
            (0, _) => OomKills::None,
            (_, true) => OomKills::OverItsLimit,
            (_, false) => OomKills::MachineShort,
        }
    }

    /// The directory in which a worker makes its programs' groups (pass it to the worker
    /// as [`PROGRAMS_ENV`], and bind it writable in a worker's sandbox); only a cap made
    /// by [`ProcessCap::with_programs`] has one.
    pub fn programs_dir(&self) -> Option<&Path> {
        self.programs.as_deref()
    }

    /// The `tasks` file of the group the helper joins (cgroup v1 only): a sandboxed
    /// worker is given it writable, so that a thread it moved into its room for
    /// programs (see [`InRoom`]) can move back.
    pub fn own_tasks(&self) -> Option<PathBuf> {
        Some(self.own.join("tasks")).filter(|t| t.is_file())
    }

    /// Lets the box user `uid` do what a worker does with its cap from inside its box:
    /// make its programs' groups in the room and move a thread there and back (the
    /// room, its `tasks` and `cgroup.procs`, and the worker's own `tasks`, are given to
    /// `uid`). Nothing else of the cap is: the outer group's limit and membership stay
    /// the host's.
    pub fn delegate(&self, uid: u32) {
        let mut given: Vec<PathBuf> = self.own_tasks().into_iter().collect();
        if let Some(room) = &self.programs {
            given.extend([room.clone(), room.join("tasks"), room.join("cgroup.procs")]);
        }
        for path in given.iter().filter(|p| p.exists()) {
            let _ = std::os::unix::fs::chown(path, Some(uid), Some(uid));
        }
    }

    /// True when `pid` is in this group.
    pub fn holds(&self, pid: u32) -> bool {
        self.members().contains(&pid)
    }

    /// Makes sure the helper `pid` is in this group (moving it there if it did not get
    /// there itself); false if it cannot be, and the helper then runs without the cap.
    pub fn admit(&self, pid: u32) -> bool {
        if let Some(MemoryGroup { dir, procs: Some(_), .. }) = &self.memory
            && !members_of(dir).contains(&pid)
        {
            let _ = std::fs::write(dir.join("cgroup.procs"), pid.to_string());
        }
        self.holds(pid) || (std::fs::write(self.own.join("cgroup.procs"), pid.to_string()).is_ok() && self.holds(pid))
    }

    fn members(&self) -> Vec<u32> {
        members_of(&self.own)
    }
}

/// A new group capped at `max` tasks, named after this process (for the sweep), in
/// [`PROGRAMS_ENV`]'s directory or the host's own `pids` group.
fn new_group(max: u32) -> Result<PathBuf, String> {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    static SWEEP: std::sync::Once = std::sync::Once::new();
    let given = std::env::var_os(PROGRAMS_ENV).map(PathBuf::from).filter(|d| d.is_dir());
    let base = given.or_else(pids_group).ok_or("no pids control group to create one in")?;
    SWEEP.call_once(|| sweep_stale_groups(&base));
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = base.join(format!("arena-{}-{n}", std::process::id()));
    std::fs::create_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    if let Err(e) = std::fs::write(dir.join("pids.max"), max.to_string()) {
        remove_group_tree(&dir);
        return Err(format!("{}: cannot set pids.max: {e}", dir.display()));
    }
    Ok(dir)
}

fn procs_of(dir: &Path) -> std::ffi::CString {
    std::ffi::CString::new(dir.join("cgroup.procs").as_os_str().as_bytes()).unwrap_or_default()
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
            remove_group_tree(&entry.path());
        }
    }
}

impl Drop for ProcessCap {
    fn drop(&mut self) {
        remove_group_tree(&self.dir);
        if let Some(MemoryGroup { dir, procs: Some(_), .. }) = &self.memory {
            remove_group_tree(dir);
        }
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

/// Where cgroup v1 mounts its `pids` hierarchy (a cap elsewhere is cgroup v2's).
const V1_PIDS: &str = "/sys/fs/cgroup/pids";

/// How close to its limit a memory group's highest use must have come for the group to
/// count as having reached it (more than the kernel's charge batches).
const LIMIT_SLACK: u64 = 4 << 20;

/// The least memory limit a cap's memory group is given, whatever it is asked: below
/// it a box's processes could not even start.
const MIN_MEMORY: u64 = 16 << 20;

/// The directory of the host's own `memory` control group of cgroup v1 (named in
/// `file`), if it has one: the v1 hierarchy only (on v2 the memory controller is the
/// `pids` group's own, see [`ProcessCap::cap_memory`]).
fn memory_group_of(file: &str) -> Option<PathBuf> {
    let own = std::fs::read_to_string(file).ok()?;
    own.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        if !controllers.split(',').any(|c| c == "memory") {
            return None;
        }
        let dir = Path::new("/sys/fs/cgroup/memory").join(path.trim_start_matches('/'));
        dir.is_dir().then_some(dir)
    })
}

/// The directory of the host's own `pids` control group, if the controller is there:
/// cgroup v1's `pids` hierarchy, or cgroup v2 when it offers `pids`.
fn pids_group() -> Option<PathBuf> {
    pids_group_of("/proc/self/cgroup")
}

/// The calling thread, moved into a worker's room for programs ([`PROGRAMS_ENV`]) for as
/// long as this lives, and back into its own group when dropped.
///
/// A process is charged, as it is forked, to the group of the thread that forks it, and
/// joins its own cap's group only after. Forked from the worker's own group, a program
/// could not even start once the worker's native bots had filled that group's cap;
/// forked from the room, it is charged there, where only programs count. Works on
/// cgroup v1, whose threads may sit in different groups of one process; elsewhere
/// (cgroup v2) [`fork_in_room`] gives `None` and programs are forked from the worker's
/// own group.
pub(super) struct InRoom {
    /// The thread's own group's `tasks` file, opened before the move (so the way back
    /// is known to be open).
    back: std::fs::File,
    tid: String,
}

/// Moves the calling thread into the worker's room for programs, if it is in a worker
/// with one and cgroup v1 lets a thread move alone (see [`InRoom`]).
pub(super) fn fork_in_room() -> Option<InRoom> {
    let room = PathBuf::from(std::env::var_os(PROGRAMS_ENV)?);
    let back = pids_group_of("/proc/thread-self/cgroup")?.join("tasks");
    // SAFETY: gettid cannot fail.
    let tid = unsafe { libc::gettid() }.to_string();
    // Only where the thread can be moved back (a sandboxed worker may write its own
    // group's `tasks`, bound for this).
    let back = std::fs::OpenOptions::new().write(true).open(&back).ok()?;
    std::fs::write(room.join("tasks"), &tid).ok()?;
    Some(InRoom { back, tid })
}

impl Drop for InRoom {
    fn drop(&mut self) {
        // Moving in is not limited by the group's cap, so this cannot fail for a full one.
        use std::io::Write;
        let _ = self.back.write_all(self.tid.as_bytes());
    }
}

/// The `pids` control group named in `file` (`/proc/<self or thread-self>/cgroup`).
fn pids_group_of(file: &str) -> Option<PathBuf> {
    let own = std::fs::read_to_string(file).ok()?;
    for line in own.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let path = path.trim_start_matches('/');
        if controllers.split(',').any(|c| c == "pids") {
            let dir = Path::new(V1_PIDS).join(path);
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

#[cfg(test)]
mod tests {
    use super::{MachineOom, vmstat_oom_kills};
    use std::sync::atomic::{AtomicU64, Ordering};

    /// The machine's OOM kills as a test sets them.
    static FAKE_KILLS: AtomicU64 = AtomicU64::new(0);

    fn fake_kills() -> Option<u64> {
        Some(FAKE_KILLS.load(Ordering::SeqCst))
    }

    fn no_counter() -> Option<u64> {
        None
    }

    /// A death is put down to the machine's OOM killer when its count grew since the box
    /// started and no memory group of the box answers; not when the count stayed, nor
    /// on a kernel without the counter.
    #[test]
    fn a_death_is_not_believed_when_the_machines_oom_kills_grew_and_no_memory_group_answers() {
        FAKE_KILLS.store(5, Ordering::SeqCst);
        let watch = MachineOom::watch_with(fake_kills, false);
        assert!(!watch.killed_since());
        assert!(!watch.unaccounted(None));
        FAKE_KILLS.store(6, Ordering::SeqCst);
        assert!(watch.killed_since());
        assert!(watch.unaccounted(None));
        // A box that started after that kill: nothing since.
        assert!(!MachineOom::watch_with(fake_kills, false).unaccounted(None));
        // No counter (a kernel before 4.13): as before, nothing is concluded.
        assert!(!MachineOom::watch_with(no_counter, false).unaccounted(None));
        // A box with a memory group of its own: the count is never read.
        let grouped = MachineOom::watch_with(counted_kills, true);
        FAKE_KILLS.store(7, Ordering::SeqCst);
        assert!(!grouped.killed_since());
        assert_eq!(READS.load(Ordering::SeqCst), 0, "the count was read for a box with a memory group");
    }

    /// Reads of [`counted_kills`].
    static READS: AtomicU64 = AtomicU64::new(0);

    fn counted_kills() -> Option<u64> {
        READS.fetch_add(1, Ordering::SeqCst);
        fake_kills()
    }

    /// `oom_kill` read from a `/proc/vmstat` text (not `oom_kill_` of another line), and
    /// none where the text has no such line; this kernel's has one.
    #[test]
    fn the_machines_oom_kills_are_read_from_vmstat() {
        assert_eq!(vmstat_oom_kills("pgfault 12\noom_kill 3\nnr_foo 1\n"), Some(3));
        assert_eq!(vmstat_oom_kills("oom_kill_other 9\noom_kill 0\n"), Some(0));
        assert_eq!(vmstat_oom_kills("pgfault 12\n"), None);
        if std::env::var_os("CI").is_some() {
            assert!(super::machine_oom_kills().is_some(), "this kernel has no oom_kill in /proc/vmstat");
        }
    }
}
