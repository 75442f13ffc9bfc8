//! Box users: the uid each box runs as when the host is root, leased from a reserved
//! range so that no two boxes alive on the machine share one, whichever host (of this
//! run or another) started them.
//!
//! The range is [`FIRST`] .. [`FIRST`] + [`COUNT`] (1879048192 to 1879113727, that is
//! `0x7000_0000` and the 65,536 uids after it): far above any real user's (Debian's
//! `adduser` stops at 59999, systemd's dynamic users and container sub-uid ranges sit
//! below 2^31 too but start at 61184 and 100000, and are allocated in blocks we skip if
//! `/etc/passwd` names them). A uid is leased by holding an exclusive `flock` on
//! `/run/arena-boxes/<uid>` (or the same under the temporary directory when `/run` is
//! not writable) for as long as its box lives; a host that dies releases its leases with
//! its descriptors, and its boxes die with it (their pid namespaces and control groups).
//!
//! Not here: what a box is (`sandbox`), switching to the uid (`rlimits`, `spawn`). A host
//! that is not root leases nothing: its boxes are user namespaces of its own uid.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

/// The first uid of the boxes' range.
pub const FIRST: u32 = 0x7000_0000;
/// How many uids the range has.
pub const COUNT: u32 = 1 << 16;

/// A uid (and the gid of the same number) held for one box; released when dropped.
#[derive(Debug)]
pub struct BoxUser {
    /// The uid, also used as the gid.
    pub uid: u32,
    /// The locked lease file (the lock goes with the descriptor).
    _lease: File,
}

/// The directory of lease files (made on first use, readable by root only).
fn lease_dir() -> Option<&'static PathBuf> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        for base in [PathBuf::from("/run"), std::env::temp_dir()] {
            let dir = base.join("arena-boxes");
            if std::fs::create_dir_all(&dir).is_ok() {
                use std::os::unix::fs::PermissionsExt;
                let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
                return Some(dir);
            }
        }
        None
    })
    .as_ref()
}

/// The uids `/etc/passwd` names in the range (never leased).
fn taken_by_users() -> &'static [u32] {
    static TAKEN: OnceLock<Vec<u32>> = OnceLock::new();
    TAKEN.get_or_init(|| {
        let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
        passwd
            .lines()
            .filter_map(|l| l.split(':').nth(2)?.parse::<u32>().ok())
            .filter(|u| (FIRST..FIRST + COUNT).contains(u))
            .collect()
    })
}

impl BoxUser {
    /// The uid of a new box: a lease of its own when the host is root, `None` otherwise
    /// (the box is then a user namespace of the host's uid).
    pub fn for_box() -> Result<Option<BoxUser>, String> {
        // SAFETY: geteuid cannot fail.
        if unsafe { libc::geteuid() } == 0 { BoxUser::lease().map(Some) } else { Ok(None) }
    }

    /// Leases a free uid of the range. `Err` says why none could be had (the host is not
    /// root, no directory for the leases, or every uid is in use).
    pub fn lease() -> Result<BoxUser, String> {
        // SAFETY: geteuid cannot fail.
        if unsafe { libc::geteuid() } != 0 {
            return Err("only a host running as root gives its boxes uids of their own".to_owned());
        }
        let dir = lease_dir().ok_or("no directory for the boxes' uid leases (/run and the temporary directory)")?;
        // Each lease of this process starts one further, offset by the process id, so
        // that concurrent hosts rarely try the same uids first.
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let start = NEXT.fetch_add(1, Ordering::Relaxed).wrapping_add(std::process::id().wrapping_mul(2_654_435_761));
        for k in 0..COUNT {
            let uid = FIRST + start.wrapping_add(k) % COUNT;
            if taken_by_users().contains(&uid) {
                continue;
            }
            let Ok(file) = File::options().create(true).truncate(false).write(true).open(dir.join(uid.to_string()))
            else {
                continue;
            };
            // SAFETY: flock on a descriptor we own; non-blocking.
            if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
                return Ok(BoxUser { uid, _lease: file });
            }
        }
        Err(format!("every box uid ({FIRST}..{}) is in use", FIRST + COUNT))
    }
}

/// Opens a file a box may have written (in its own directory), for the host to read (and
/// with `write`, to empty): never through a symbolic link (a box could point one at any
/// file of the host's), and only a regular file (not a FIFO the read would block on, or a
/// device). `None` when there is no such file.
pub fn open_box_file(path: &std::path::Path, write: bool) -> Option<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file =
        File::options().read(true).write(write).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK).open(path).ok()?;
    file.metadata().ok()?.is_file().then_some(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_leases_held_at_once_are_two_uids_of_the_range() {
        let (Ok(a), Ok(b)) = (BoxUser::lease(), BoxUser::lease()) else {
            // Not root: nothing to lease (the boxes are user namespaces then).
            // SAFETY: geteuid cannot fail.
            assert_ne!(unsafe { libc::geteuid() }, 0, "root must be able to lease box uids");
            return crate::process::skip("skipped: leasing box uids needs root");
        };
        assert_ne!(a.uid, b.uid);
        for u in [a.uid, b.uid] {
            assert!((FIRST..FIRST + COUNT).contains(&u));
        }
        // A released uid can be leased again.
        let uid = a.uid;
        drop(a);
        let dir = lease_dir().unwrap();
        let again = File::options().write(true).open(dir.join(uid.to_string())).unwrap();
        // SAFETY: flock on a descriptor we own.
        assert_eq!(unsafe { libc::flock(again.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) }, 0);
    }
}
