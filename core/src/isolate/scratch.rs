//! A helper's box on disk: scratch file names, the uid a box runs as, the directory that
//! is all a box may write, and a file a box wrote read back safely (at most so many
//! bytes, never through a link).
//!
//! It starts no process and reads nothing a worker says.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static SCRATCH: AtomicU64 = AtomicU64::new(0);

pub(super) fn scratch_file(dir: &Path, what: &str) -> PathBuf {
    dir.join(format!("{what}-{}-{}", std::process::id(), SCRATCH.fetch_add(1, Ordering::Relaxed)))
}

/// The uid a helper's box runs as (see [`crate::process::Sandbox::user`]).
pub(super) fn box_user(sandbox: &crate::process::Sandbox) -> Result<Option<crate::process::BoxUser>, String> {
    sandbox.user().map_err(|e| format!("cannot give a box a uid: {e}"))
}

/// A new directory of `scratch` for one helper's box (the only place it may write),
/// given to its box user.
pub(super) fn make_home(scratch: &Path, what: &str, uid: Option<u32>) -> Result<PathBuf, String> {
    let home = scratch_file(scratch, what);
    std::fs::create_dir_all(&home).map_err(|e| format!("cannot create {}: {e}", home.display()))?;
    if let Some(uid) = uid {
        std::os::unix::fs::chown(&home, Some(uid), Some(uid))
            .map_err(|e| format!("cannot give {} to its box: {e}", home.display()))?;
    }
    Ok(home)
}

/// The bytes of a worker's scratch file (at most [`MAX_SCRATCH_FILE`], never through a
/// link: the box may have put anything there), which is removed.
pub(super) fn take_file(path: Option<&Path>) -> Option<Vec<u8>> {
    let path = path?;
    let bytes = crate::process::open_box_file(path, false).and_then(|f| {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::Read::take(f, MAX_SCRATCH_FILE), &mut bytes).ok().map(|_| bytes)
    });
    let _ = std::fs::remove_file(path);
    bytes
}

/// The most the host reads of a file a worker wrote (a replay).
const MAX_SCRATCH_FILE: u64 = 1 << 30;
