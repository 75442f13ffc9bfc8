//! Program bots: an executable file in a bot directory (a binary, or a script with a
//! shebang line and the run bit) is an entry that speaks its game's text protocol
//! over standard input and output. This module finds them and describes them; the
//! process itself (limits, pipes, deadlines) is `crate::process`, and each game's
//! protocol is the game's own (`games/<game>/program.rs`).
//!
//! A program's randomness is its own: games with program bots are reproducible from
//! their seed only as far as the programs are deterministic.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::ScriptLimits;
use super::scripts::EntryLog;
use crate::bot::{Entry, EntryKind};
use crate::game::Game;

/// A program bot as loaded: how to start it and under which limits.
#[derive(Debug, Clone)]
pub struct Program {
    /// The entry's name (the file name without its extension).
    pub name: String,
    /// The executable file.
    pub path: PathBuf,
    /// The command line that starts it.
    pub command: Vec<OsString>,
    /// One process for the whole game (else one per call, as the seed protocols say).
    pub persistent: bool,
    /// The limits of its calls (`call_timeout` is the per-call limit).
    pub limits: ScriptLimits,
    /// Where its standard error goes.
    pub log: Arc<EntryLog>,
}

impl Program {
    /// The file name used in messages.
    pub fn file_name(&self) -> String {
        self.path.file_name().map_or_else(|| self.path.display().to_string(), |f| f.to_string_lossy().into_owned())
    }
}

/// True for an executable regular file that is not a library or a script.
pub fn is_program(path: &Path) -> bool {
    if super::native::is_library_name(path) || super::scripts::is_script_name(path) {
        return false;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.extension().is_some_and(|e| e == "exe")
    }
}

/// Loads a program as an entry of game `G`.
pub fn load<G: Game>(path: &Path, limits: &ScriptLimits, persistent: bool) -> Result<Entry<G>, String> {
    let name = path.file_stem().and_then(|s| s.to_str()).ok_or("the file name is not UTF-8")?.to_owned();
    let path = std::path::absolute(path).map_err(|e| format!("cannot resolve the path: {e}"))?;
    let log = Arc::new(EntryLog::new(limits.log_dir.as_deref(), &name, limits.log_append));
    let program = Program {
        name: name.clone(),
        command: vec![path.clone().into()],
        path: path.clone(),
        persistent,
        limits: limits.clone(),
        log,
    };
    Ok(Entry::new(name, EntryKind::Program, path, G::program_bots(program)?))
}
