//! Finding and loading the entries of one game: native libraries from the plugin
//! directories; scripts and programs from the bot directories.
//!
//! Each loader turns one file into an [`Entry`] or into a one-line reason it was
//! skipped; [`discover`] walks the directories, checks the names and never fails as a
//! whole. This module knows how bots are loaded, not how any game is played: each
//! game makes its own bots from what is loaded ([`NativeBots`], [`ScriptBots`],
//! [`ProgramBots`]: the loaders' part of the game contract, which each game implements).
//!
//! Which game a file plays: a library says so itself; a script or program says so in
//! an `arena: <game>` line among its first five lines (a comment in any language), or
//! by living in a directory named after its game (`scripts/eggs/hunter.py`). A bot
//! directory is searched, and so is its subdirectory named after the game being
//! played. A file without either plays zombies, the arena's first game. A file of
//! another game is skipped with one line ("plays eggs; this is a zombies tournament"),
//! so a bot is never loaded into a game it was not written for.
//!
//! **Architecture Invariant:** a bad file costs only itself: it becomes one [`Skipped`]
//! line (file and reason) and every other entry still plays.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::bot::{Entry, Plays};
use crate::rules::Rules;

pub mod log;
pub mod native;
pub mod program;
pub mod scripts;

pub use native::NativeBots;
pub use program::ProgramBots;
pub use scripts::{ScriptBots, ScriptLimits};

/// A file (or directory) that gave no entry, and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Skipped {
    /// The file.
    pub path: PathBuf,
    /// Why, in one line.
    pub reason: String,
}

impl Skipped {
    /// The game the file plays, when that is why it was skipped (a bot of another game:
    /// a tournament says how many in one line instead of one line each).
    pub fn other_game(&self) -> Option<&str> {
        let game = self.reason.strip_prefix("plays ")?.split_once("; this is ")?.0;
        zombies_plugin_abi::GAMES.contains(&game).then_some(game)
    }
}

impl fmt::Display for Skipped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.reason)
    }
}

/// The entries found, in discovery order, and the files skipped.
#[derive(Debug)]
pub struct Discovery<G: Plays> {
    /// Entries that will play.
    pub entries: Vec<Entry<G>>,
    /// Files that will not, each with its reason.
    pub skipped: Vec<Skipped>,
}

impl<G: Plays> Default for Discovery<G> {
    fn default() -> Self {
        Discovery { entries: Vec::new(), skipped: Vec::new() }
    }
}

/// Where to look for entries.
#[derive(Debug, Clone, Default)]
pub struct SearchPaths {
    /// Directories of native libraries.
    pub plugins: Vec<PathBuf>,
    /// Directories of script and program bots (each also through its subdirectory
    /// named after the game).
    pub scripts: Vec<PathBuf>,
}

/// Loads every entry of game `G` in `paths`. Directories are read in sorted file-name
/// order, plugin directories first, so the entry order (and thus every game) is
/// reproducible.
pub fn discover<G: Rules + NativeBots + ScriptBots + ProgramBots>(
    paths: &SearchPaths,
    limits: &ScriptLimits,
) -> Discovery<G> {
    discover_with(paths, limits, &|path| native::load::<G>(path, limits))
}

/// [`discover`] with another loader for native libraries (isolation probes them in a
/// child process instead of loading them here).
pub fn discover_with<G: Rules + ScriptBots + ProgramBots>(
    paths: &SearchPaths,
    limits: &ScriptLimits,
    load_native: &dyn Fn(&Path) -> Result<Entry<G>, String>,
) -> Discovery<G> {
    let mut found = Discovery::default();
    let mut candidates: Vec<(PathBuf, Result<Entry<G>, String>)> = Vec::new();
    for dir in &paths.plugins {
        for path in files_in(dir, &mut found.skipped) {
            if native::is_library_name(&path) {
                let result = load_native(&path);
                candidates.push((path, result));
            }
        }
    }
    for dir in &paths.scripts {
        let mut files = files_in(dir, &mut found.skipped);
        let own = dir.join(G::NAME);
        if dir.is_dir() && own.is_dir() {
            files.extend(files_in(&own, &mut found.skipped));
        }
        for path in files {
            let is_script = scripts::is_script_name(&path);
            let is_program = !is_script && program::is_program(&path);
            // A script with a `#!` line but no run bit is a program bot its author
            // forgot to `chmod +x`: skipped with that reason, not silently passed over.
            let no_run_bit = !is_script && !is_program && program::is_unexecutable_program(&path);
            if !is_script && !is_program && !no_run_bit {
                continue;
            }
            let declared = match declared_game(&path) {
                Ok(game) => game,
                Err(reason) => {
                    candidates.push((path, Err(reason)));
                    continue;
                }
            };
            if let Err(reason) = native::check_game::<G>(&declared.game) {
                candidates.push((path, Err(reason)));
                continue;
            }
            if no_run_bit {
                let reason = format!(
                    "a program (it starts with #!) without the run bit: `chmod +x {}` to play it",
                    path.display()
                );
                candidates.push((path, Err(reason)));
                continue;
            }
            let result = if is_script {
                scripts::load::<G>(&path, limits).unwrap_or_else(|| Err("not a bot file".to_owned()))
            } else {
                program::load::<G>(&path, limits, declared.persistent, declared.protocol)
            };
            candidates.push((path, result));
        }
    }
    let mut names = HashMap::new();
    for (path, result) in candidates {
        match result.and_then(|entry| check_name::<G>(&entry.name, &names).map(|()| entry)) {
            Ok(entry) => {
                names.insert(entry.name.clone(), path);
                found.entries.push(entry);
            }
            Err(reason) => found.skipped.push(Skipped { path, reason }),
        }
    }
    found
}

/// What a script or program file says of itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declaration {
    /// The game it plays.
    pub game: String,
    /// Whether a program keeps running for the whole game (`arena: eggs persistent`).
    pub persistent: bool,
    /// The version of its game's program protocol a program speaks (`arena: eggs
    /// protocol 1`), when it says; its game accepts it or refuses the program.
    pub protocol: Option<u32>,
}

/// The game a script or program plays: its `arena: <game> [persistent] [protocol <n>]`
/// line among the first five, else the name of its directory if that is a game, else
/// zombies.
pub fn declared_game(path: &Path) -> Result<Declaration, String> {
    use std::io::Read;
    let mut head = Vec::with_capacity(1024);
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read the file: {e}"))?;
    file.take(1024).read_to_end(&mut head).map_err(|e| format!("cannot read the file: {e}"))?;
    let text = String::from_utf8_lossy(&head);
    for line in text.lines().take(5) {
        let Some(at) = line.find("arena:") else { continue };
        let mut words =
            line[at + "arena:".len()..].split(|c: char| c.is_whitespace() || c == ',').filter(|w| !w.is_empty());
        let game = words.next().unwrap_or("").to_owned();
        if !zombies_plugin_abi::GAMES.contains(&game.as_str()) {
            return Err(format!(
                "its `arena:` line names the game {game:?}, which this host does not know (it plays {})",
                zombies_plugin_abi::GAMES.join(", ")
            ));
        }
        let (mut persistent, mut protocol) = (false, None);
        while let Some(word) = words.next() {
            match word {
                "persistent" => persistent = true,
                "protocol" => {
                    let version = words.next().unwrap_or("");
                    protocol = Some(version.parse().map_err(|_| {
                        format!("its `arena:` line asks for protocol {version:?}: a protocol version is a number")
                    })?);
                }
                _ => {}
            }
        }
        return Ok(Declaration { game, persistent, protocol });
    }
    let dir = path.parent().and_then(|p| p.file_name()).and_then(|n| n.to_str()).unwrap_or("");
    let game = if zombies_plugin_abi::GAMES.contains(&dir) { dir } else { zombies_plugin_abi::FIRST_GAME };
    Ok(Declaration { game: game.to_owned(), persistent: false, protocol: None })
}

/// Checks an entry name against the rules: non-empty, not reserved, not taken (`taken`:
/// each name loaded so far, with its file).
pub fn check_name<G: Rules>(name: &str, taken: &HashMap<String, PathBuf>) -> Result<(), String> {
    if name.trim().is_empty() {
        Err("the entry's name is empty".to_owned())
    } else if G::reserved_names().contains(&name) {
        Err(format!("the entry's name {name:?} is reserved"))
    } else if let Some(first) = taken.get(name) {
        Err(format!("an entry named {name:?} was already loaded, from {}", first.display()))
    } else {
        Ok(())
    }
}

/// The files of `dir` (or `dir` itself, a file), sorted by name; a missing or unreadable directory is reported.
fn files_in(dir: &Path, skipped: &mut Vec<Skipped>) -> Vec<PathBuf> {
    // A bot may be named by its file as well as by its directory.
    if dir.is_file() {
        return vec![dir.to_owned()];
    }
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
