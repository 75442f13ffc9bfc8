//! `arena serve`: the contest server (the crate `arena-server`) on `--listen` (default
//! 127.0.0.1:8080) over the ladder's database `--db`, with the ladder playing on a
//! thread of this process (the options of `ladder run`; `--no-ladder` when a `ladder run`
//! beside it plays). The ladder also finds the bots entrants submitted (the server's
//! `live/` directories beside the database), and a submission is checked by this same
//! program's `arena check`, in the sandbox, before it joins. Ctrl-C stops both (the
//! games in flight finish).
//!
//! Not here: the pages, submissions and limits (the crate `arena-server`), the ladder
//! (`ladder`, and the crate `arena-ladder`), the check (`check`).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use arena::game::Game;
use arena_ladder::store::Backend;
use arena_server::{Checked, Checker, Config};
use clap::Args;

use super::ladder::RunArgs;
use super::options::{SandboxMode, Sources};
use super::terminal::stop_on_ctrl_c;

/// The options of `arena serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The address to listen on.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Serve only: another process plays the ladder on this database (`arena ladder run`).
    #[arg(long)]
    pub no_ladder: bool,
    /// The largest bot file an entrant may upload, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 1 << 20)]
    pub max_upload: usize,
    /// Requests a second each client address may make on average (bursts of 3 times
    /// as many pass).
    #[arg(long, value_name = "N", default_value_t = 20.0)]
    pub rate: f64,
    /// Where submitted bots are kept [default: DB.bots beside an SQLite database; a
    /// PostgreSQL database needs one named].
    #[arg(long, value_name = "DIR")]
    pub bots: Option<PathBuf>,
    /// Submissions a minute each client address may make on average (bursts of half as
    /// many, at least 3, pass).
    #[arg(long, value_name = "N", default_value_t = 6.0)]
    pub submission_rate: f64,
    /// The ladder's options (those of `ladder run`).
    #[command(flatten)]
    pub ladder: Box<RunArgs>,
}

/// Runs the server (and the ladder) for game `G`.
pub fn serve<G: Game>(args: ServeArgs, sources: &Sources) -> Result<()> {
    let db = args.ladder.db.db.clone();
    let mut config = Config::new(&db, G::NAME);
    config.listen = args.listen;
    config.max_upload = args.max_upload;
    config.rates.per_second = args.rate;
    config.rates.burst = (args.rate * 3.0).ceil().max(1.0) as u32;
    config.rates.submissions_per_minute = args.submission_rate;
    config.rates.submission_burst = (args.submission_rate / 2.0).ceil().max(3.0) as u32;
    config.logs = Some(sources.logs.clone());
    match (args.bots, Backend::of(&db)) {
        (Some(dir), _) => config.bots = dir,
        (None, Backend::Postgres) => anyhow::bail!(
            "{}: a PostgreSQL ladder keeps no files beside it: name the directory of the submitted bots with --bots DIR",
            arena_ladder::store::redacted(&db.to_string_lossy())
        ),
        (None, Backend::Sqlite) => {}
    }
    let bots = config.bots.clone();
    // The ladder's bots: those of the directories given (or the defaults), and the
    // submitted ones.
    let mut sources = sources.clone();
    let paths = super::bots::search_paths(&sources);
    let (live_scripts, live_plugins) = arena_server::submit::live_dirs(&bots, G::NAME);
    sources.plugins = [paths.plugins, vec![live_plugins]].concat();
    sources.scripts = [paths.scripts, vec![live_scripts]].concat();
    // No box sees the submitted bots (their objects, those being checked, the trees of
    // archives), but for a bot's own files, nor the database and its lock files (the
    // checks' boxes included).
    sources.hidden.push(bots.clone());
    let sources = super::ladder::hide_database(&sources, &db)?;
    let checker = CheckCommand { sources: sources.clone(), scratch: bots.join("check") };
    let shown = arena_ladder::store::redacted(&db.to_string_lossy());
    let app = arena_server::app(config, Arc::new(checker)).with_context(|| shown.clone())?;
    let stop = stop_on_ctrl_c()?;
    let ladder = (!args.no_ladder).then(|| {
        let (stop, sources) = (Arc::clone(&stop), sources.clone());
        let ladder = *args.ladder;
        std::thread::Builder::new().name("ladder".to_owned()).spawn(move || keep_playing::<G>(ladder, &sources, &stop))
    });
    let ladder = ladder.transpose().context("cannot start the ladder's thread")?;
    let served = arena_server::serve_until(
        app,
        |addr| eprintln!("serving the {} ladder of {shown} on http://{addr}/ (Ctrl-C stops)", G::NAME),
        Arc::clone(&stop),
    );
    stop.store(true, Ordering::SeqCst);
    if let Some(ladder) = ladder {
        let _ = ladder.join();
    }
    Ok(served?)
}

/// The ladder until `stop`: when it stops on an error (too few entries yet, the database
/// busy), the error is shown once and the ladder starts again a few seconds later, so
/// that no request and no bot stops it for good.
fn keep_playing<G: Game>(args: RunArgs, sources: &Sources, stop: &AtomicBool) {
    let mut last_error = String::new();
    while !stop.load(Ordering::SeqCst) {
        match super::ladder::play::<G>(args.clone(), sources, stop) {
            Ok(()) if args.games.is_some() => break,
            Ok(()) => {}
            Err(e) => {
                let line = format!("{e:#}");
                if line != last_error {
                    eprintln!("ladder: {line} (trying again every 5 s)");
                    last_error = line;
                }
            }
        }
        let until = Instant::now() + Duration::from_secs(5);
        while !stop.load(Ordering::SeqCst) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// Checks a submission by running this program's `arena check` on it, with the
/// ladder's bots as opponents and its limits, in the sandbox as every check is.
#[derive(Debug)]
struct CheckCommand {
    sources: Sources,
    scratch: PathBuf,
}

/// Games a check plays.
const CHECK_GAMES: &str = "2";
/// Longest a check may take.
const CHECK_TIMEOUT: Duration = Duration::from_secs(90);

impl Checker for CheckCommand {
    fn check(&self, game: &str, file: &Path) -> Result<Checked, String> {
        let exe = std::env::current_exe().map_err(|e| format!("cannot find the arena program: {e}"))?;
        let s = &self.sources;
        let mut cmd = Command::new(exe);
        cmd.arg("--game").arg(game);
        for p in &s.plugins {
            cmd.arg("--plugins").arg(p);
        }
        for p in &s.scripts {
            cmd.arg("--scripts").arg(p);
        }
        cmd.arg("--logs").arg(&self.scratch);
        for h in &s.hidden {
            cmd.arg("--hide-from-boxes").arg(h);
        }
        cmd.args(["--op-budget", &s.op_budget.to_string(), "--call-timeout-ms", &s.call_timeout_ms.to_string()]);
        cmd.args(["--memory-mib", &s.memory_mib.to_string()]);
        cmd.arg("--sandbox").arg(match s.sandbox {
            SandboxMode::None => "none",
            SandboxMode::Bwrap => "bwrap",
        });
        cmd.arg("check").arg(file).args(["--games", CHECK_GAMES]);
        cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let child = cmd.spawn().map_err(|e| format!("cannot run the check: {e}"))?;
        let out = wait_with_timeout(child, CHECK_TIMEOUT)?;
        let hide = |t: &str| t.replace(&file.display().to_string(), &file_name(file));
        let stdout = hide(&String::from_utf8_lossy(&out.stdout));
        let stderr = hide(&String::from_utf8_lossy(&out.stderr));
        if !out.status.success() {
            let line = stderr
                .lines()
                .rev()
                .find_map(|l| l.strip_prefix("error: "))
                .map_or_else(|| format!("the check failed ({})", out.status), str::to_owned);
            return Err(line);
        }
        let loaded = stdout.lines().find_map(|l| l.trim().strip_prefix("loaded: ")).unwrap_or("");
        let (name, kind) = loaded.rsplit_once(" (").unwrap_or((loaded, "?)"));
        let played = stdout.lines().find_map(|l| l.trim().strip_prefix("played ")).unwrap_or("");
        let errors = stdout.lines().find_map(|l| l.trim().strip_prefix("errors: ")).unwrap_or("");
        Ok(Checked {
            name: name.to_owned(),
            kind: kind.trim_end_matches(')').to_owned(),
            line: format!("ok: played {played}; errors: {errors}"),
        })
    }
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// The output of `child`, which is killed past `limit` (its output read on threads of
/// their own meanwhile, so that a full pipe never stalls it).
fn wait_with_timeout(mut child: std::process::Child, limit: Duration) -> Result<std::process::Output, String> {
    use std::io::Read as _;
    let read = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let out = read(child.stdout.take().map(|p| Box::new(p) as Box<dyn std::io::Read + Send>));
    let err = read(child.stderr.take().map(|p| Box::new(p) as Box<dyn std::io::Read + Send>));
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                return Ok(std::process::Output {
                    status,
                    stdout: out.join().unwrap_or_default(),
                    stderr: err.join().unwrap_or_default(),
                });
            }
            Ok(None) if started.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("the check took more than {} s", limit.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => return Err(format!("the check failed: {e}")),
        }
    }
}
