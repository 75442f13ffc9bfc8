//! The `zombies` command: a thin CLI over the `zombies` library (discover entries,
//! play one game or a tournament, print and write results). Errors become `anyhow`
//! messages here and nowhere else.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};
use clap::{Args, Parser, Subcommand};
use zombies::loaders::{self, Discovery, ScriptLimits, SearchPaths};
use zombies::tournament::{self, TournamentResult};
use zombies::zombies::GameConfig;

/// An arena for the zombie survival king-of-the-hill: native (.so/.dll/.dylib), Rhai
/// and Lua bots, one game or whole tournaments.
#[derive(Debug, Parser)]
#[command(name = "zombies", version, about)]
struct Cli {
    #[command(flatten)]
    sources: Sources,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Args)]
struct Sources {
    /// Directory of native bot libraries (repeatable; replaces the default ./plugins).
    #[arg(long = "plugins", value_name = "DIR", global = true)]
    plugins: Vec<PathBuf>,
    /// Directory of Rhai and Lua bots (repeatable; replaces the default ./scripts).
    #[arg(long = "scripts", value_name = "DIR", global = true)]
    scripts: Vec<PathBuf>,
    /// Rhai operations / Lua instructions a script may use per call.
    #[arg(long, value_name = "N", default_value_t = ScriptLimits::default().op_budget, global = true)]
    op_budget: u64,
    /// Wall-clock limit of one script call, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = ScriptLimits::default().call_timeout.as_millis() as u64, global = true)]
    call_timeout_ms: u64,
    /// Memory cap of each script entry, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = ScriptLimits::default().memory >> 20, global = true)]
    memory_mib: usize,
    /// Directory of the scripts' `print` logs, one `<entry>.log` each.
    #[arg(long, value_name = "DIR", default_value = "logs", global = true)]
    logs: PathBuf,
}

#[derive(Debug, Args)]
struct GameOptions {
    /// Stop a game after this many turns even if players live (the rules have no limit).
    #[arg(long, value_name = "N")]
    max_turns: Option<u32>,
}

impl GameOptions {
    fn config(&self) -> GameConfig {
        GameConfig { max_turns: self.max_turns, ..GameConfig::default() }
    }
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Play one game and print each entry's score.
    Play {
        /// The game's seed (a tournament prints the seed of each of its games).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[command(flatten)]
        game: GameOptions,
    },
    /// Play several games and rank the entries by median score.
    Tournament {
        /// Number of games.
        #[arg(long, default_value_t = 5)]
        rounds: u64,
        /// The tournament's seed; game i plays with a seed derived from it and i.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Write the results as JSON to this file.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        #[command(flatten)]
        game: GameOptions,
    },
    /// List the entries found and the files skipped, with reasons.
    List,
}

fn main() {
    if let Err(err) = run(Cli::parse()) {
        eprintln!("error: {err:#}");
        std::process::exit(1);
    }
}

fn run(cli: Cli) -> Result<()> {
    let discovery = discover(&cli.sources);
    match cli.command {
        Command::List => {
            list(&discovery);
            Ok(())
        }
        Command::Play { seed, game } => {
            let found = playable(discovery)?;
            let outcome = tournament::play_game(&found.entries, seed, game.config());
            println!("game seed {seed}: {} turns", outcome.turns);
            let mut order: Vec<usize> = (0..found.entries.len()).collect();
            order.sort_by_key(|&i| std::cmp::Reverse(outcome.scores[i]));
            for i in order {
                println!("  {:<24} {}", found.entries[i].name, outcome.scores[i]);
            }
            Ok(())
        }
        Command::Tournament { rounds, seed, json, game } => {
            let found = playable(discovery)?;
            let result = tournament::run(&found.entries, seed, rounds, game.config());
            for g in &result.games {
                println!("game {:>4}  seed {:>20}  {:>5} turns", g.index, g.seed, g.turns);
            }
            print_leaderboard(&result);
            if let Some(path) = json {
                write_atomically(&path, &serde_json::to_vec_pretty(&result)?)?;
                println!("results written to {}", path.display());
            }
            Ok(())
        }
    }
}

fn discover(sources: &Sources) -> Discovery {
    let or_default = |dirs: &[PathBuf], default: &str| {
        if dirs.is_empty() { vec![PathBuf::from(default)] } else { dirs.to_vec() }
    };
    let paths = SearchPaths {
        plugins: or_default(&sources.plugins, "plugins"),
        scripts: or_default(&sources.scripts, "scripts"),
    };
    let limits = ScriptLimits {
        op_budget: sources.op_budget,
        call_timeout: std::time::Duration::from_millis(sources.call_timeout_ms),
        memory: sources.memory_mib << 20,
        log_dir: Some(sources.logs.clone()),
    };
    loaders::discover(&paths, &limits)
}

/// Reports skipped files (one line each) and insists on at least one entry.
fn playable(discovery: Discovery) -> Result<Discovery> {
    for s in &discovery.skipped {
        eprintln!("skipped {s}");
    }
    if discovery.entries.is_empty() {
        bail!("no entries found (see `zombies list`; use --plugins DIR / --scripts DIR)");
    }
    Ok(discovery)
}

fn list(discovery: &Discovery) {
    println!("{} entries:", discovery.entries.len());
    for e in &discovery.entries {
        println!("  {:<24} {:<18} {}", e.name, e.kind.to_string(), e.source.display());
    }
    if !discovery.skipped.is_empty() {
        println!("{} skipped:", discovery.skipped.len());
        for s in &discovery.skipped {
            println!("  {s}");
        }
    }
}

fn print_leaderboard(result: &TournamentResult) {
    println!();
    println!("{:<4} {:<24} {:>8} {:>9} {:>6} {:>6} {:>7}", "rank", "entry", "median", "mean", "min", "max", "errors");
    for (rank, s) in result.leaderboard.iter().enumerate() {
        println!(
            "{:<4} {:<24} {:>8.1} {:>9.2} {:>6} {:>6} {:>7}",
            rank + 1,
            s.name,
            s.median,
            s.mean,
            s.min,
            s.max,
            s.stats.errors + s.stats.overruns
        );
    }
    for s in result.leaderboard.iter().filter(|s| s.stats.errors + s.stats.overruns > 0) {
        println!(
            "{}: {} errors, {} over budget/time/memory in {} calls; first: {}",
            s.name,
            s.stats.errors,
            s.stats.overruns,
            s.stats.calls,
            s.stats.messages.join(" | ")
        );
    }
}

/// Writes `bytes` to `path` through a temporary file in the same directory and a
/// rename, so that a results file is never seen half-written.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().with_context(|| format!("{}: not a file path", path.display()))?;
    let tmp = dir.join(format!(".{}.tmp{}", name.to_string_lossy(), std::process::id()));
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    };
    write().with_context(|| format!("{}: cannot write the results", path.display()))
}
