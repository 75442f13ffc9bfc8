//! The reaper of a worker that is its box's process 1 (`sandbox::HelperBox::First`): the
//! kernel gives process 1 every process of its box whose parent ended (to its main
//! thread), and each stays a zombie until process 1 reaps it, counted against its uid's
//! processes and its box's process cap. (Under bwrap's own init, bwrap reaped them.)
//!
//! **Architecture Invariant:** the reaper never reaps a program that `spawn` started: it
//! keeps the pids `spawn` has started and not yet reaped ([`spawning`], [`reaped`]), and
//! looks for zombies while holding them, so a program that ends before `spawn` has
//! noted it is not taken from `spawn`'s own wait. Nor a child of a bot's own thread
//! while that thread lives; one a bot forks from the worker's main thread (where its
//! calls run), or from a thread that has ended, and leaves a zombie for a whole look
//! ([`EVERY`]) is taken for an orphan: a bot that waits for its child later than that
//! finds it gone (`ECHILD`).
//!
//! Not here: waiting for the programs `spawn` starts (`spawn::end_group_timed`), or
//! anything of a process that is not its box's process 1 (there the reaper never runs).

use std::io;
use std::process::Child;
use std::sync::Mutex;
use std::time::Duration;

/// The pids of the children `spawn` started and has not yet reaped.
static SPAWNED: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// Runs `start` (a spawn of a child that `spawn` will reap itself) and notes the child's
/// pid, both while holding the reaper's list: the reaper cannot take that child meanwhile.
pub(super) fn spawning(start: impl FnOnce() -> io::Result<Child>) -> io::Result<Child> {
    let mut spawned = SPAWNED.lock().unwrap_or_else(|p| p.into_inner());
    let child = start()?;
    spawned.push(child.id());
    Ok(child)
}

/// `pid` (a child [`spawning`] noted) has been reaped by `spawn`.
pub(super) fn reaped(pid: u32) {
    SPAWNED.lock().unwrap_or_else(|p| p.into_inner()).retain(|&p| p != pid);
}

/// How often the reaper looks. A zombie is reaped at its second look, so that a bot
/// that forks a child from the main thread and waits for it (`system`, `pclose`) reaps
/// it itself.
const EVERY: Duration = Duration::from_secs(1);

/// In a process that is its box's process 1, starts the reaper: a thread that every
/// [`EVERY`] reaps each zombie child of the main thread, not started by `spawn`, that was
/// one at its last look too. Elsewhere it does nothing.
pub fn reap_orphans_as_init() {
    if std::process::id() != 1 {
        return;
    }
    let started = std::thread::Builder::new().name("reaper".to_owned()).spawn(|| {
        let mut seen = Vec::new();
        loop {
            std::thread::sleep(EVERY);
            let children = std::fs::read_to_string("/proc/self/task/1/children").unwrap_or_default();
            let children: Vec<u32> = children.split_ascii_whitespace().filter_map(|p| p.parse().ok()).collect();
            seen = reap_orphans(&children, &seen);
        }
    });
    // Without the thread (no memory for it), orphans stay zombies until the box ends.
    drop(started);
}

/// Whether process `pid` is a zombie now.
fn zombie(pid: u32) -> bool {
    super::spawn::state_of(pid) == Some(b'Z')
}

/// Reaps those of `children` that `spawn` did not start and that are zombies now and
/// were at the last look (`seen`); returns the zombies seen now for the next look.
fn reap_orphans(children: &[u32], seen: &[u32]) -> Vec<u32> {
    let spawned = SPAWNED.lock().unwrap_or_else(|p| p.into_inner());
    let mut now = Vec::new();
    for &pid in children.iter().filter(|p| !spawned.contains(p)) {
        if !zombie(pid) {
            continue;
        }
        if seen.contains(&pid) {
            // SAFETY: waitpid on our own child, ended, with WNOHANG: it never blocks.
            unsafe {
                libc::waitpid(pid as libc::pid_t, std::ptr::null_mut(), libc::WNOHANG);
            }
        } else {
            now.push(pid);
        }
    }
    now
}

#[cfg(test)]
mod tests {
    use std::process::Command;

    /// A zombie child not started by `spawn` is reaped at its second look; one that
    /// `spawning` noted is left to its own wait.
    #[test]
    fn orphans_are_reaped_at_their_second_look_and_spawned_children_are_left_to_their_wait() {
        let mut noted = super::spawning(|| Command::new("true").spawn()).unwrap();
        let mut other = Command::new("true").spawn().unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while !(super::zombie(noted.id()) && super::zombie(other.id())) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let children = [noted.id(), other.id()];
        // Only these two: the other tests' children are not this test's to reap.
        let seen = super::reap_orphans(&children, &[]);
        assert_eq!(seen, [other.id()]);
        assert!(super::zombie(other.id()), "reaped at its first look");
        let seen = super::reap_orphans(&children, &seen);
        assert!(seen.is_empty() && !super::zombie(other.id()), "not reaped at its second look");
        assert!(super::zombie(noted.id()), "the noted child was reaped");
        assert!(noted.wait().unwrap().success());
        super::reaped(noted.id());
        // Reaped already: its own wait says so.
        assert!(other.wait().is_err());
    }
}
