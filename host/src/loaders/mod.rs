//! Finding and loading entries: native libraries from the plugin directories, scripts
//! from the script directories.
//!
//! Each loader turns one file into an [`Entry`] or into a one-line reason it was
//! skipped; [`discover`] walks the directories, checks the names and never fails as a
//! whole. This module knows how bots are loaded, not how the game is played.
//!
//! **Architecture Invariant:** a bad file costs only itself: it becomes one [`Skipped`]
//! line (file and reason) and every other entry still plays.

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::bot::Entry;

pub mod native;
pub mod scripts;

pub use scripts::ScriptLimits;

/// Names no entry may take: the names of zombies' and dead bodies' ids.
pub const RESERVED_NAMES: [&str; 2] = ["Zombie", "DeadBody"];

/// A file (or directory) that gave no entry, and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Skipped {
    /// The file.
    pub path: PathBuf,
    /// Why, in one line.
    pub reason: String,
}

impl fmt::Display for Skipped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.reason)
    }
}

/// The entries found, in discovery order, and the files skipped.
#[derive(Debug, Default)]
pub struct Discovery {
    /// Entries that will play.
    pub entries: Vec<Entry>,
    /// Files that will not, each with its reason.
    pub skipped: Vec<Skipped>,
}

/// Where to look for entries.
#[derive(Debug, Clone, Default)]
pub struct SearchPaths {
    /// Directories of native libraries.
    pub plugins: Vec<PathBuf>,
    /// Directories of Rhai and Lua scripts.
    pub scripts: Vec<PathBuf>,
}

/// Loads every entry in `paths`. Directories are read in sorted file-name order, plugin
/// directories first, so the entry order (and thus every game) is reproducible.
pub fn discover(paths: &SearchPaths, limits: &ScriptLimits) -> Discovery {
    discover_with(paths, limits, &native::load)
}

/// [`discover`] with another loader for native libraries (isolation probes them in a
/// child process instead of loading them here).
pub fn discover_with(
    paths: &SearchPaths,
    limits: &ScriptLimits,
    load_native: &dyn Fn(&Path) -> Result<Entry, String>,
) -> Discovery {
    let mut found = Discovery::default();
    let mut candidates: Vec<(PathBuf, Result<Entry, String>)> = Vec::new();
    for dir in &paths.plugins {
        for path in files_in(dir, &mut found.skipped) {
            if native::is_library_name(&path) {
                let result = load_native(&path);
                candidates.push((path, result));
            }
        }
    }
    for dir in &paths.scripts {
        for path in files_in(dir, &mut found.skipped) {
            if let Some(result) = scripts::load(&path, limits) {
                candidates.push((path, result));
            }
        }
    }
    let mut names = HashSet::new();
    for (path, result) in candidates {
        match result.and_then(|entry| check_name(&entry.name, &names).map(|()| entry)) {
            Ok(entry) => {
                names.insert(entry.name.clone());
                found.entries.push(entry);
            }
            Err(reason) => found.skipped.push(Skipped { path, reason }),
        }
    }
    found
}

/// Checks an entry name against the rules: non-empty, not reserved, not taken.
pub fn check_name(name: &str, taken: &HashSet<String>) -> Result<(), String> {
    if name.trim().is_empty() {
        Err("the entry's name is empty".to_owned())
    } else if RESERVED_NAMES.contains(&name) {
        Err(format!("the entry's name {name:?} is reserved"))
    } else if taken.contains(name) {
        Err(format!("an entry named {name:?} was already loaded"))
    } else {
        Ok(())
    }
}

/// The files of `dir`, sorted by name; a missing or unreadable directory is reported.
fn files_in(dir: &Path, skipped: &mut Vec<Skipped>) -> Vec<PathBuf> {
    match std::fs::read_dir(dir) {
        Ok(rd) => {
            let mut files: Vec<PathBuf> = rd.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.is_file()).collect();
            files.sort();
            files
        }
        Err(e) => {
            skipped.push(Skipped { path: dir.to_owned(), reason: format!("cannot read the directory: {e}") });
            Vec::new()
        }
    }
}
