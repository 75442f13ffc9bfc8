//! Entries' logs: `<log dir>/<entry>.log`, where whatever a bot writes goes (a
//! script's `print`, a program's stderr, a native bot's `log` through the ABI's
//! logger). Each game's output is one block after a `--- game seed S ---` marker, so
//! games played in parallel never interleave inside a log.
//!
//! This module writes logs; it does not decide where they are (`--logs`), and it never
//! fails a bot: an unwritable log drops the output.
//!
//! In a game worker (`crate::isolate`), the lines of the game being played are also
//! written, as they come, to a *pending* file per entry in the worker's scratch
//! directory (`ARENA_LOG_PENDING`), emptied when the game's block reaches the log: when
//! the host ends a worker in a game, it appends what is pending to the logs
//! ([`recover_pending`]), so the lines of a stopped play are kept.
//!
//! **Architecture Invariant:** a log file grows to at most about [`EntryLog::CAP`]
//! bytes, whatever number of processes write it (the host, workers, their
//! replacements), and a game's block holds at most 1 MiB of a script's or a native
//! bot's lines ([`NATIVE_GAME_CAP`]), buffered on the thread that plays the game.

use std::cell::{Cell, RefCell};
use std::ffi::c_void;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use zombies_plugin_abi::Logger;

thread_local! {
    /// The seed of the game this thread is playing, for the log markers.
    static GAME_SEED: Cell<Option<u64>> = const { Cell::new(None) };
    /// True between [`set_log_game`] and [`end_log_game`].
    static IN_GAME: Cell<bool> = const { Cell::new(false) };
    /// Native bots' lines of the game this thread plays, by log.
    static NATIVE_LINES: RefCell<Vec<(&'static EntryLog, String)>> = const { RefCell::new(Vec::new()) };
}

/// Native output kept per entry and game before it goes to the log (as for scripts).
pub const NATIVE_GAME_CAP: usize = 1 << 20;

/// Longest line a native bot may write in one call; the rest is cut.
const NATIVE_LINE_CAP: usize = 64 << 10;

/// Names the game this thread plays from now on (its seed): each game's output in an
/// entry's log starts with a `--- game seed S ---` line. Native lines of a previous
/// game not yet ended go out first, under that game's marker.
pub fn set_log_game(seed: u64) {
    flush_native();
    GAME_SEED.with(|g| g.set(Some(seed)));
    IN_GAME.with(|g| g.set(true));
}

/// Ends the game this thread plays: native bots' lines of it go to their logs.
pub fn end_log_game() {
    flush_native();
    IN_GAME.with(|g| g.set(false));
}

/// The seed of the game this thread plays (between [`set_log_game`] and
/// [`end_log_game`]): program bots get it as `ARENA_SEED`.
pub fn current_game_seed() -> Option<u64> {
    if IN_GAME.with(Cell::get) { GAME_SEED.with(Cell::get) } else { None }
}

/// The marker line of the game this thread plays.
pub fn game_marker() -> String {
    match GAME_SEED.with(Cell::get) {
        Some(seed) => format!("--- game seed {seed} ---\n"),
        None => "--- game ---\n".to_owned(),
    }
}

fn flush_native() {
    let lines = NATIVE_LINES.try_with(|l| std::mem::take(&mut *l.borrow_mut())).unwrap_or_default();
    for (log, text) in lines {
        log.append_game(&text);
    }
}

/// The logger handed to a native library: its lines go to `log`. The log lives as long
/// as the process (libraries are never unloaded, so neither is what they hold).
pub fn native_logger(log: Arc<EntryLog>) -> Logger {
    Logger { write: write_native, data: Arc::into_raw(log).cast() }
}

/// A native bot's line: buffered with its game's other lines when written on a thread
/// playing a game, else appended at once (a bot's own thread, or its load).
extern "C" fn write_native(data: *const c_void, text: *const u8, len: usize) {
    if data.is_null() || text.is_null() {
        return;
    }
    // SAFETY: `data` is what `native_logger` made, never freed; the library promises
    // `len` readable bytes at `text` (a lie crashes the bot's own process at worst,
    // which isolation contains).
    let (log, bytes) =
        unsafe { (&*data.cast::<EntryLog>(), std::slice::from_raw_parts(text, len.min(NATIVE_LINE_CAP))) };
    let mut line = String::from_utf8_lossy(bytes).trim_end_matches(['\n', '\r']).to_owned();
    line.push('\n');
    // A panic must not unwind into the library.
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if IN_GAME.with(Cell::get) {
            NATIVE_LINES.with(|l| buffer(&mut l.borrow_mut(), log, &line));
        } else {
            log.append(&line);
        }
    }));
}

fn buffer(lines: &mut Vec<(&'static EntryLog, String)>, log: &'static EntryLog, line: &str) {
    let i = match lines.iter().position(|(l, _)| std::ptr::eq(*l, log)) {
        Some(i) => i,
        None => {
            lines.push((log, String::new()));
            lines.len() - 1
        }
    };
    let text = &mut lines[i].1;
    const CUT: &str = "[output cut: more than 1 MiB this game]\n";
    if text.ends_with(CUT) {
        return;
    }
    let kept = if text.len() + line.len() <= NATIVE_GAME_CAP { line } else { CUT };
    text.push_str(kept);
    log.pending_line(kept);
}

/// The environment variable that names a worker's directory of pending game output.
pub const PENDING_ENV: &str = "ARENA_LOG_PENDING";

/// This process's directory of pending game output (a worker's), if any.
fn pending_dir() -> Option<&'static Path> {
    static DIR: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    DIR.get_or_init(|| std::env::var_os(PENDING_ENV).filter(|d| !d.is_empty()).map(PathBuf::from)).as_deref()
}

/// Appends the output pending in a worker's `pending` directory (the lines of games it
/// was playing when it was ended) to the logs in `logs` of the entries `names`, each
/// block followed by a line saying the play was stopped; then removes the directory.
/// A file named for another entry is ignored: a bot in that worker could have written it.
pub fn recover_pending(pending: &Path, logs: Option<&Path>, names: &[String]) {
    for (name, text) in logs_in(pending, names) {
        let log = EntryLog::new(logs, &name, true);
        log.append(&text);
        log.append("[this play was stopped here: its worker was ended (the game was played again, or the entry is out of it)]\n");
    }
    let _ = std::fs::remove_dir_all(pending);
}

/// Moves what a boxed worker wrote to the logs in its box (`from`, its `--logs`) to the
/// logs in `logs` of the entries `names` (appended, under the file's cap), and empties
/// the box's files. A file named for another entry is ignored.
pub fn collect_box_logs(from: &Path, logs: Option<&Path>, names: &[String]) {
    for (name, text) in logs_in(from, names) {
        EntryLog::new(logs, &name, true).append(&text);
    }
}

/// The non-empty `<name>.log` files of `dir` for the entries `names`, as text, each
/// emptied once read.
fn logs_in(dir: &Path, names: &[String]) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for name in names {
        let Some(f) = crate::process::open_box_file(&dir.join(format!("{name}.log")), true) else { continue };
        // At most what one log may hold: a box cannot make the host read more.
        let mut text = Vec::new();
        let _ = std::io::Read::read_to_end(&mut std::io::Read::take(&f, EntryLog::CAP), &mut text);
        let _ = f.set_len(0);
        if !text.is_empty() {
            found.push((name.clone(), String::from_utf8_lossy(&text).into_owned()));
        }
    }
    found
}

/// One entry's log file, shared by all of its games; capped in size.
#[derive(Debug)]
pub struct EntryLog {
    path: Option<PathBuf>,
    append: bool,
    state: Mutex<(Option<File>, u64)>,
    /// In a worker: the file of this entry's output of the game being played.
    pending: Option<Mutex<Pending>>,
}

/// An entry's pending output in a worker.
#[derive(Debug)]
struct Pending {
    path: PathBuf,
    file: Option<File>,
    /// Bytes in it (its game's marker first).
    len: u64,
}

impl EntryLog {
    /// Bytes one entry may write to its log from one process (the host, or a worker).
    pub const CAP: u64 = 16 << 20;

    /// The log of entry `name` in `dir` (`None`: output is dropped).
    pub fn new(dir: Option<&Path>, name: &str, append: bool) -> EntryLog {
        let pending = match (dir, pending_dir()) {
            (Some(_), Some(p)) => Some(Mutex::new(Pending { path: p.join(format!("{name}.log")), file: None, len: 0 })),
            _ => None,
        };
        EntryLog { path: dir.map(|d| d.join(format!("{name}.log"))), append, state: Mutex::new((None, 0)), pending }
    }

    /// In a worker, keeps `line` of the game being played in the pending file, so that
    /// it survives the worker being ended (at most about 1 MiB a game).
    pub fn pending_line(&self, line: &str) {
        let Some(pending) = &self.pending else { return };
        let mut p = pending.lock().unwrap_or_else(|e| e.into_inner());
        if p.len > NATIVE_GAME_CAP as u64 {
            return;
        }
        if p.file.is_none() {
            if let Some(dir) = p.path.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            p.file = std::fs::OpenOptions::new().create(true).write(true).truncate(true).open(&p.path).ok();
        }
        let text = if p.len == 0 { game_marker() + line } else { line.to_owned() };
        if let Some(f) = &mut p.file
            && f.write_all(text.as_bytes()).is_ok()
        {
            p.len += text.len() as u64;
        }
    }

    /// Empties the pending file (its game's block went to the log).
    fn clear_pending(&self) {
        let Some(pending) = &self.pending else { return };
        let mut p = pending.lock().unwrap_or_else(|e| e.into_inner());
        if p.len > 0 {
            if let Some(f) = &mut p.file {
                let _ = f.set_len(0);
                let _ = std::io::Seek::rewind(f);
            }
            p.len = 0;
        }
    }

    /// Where the log goes, for messages: its path, or "not kept".
    pub fn describe(&self) -> String {
        self.path.as_ref().map_or_else(|| "not kept".to_owned(), |p| p.display().to_string())
    }

    /// Appends one game's whole output after its game's marker line (nothing when it
    /// printed nothing).
    pub fn append_game(&self, text: &str) {
        if !text.is_empty() {
            self.append(&(game_marker() + text));
        }
        self.clear_pending();
    }

    /// Says in the log why its game is played again (a process of the entry killed
    /// from outside its box: `why`), under the game's marker.
    pub fn played_again(&self, why: &str) {
        self.append(&format!("{}{why}; the game is played again\n", game_marker()));
    }

    /// Appends text (the file is created, or emptied unless appending, on first use).
    pub fn append(&self, text: &str) {
        let Some(path) = &self.path else { return };
        if text.is_empty() {
            return;
        }
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let (file, written) = &mut *state;
        if *written >= Self::CAP {
            return;
        }
        if file.is_none() {
            if let Some(dir) = path.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            let mut options = std::fs::OpenOptions::new();
            options.create(true);
            if self.append {
                options.append(true)
            } else {
                options.write(true).truncate(true)
            };
            *file = options.open(path).ok();
            // The cap is the file's: what other processes (earlier workers) wrote to
            // it counts.
            if self.append {
                *written = file.as_ref().and_then(|f| f.metadata().ok()).map_or(0, |m| m.len());
                if *written >= Self::CAP {
                    return;
                }
            }
        }
        if let Some(f) = file {
            let room = (Self::CAP - *written) as usize;
            let bytes = &text.as_bytes()[..text.len().min(room)];
            if f.write_all(bytes).is_ok() {
                *written += bytes.len() as u64;
                if *written >= Self::CAP {
                    let _ = f.write_all(b"\n[log truncated: the entry printed more than 16 MiB]\n");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(logger: Logger, text: &str) {
        (logger.write)(logger.data, text.as_ptr(), text.len());
    }

    #[test]
    fn native_lines_of_a_game_form_one_block_and_a_flood_is_cut_at_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let logger = native_logger(Arc::new(EntryLog::new(Some(dir.path()), "N", false)));
        write(logger, "at load\n");
        set_log_game(7);
        write(logger, "first");
        let big = "x".repeat(1000);
        for _ in 0..(NATIVE_GAME_CAP / 1000 + 5) {
            write(logger, &big);
        }
        end_log_game();
        write(logger, "after");
        let text = std::fs::read_to_string(dir.path().join("N.log")).unwrap();
        let expected_lines = (NATIVE_GAME_CAP - "first\n".len()) / 1001;
        assert!(text.starts_with("at load\n--- game seed 7 ---\nfirst\n"), "{}", &text[..60]);
        assert_eq!(text.matches(&big).count(), expected_lines);
        assert!(text.ends_with("[output cut: more than 1 MiB this game]\nafter\n"));
    }

    #[test]
    fn the_cap_is_the_files_whatever_number_of_processes_appends_to_it() {
        let dir = tempfile::tempdir().unwrap();
        let chunk = "y".repeat(1 << 20);
        // Each EntryLog is what one process (a worker, then its replacement) holds.
        for _ in 0..3 {
            let log = EntryLog::new(Some(dir.path()), "E", true);
            for _ in 0..7 {
                log.append(&chunk);
            }
        }
        let len = std::fs::metadata(dir.path().join("E.log")).unwrap().len();
        assert!((EntryLog::CAP..EntryLog::CAP + 100).contains(&len), "{len}");
    }

    #[test]
    fn a_line_that_is_not_utf8_or_null_costs_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let logger = native_logger(Arc::new(EntryLog::new(Some(dir.path()), "B", false)));
        (logger.write)(logger.data, std::ptr::null(), 5);
        let bytes = [b'o', b'k', 0xFF, b'\n'];
        (logger.write)(logger.data, bytes.as_ptr(), bytes.len());
        assert_eq!(std::fs::read_to_string(dir.path().join("B.log")).unwrap(), "ok\u{FFFD}\n");
    }
}
