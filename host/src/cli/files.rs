//! Writing a command's output files: every file through a temporary file and a rename
//! ([`write_atomically`]), so that none is ever seen half-written; the results as JSON
//! (with each seed also as text) and the leaderboard as CSV ([`write_results`]), each
//! on its own; and the check, before any game, that every output can be written
//! ([`check_outputs`]).
//!
//! Not here: what goes into the files (`arena::tournament`, `arena::report`,
//! `arena::plot`), or the terminal (`terminal`).

use std::io::Write;
use std::path::Path;
use std::sync::atomic::Ordering;

use anyhow::{Context as _, Result, bail};
use arena::tournament::{self, TournamentResult};

/// Writes `bytes` (`what`: "the results", "the plot", ...) to `path` through a
/// temporary file in the same directory and a rename, so that an output is never seen
/// half-written.
pub fn write_atomically(path: &Path, bytes: &[u8], what: &str) -> Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().with_context(|| format!("{}: not a file path", path.display()))?;
    // Unique per write: a second Ctrl-C may write the results while the main thread does.
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = WRITES.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".{}.tmp{}-{n}", name.to_string_lossy(), std::process::id()));
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    };
    write().with_context(|| format!("{}: cannot write {what}", path.display()))
}

/// Writes the JSON results and the CSV leaderboard, each on its own (one failing does
/// not keep the other from being written).
pub fn write_results(result: &TournamentResult, json: Option<&Path>, csv: Option<&Path>) -> Result<()> {
    let mut failures = Vec::new();
    if let Some(path) = json {
        let mut value = serde_json::to_value(result)?;
        with_seed_texts(&mut value);
        match write_atomically(path, &serde_json::to_vec_pretty(&value)?, "the results") {
            Ok(()) => outln!("results written to {}", path.display()),
            Err(e) => failures.push(e),
        }
    }
    if let Some(path) = csv {
        match write_atomically(path, tournament::leaderboard_csv(result).as_bytes(), "the leaderboard") {
            Ok(()) => outln!("leaderboard written to {}", path.display()),
            Err(e) => failures.push(e),
        }
    }
    outputs_failed(failures)
}

/// Adds `"seed_text"` beside every `"seed"` of the results (the tournament's and each
/// game's): 64-bit seeds lose precision as JSON numbers in JavaScript and jq, and
/// `play --seed` of a rounded seed plays another game.
pub fn with_seed_texts(value: &mut serde_json::Value) {
    let add = |v: &mut serde_json::Value| {
        if let Some(seed) = v.get("seed").and_then(serde_json::Value::as_u64) {
            v["seed_text"] = seed.to_string().into();
        }
    };
    add(value);
    for key in ["games", "failed"] {
        if let Some(list) = value.get_mut(key).and_then(serde_json::Value::as_array_mut) {
            list.iter_mut().for_each(add);
        }
    }
}

/// One error listing every output that could not be written (one line each).
pub fn outputs_failed(failures: Vec<anyhow::Error>) -> Result<()> {
    match failures.len() {
        0 => Ok(()),
        _ => bail!("{}", failures.iter().map(|e| format!("{e:#}")).collect::<Vec<_>>().join("\nerror: ")),
    }
}

/// Checks, before anything is played, that every output file can be written (its
/// directory exists and takes a file) and creates every output directory; one line
/// per problem, all of them.
pub fn check_outputs(files: &[Option<&Path>], dirs: &[Option<&Path>]) -> Result<()> {
    let mut problems = Vec::new();
    for path in files.iter().flatten() {
        if path.is_dir() {
            problems.push(format!("{}: is a directory; give a file name", path.display()));
            continue;
        }
        if path.file_name().is_none() || path.as_os_str().to_string_lossy().ends_with('/') {
            problems.push(format!("{}: not a file name", path.display()));
            continue;
        }
        let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let probe = dir.join(format!(".arena-check-{}", std::process::id()));
        match std::fs::File::create(&probe) {
            Ok(_) => {
                let _ = std::fs::remove_file(&probe);
            }
            Err(e) => problems.push(format!("{}: cannot write there ({e})", path.display())),
        }
    }
    for dir in dirs.iter().flatten() {
        if let Err(e) = std::fs::create_dir_all(dir) {
            problems.push(format!("{}: cannot create the directory ({e})", dir.display()));
        }
    }
    if problems.is_empty() { Ok(()) } else { bail!("{}", problems.join("\nerror: ")) }
}
