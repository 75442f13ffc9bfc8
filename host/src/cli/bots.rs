//! Finding a command's bots and setting up the workers that run them: the directories
//! to search ([`search_paths`]), the limits scripts and programs load with
//! ([`script_limits`]), discovery (natives only probed, in child processes, when games
//! are isolated), the isolation workers get ([`isolation`]: the same entries, limits
//! and sandbox as this process) and whether games use it ([`games_isolation`]), and
//! the check that a contest has entries at all ([`playable`]).
//!
//! Not here: loading itself (`arena::loaders`), the workers' side (`worker`), printing
//! the entries (`list`).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, Result, bail};
use arena::bot::{Entry, EntryKind};
use arena::game::Game;
use arena::isolate::Isolation;
use arena::limits::TimeBank;
use arena::loaders::{self, Discovery, ScriptLimits, SearchPaths};

use super::options::{Isolate, SandboxMode, Sources};

/// A directory (or bot file) given with `--plugins` or `--scripts` that does not exist
/// is an error (a typo would otherwise run a contest without its entries).
pub fn check_sources(sources: &Sources) -> Result<()> {
    let given =
        sources.plugins.iter().map(|d| ("--plugins", d)).chain(sources.scripts.iter().map(|d| ("--scripts", d)));
    for (option, dir) in given {
        if !dir.exists() {
            bail!("{option} {}: no such directory or file", dir.display());
        }
    }
    Ok(())
}

/// The directories to search: those given, or the defaults that exist.
pub fn search_paths(sources: &Sources) -> SearchPaths {
    let or_default = |dirs: &[PathBuf], default: &str| {
        if dirs.is_empty() {
            vec![PathBuf::from(default)].into_iter().filter(|d| d.is_dir()).collect()
        } else {
            dirs.to_vec()
        }
    };
    SearchPaths { plugins: or_default(&sources.plugins, "plugins"), scripts: or_default(&sources.scripts, "scripts") }
}

/// Boxes, unless the bots are trusted (`--trust-bots`, `--sandbox none`): where this
/// machine cannot give a box (no bubblewrap, no user namespaces), refuses in one line
/// when a native library or a program is among the bots; scripts alone (whose
/// interpreters are their sandboxes) then play unboxed.
pub fn settle_boxes(sources: &mut Sources) -> Result<()> {
    if sources.sandbox == SandboxMode::None {
        warn_of_no_filter(sources, arena::process::filter_unavailable());
        return Ok(());
    }
    let Err(why) = arena::process::bwrap_available() else {
        warn_of_no_filter(sources, arena::process::box_filter_missing());
        return Ok(());
    };
    if sources.explicit_sandbox {
        bail!("--sandbox bwrap: {why}");
    }
    if let Some(file) = untrusted_file(&search_paths(sources)) {
        bail!(
            "{}: cannot put this bot in a box here ({why}); install bubblewrap, or pass --trust-bots to run the \
             bots unboxed",
            file.display()
        );
    }
    sources.sandbox = SandboxMode::None;
    Ok(())
}

/// One line on standard error when program bots are among the bots and run without
/// the system-call filter that keeps their answers' stamps true (`missing`, why): their
/// late answers may then pass for timely ones (docs/hardening.md).
fn warn_of_no_filter(sources: &Sources, missing: Option<&str>) {
    if let Some(line) = no_filter_warning(&search_paths(sources), missing) {
        eprintln!("{line}");
    }
}

/// The line of [`warn_of_no_filter`], if one is due.
fn no_filter_warning(paths: &SearchPaths, missing: Option<&str>) -> Option<String> {
    let why = missing?;
    let file = first_file(paths, loaders::program::is_program)?;
    Some(format!(
        "warning: {}: program bots run without their system-call filter here ({why}): a late answer written with \
         splice or sendfile may pass for a timely one",
        file.display()
    ))
}

/// The first native library or program among the bots (a directory's files, and those of
/// its subdirectories, where each game's bots are), if any.
fn untrusted_file(paths: &SearchPaths) -> Option<PathBuf> {
    first_file(paths, |p| loaders::native::is_library_name(p) || loaders::program::is_program(p))
}

/// The first file among the bots (a directory's files, and those of its subdirectories,
/// where each game's bots are) for which `wanted` holds, if any.
fn first_file(paths: &SearchPaths, wanted: impl Fn(&std::path::Path) -> bool) -> Option<PathBuf> {
    let mut todo: Vec<(PathBuf, u32)> = paths.plugins.iter().chain(&paths.scripts).map(|d| (d.clone(), 0)).collect();
    while let Some((path, depth)) = todo.pop() {
        if path.is_file() {
            if wanted(&path) {
                return Some(path);
            }
            continue;
        }
        let Ok(dir) = std::fs::read_dir(&path) else { continue };
        for e in dir.flatten() {
            let p = e.path();
            if p.is_file() && wanted(&p) {
                return Some(p);
            }
            if depth == 0 && p.is_dir() {
                todo.push((p, 1));
            }
        }
    }
    None
}

/// The directories a box never sees (but for its own files in them): every bot
/// directory, the logs, the host's scratch space, and those hidden by name
/// (`--hide-from-boxes`). System directories are never covered, even when given as bot
/// directories.
pub fn hidden_from_boxes(sources: &Sources) -> Vec<PathBuf> {
    let paths = search_paths(sources);
    let system = ["/usr", "/lib", "/lib32", "/lib64", "/bin", "/sbin", "/etc", "/proc", "/sys", "/dev", "/run"];
    let bots: Vec<&PathBuf> = paths.plugins.iter().chain(&paths.scripts).collect();
    // An entry that is a link: the directory its file really is in (a build directory,
    // another entrant's folder) is covered too, or a box would read it there.
    let linked: Vec<PathBuf> = bots.iter().flat_map(|p| link_targets(p)).collect();
    let secrets = home_secrets();
    bots.into_iter()
        .chain([&sources.logs, &scratch_root()])
        .chain(&sources.hidden)
        .chain(&linked)
        .chain(&secrets)
        .map(|p| std::path::absolute(p).unwrap_or_else(|_| p.clone()))
        .filter(|p| p.components().count() > 1 && !system.iter().any(|s| p.starts_with(s)))
        .collect()
}

/// Where the host's user keeps credentials, under its home directory: covered in every
/// box (a box runs as the host's own uid when the host is not root, and reads what that
/// user may read; the rest of the file system stays read-only, not hidden:
/// docs/hardening.md).
const HOME_SECRETS: [&str; 22] = [
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".config/gcloud",
    ".config/gh",
    ".password-store",
    ".local/share/keyrings",
    ".netrc",
    ".pgpass",
    ".my.cnf",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".bash_history",
    ".zsh_history",
    ".python_history",
    ".psql_history",
];

/// The [`HOME_SECRETS`] of the host's home directory that a box could read: as root,
/// those every user may reach (a box has a uid of its own, and one it cannot reach need
/// not, and cannot, be covered); not as root, every one there is (a box runs as the
/// host's uid).
fn home_secrets() -> Vec<PathBuf> {
    let Some(home) = std::env::var_os("HOME").map(PathBuf::from).filter(|h| h.is_absolute()) else {
        return Vec::new();
    };
    // SAFETY: geteuid cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    HOME_SECRETS
        .iter()
        .map(|s| home.join(s))
        .filter(|p| p.symlink_metadata().is_ok() && (!root || reachable_by_all(p)))
        .collect()
}

/// Whether any user may reach `path`: search permission for all on every directory
/// above it, and read permission for all on it.
fn reachable_by_all(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| std::fs::metadata(p).map(|m| m.permissions().mode()).ok();
    path.ancestors().skip(1).all(|a| mode(a).is_some_and(|m| m & 0o001 != 0))
        && mode(path).is_some_and(|m| m & 0o004 != 0)
}

/// The directories that the links among `path` (a bot file, or a directory of them)
/// lead to.
fn link_targets(path: &Path) -> Vec<PathBuf> {
    let files: Vec<PathBuf> = if path.is_dir() {
        std::fs::read_dir(path).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default()
    } else {
        vec![path.to_owned()]
    };
    files
        .into_iter()
        .filter(|f| f.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink()))
        .filter_map(|f| std::fs::canonicalize(f).ok())
        .filter_map(|t| if t.is_dir() { Some(t) } else { t.parent().map(Path::to_owned) })
        .collect()
}

/// Where this host's workers keep their scratch directories.
fn scratch_root() -> PathBuf {
    std::env::temp_dir().join(format!("arena-{}", std::process::id()))
}

pub fn script_limits(sources: &Sources) -> ScriptLimits {
    let sandbox = match sources.sandbox {
        SandboxMode::None => arena::process::Sandbox::None,
        SandboxMode::Bwrap => {
            arena::process::Sandbox::Bwrap { writable: Vec::new(), hidden: hidden_from_boxes(sources) }
        }
    };
    ScriptLimits {
        sandbox,
        op_budget: sources.op_budget,
        call_timeout: Duration::from_millis(sources.call_timeout_ms),
        memory: sources.memory_mib << 20,
        log_dir: Some(sources.logs.clone()),
        log_append: false,
        ..ScriptLimits::default()
    }
}

/// Empties the entries' logs before isolated games, whose workers append to them.
pub fn start_logs<G: Game>(sources: &Sources, entries: &[Entry<G>]) {
    for e in entries {
        let _ = std::fs::remove_file(sources.logs.join(format!("{}.log", e.name)));
    }
}

/// The entries; with isolation, native libraries are only probed in child processes.
pub fn discover<G: Game>(sources: &Sources, iso: Option<&Isolation>) -> Discovery<G> {
    discover_in(&search_paths(sources), &script_limits(sources), iso)
}

/// The entries found in `paths`; with isolation, native libraries are only probed.
pub fn discover_in<G: Game>(paths: &SearchPaths, limits: &ScriptLimits, iso: Option<&Isolation>) -> Discovery<G> {
    match iso {
        Some(iso) => loaders::discover_with(paths, limits, &|p| arena::isolate::probe::<G>(iso, p)),
        None => loaders::discover(paths, limits),
    }
}

/// How to start workers that find the same entries as this process.
pub fn isolation(sources: &Sources, isolate: Isolate, bank: TimeBank) -> Result<Option<Arc<Isolation>>> {
    if isolate == Isolate::Off {
        return Ok(None);
    }
    let paths = search_paths(sources);
    let mut args: Vec<std::ffi::OsString> = Vec::new();
    for d in &paths.plugins {
        args.extend(["--plugins".into(), d.into()]);
    }
    for d in &paths.scripts {
        args.extend(["--scripts".into(), d.into()]);
    }
    args.extend(
        [
            ("--op-budget", sources.op_budget.to_string()),
            ("--call-timeout-ms", sources.call_timeout_ms.to_string()),
            ("--memory-mib", sources.memory_mib.to_string()),
            // A worker runs in its box itself (below): its program bots run there.
            ("--sandbox", "none".to_owned()),
        ]
        .into_iter()
        .flat_map(|(k, v)| [k.into(), v.into()]),
    );
    // Each worker's logs go to its box (`--logs` is added per worker), and the host
    // moves them to the real logs.
    let scratch = scratch_root();
    std::fs::create_dir_all(&scratch).with_context(|| format!("{}: cannot create", scratch.display()))?;
    let program = std::env::current_exe().context("cannot find this program to start workers")?;
    let call_limit = Duration::from_millis(sources.call_timeout_ms);
    let memory = sources.worker_memory_mib << 20;
    let processes = sources.worker_processes;
    // In a box, a worker writes only its own scratch directory.
    let sandbox = script_limits(sources).sandbox;
    // Each entry in a process (and a box) of its own, by default: a shared worker
    // (`--isolate on`) lets the native bots of a game reach one another.
    let (lockstep, logs) = (matches!(isolate, Isolate::Strict | Isolate::Auto), Some(sources.logs.clone()));
    Ok(Some(Arc::new(Isolation {
        program,
        args,
        bank,
        call_limit,
        scratch,
        memory,
        processes,
        sandbox,
        lockstep,
        logs,
        claimed_outside: Default::default(),
    })))
}

/// The isolation games need: workers when asked, or (auto) when an entry's code can
/// crash the process or get stuck where no hook reaches it (native libraries, Lua).
pub fn games_isolation<G: Game>(
    isolate: Isolate,
    iso: Option<Arc<Isolation>>,
    entries: &[Entry<G>],
) -> Option<Arc<Isolation>> {
    let risky = |e: &Entry<G>| matches!(e.kind, EntryKind::Native | EntryKind::NativeC | EntryKind::Lua);
    match isolate {
        Isolate::On | Isolate::Strict => iso,
        Isolate::Auto => iso.filter(|_| entries.iter().any(risky)),
        Isolate::Off => None,
    }
}

/// Reports skipped files (one line each) and insists on at least one entry.
pub fn playable<G: Game>(discovery: Discovery<G>) -> Result<Discovery<G>> {
    let mut other_games: std::collections::BTreeMap<&str, usize> = Default::default();
    for s in &discovery.skipped {
        match s.other_game() {
            Some(game) => *other_games.entry(game).or_default() += 1,
            None => eprintln!("skipped {s}"),
        }
    }
    if !other_games.is_empty() {
        let n: usize = other_games.values().sum();
        let each: Vec<String> = other_games.iter().map(|(g, k)| format!("{k} {g}")).collect();
        eprintln!(
            "skipped {n} bot{} of other games ({}; `arena --game {} list` names them)",
            if n == 1 { "" } else { "s" },
            each.join(", "),
            G::NAME
        );
    }
    if discovery.entries.is_empty() {
        bail!(
            "no entries found for {} (see `arena --game {} list`; use --plugins DIR / --scripts DIR)",
            G::NAME,
            G::NAME
        );
    }
    Ok(discovery)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Program bots among the bots, and no filter: one line naming the first program
    /// and why; no program, or a filter, no line.
    #[test]
    fn programs_without_their_filter_are_warned_of_in_one_line() {
        let dir = tempfile::tempdir().unwrap();
        let paths = SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] };
        std::fs::write(dir.path().join("bot.lua"), "function do_turn(ctx) return 'STAY' end\n").unwrap();
        assert_eq!(no_filter_warning(&paths, Some("no filter here")), None, "scripts only");
        let program = dir.path().join("bot.py");
        std::fs::write(&program, "#!/usr/bin/python3\n# arena: zombies\n").unwrap();
        std::fs::set_permissions(&program, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        let line = no_filter_warning(&paths, Some("no filter here")).expect("a program is there");
        assert!(line.starts_with(&format!("warning: {}: ", program.display())), "{line}");
        assert!(line.contains("(no filter here)") && !line.contains('\n'), "{line}");
        assert_eq!(no_filter_warning(&paths, None), None, "the filter is there");
    }
}
