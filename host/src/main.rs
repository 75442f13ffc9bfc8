//! The `arena` command: a thin CLI over the `arena` library (discover the entries of a
//! game, play one game or a tournament, print and write results). Every command is
//! written once, generic over the game (`--game`), and dispatched through the games
//! registry. Errors become `anyhow` messages here and nowhere else.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};
use arena::bot::{Entry, EntryKind};
use arena::game::{Game, Ranking};
use arena::isolate::{Isolation, ProbeReport, Worker};
use arena::limits::{BlamePage, TimeBank};
use arena::loaders::{self, Discovery, ScriptLimits, SearchPaths};
use arena::tournament::{self, Plan, Shard, TournamentResult};
use arena::with_game;
use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};

/// An arena for king-of-the-hill bot games: native (.so/.dll/.dylib), Rhai, Lua and
/// program bots in any language; one game or whole tournaments.
#[derive(Debug, Parser)]
#[command(name = "arena", version, about)]
struct Cli {
    #[command(flatten)]
    game: GameChoice,
    #[command(flatten)]
    sources: SourceArgs,
    #[command(subcommand)]
    command: Command,
}

/// Which game, given before the subcommand or after it (only the commands that play or
/// write bots list it: a replay and a results file know their game).
#[derive(Debug, Clone, Default, Args)]
struct GameChoice {
    /// The game: zombies, eggs, target or hex [default: zombies].
    #[arg(long = "game", value_name = "GAME",
          value_parser = clap::builder::PossibleValuesParser::new(arena::games::NAMES))]
    game: Option<String>,
}

/// Where the bots are and the limits they run under, as given on the command line:
/// before the subcommand (`arena --plugins X tournament`, for every command that loads
/// bots) or after it (`arena tournament --plugins X`, listed only by those commands).
/// The two are merged into [`Sources`]; no option here is global, so the commands that
/// load no bot (`merge`, `replay`, `new-bot`) do not list them.
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Bots and their limits")]
struct SourceArgs {
    /// Directory of native bot libraries, or one library (repeatable; replaces the
    /// default ./plugins).
    #[arg(long = "plugins", value_name = "DIR")]
    plugins: Vec<PathBuf>,
    /// Directory of Rhai, Lua and program bots, searched with its subdirectory named
    /// after the game, or one bot file (repeatable; replaces the default ./scripts).
    #[arg(long = "scripts", value_name = "DIR")]
    scripts: Vec<PathBuf>,
    /// Rhai operations / Lua instructions a script may use per call [default: 1000000].
    #[arg(long, value_name = "N")]
    op_budget: Option<u64>,
    /// Limit of one bot call, in milliseconds of the bot's own time (waits for a CPU do not count) [default: 1000].
    #[arg(long, value_name = "MS")]
    call_timeout_ms: Option<u64>,
    /// Memory cap of each script entry, in MiB [default: 64].
    #[arg(long, value_name = "MIB")]
    memory_mib: Option<usize>,
    /// Memory (data: heap and private mappings) of each worker process, in MiB: all the
    /// bots it runs together. A native bot that goes over it crashes its worker and is
    /// out of that game [default: 4096].
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(64..=(1 << 30)))]
    worker_memory_mib: Option<u64>,
    /// Processes and threads each worker process may have, all its bots and whatever
    /// they fork together (a pids control group as root, else RLIMIT_NPROC) [default:
    /// 1024].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(16..))]
    worker_processes: Option<u32>,
    /// Run program bots, and the workers that run native bots, in a sandbox: `bwrap`
    /// (bubblewrap) gives them no network and a read-only file system (see
    /// docs/hardening.md for what each mode protects) [default: none].
    #[arg(long, value_enum)]
    sandbox: Option<SandboxMode>,
    /// Directory of the entries' logs, one `<entry>.log` each: scripts' `print`,
    /// programs' stderr, native bots' log lines [default: logs].
    #[arg(long, value_name = "DIR")]
    logs: Option<PathBuf>,
}

/// [`SourceArgs`] resolved: those after the subcommand added to (directories) or
/// overriding (limits) those before it, then the defaults.
#[derive(Debug, Clone)]
struct Sources {
    plugins: Vec<PathBuf>,
    scripts: Vec<PathBuf>,
    op_budget: u64,
    call_timeout_ms: u64,
    memory_mib: usize,
    worker_memory_mib: u64,
    worker_processes: u32,
    sandbox: SandboxMode,
    logs: PathBuf,
}

impl Sources {
    fn resolve(before: &SourceArgs, after: Option<&SourceArgs>) -> Sources {
        let after = after.cloned().unwrap_or_default();
        let defaults = ScriptLimits::default();
        Sources {
            plugins: [&before.plugins[..], &after.plugins[..]].concat(),
            scripts: [&before.scripts[..], &after.scripts[..]].concat(),
            op_budget: after.op_budget.or(before.op_budget).unwrap_or(defaults.op_budget),
            call_timeout_ms: after
                .call_timeout_ms
                .or(before.call_timeout_ms)
                .unwrap_or(defaults.call_timeout.as_millis() as u64),
            memory_mib: after.memory_mib.or(before.memory_mib).unwrap_or(defaults.memory >> 20),
            worker_memory_mib: after.worker_memory_mib.or(before.worker_memory_mib).unwrap_or(4096),
            worker_processes: after.worker_processes.or(before.worker_processes).unwrap_or(1024),
            sandbox: after.sandbox.or(before.sandbox).unwrap_or(SandboxMode::None),
            logs: after.logs.or_else(|| before.logs.clone()).unwrap_or_else(|| PathBuf::from("logs")),
        }
    }
}

#[derive(Debug, Args)]
struct GameOptions {
    /// Stop a game after this many turns (zombies: the rules have no limit).
    #[arg(long, value_name = "N")]
    max_turns: Option<u32>,
    /// Set one of the game's options, KEY=VALUE (repeatable; e.g. players_per_entry=10
    /// for zombies). An unknown key is an error that lists the game's options.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Each entry's time bank per game (own time), in seconds, at the start...
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    time_bank: f64,
    /// ...plus this many seconds per turn. An entry that spends its bank is out of
    /// that game (its players stay), and the leaderboard says so.
    #[arg(long, value_name = "SECS", default_value_t = 1.0)]
    time_per_turn: f64,
}

impl GameOptions {
    /// The game's options: its defaults, with `--max-turns` and each `--set` applied.
    fn config<G: Game>(&self) -> Result<G::Config> {
        let serde_json::Value::Object(mut map) = serde_json::to_value(G::Config::default())? else {
            bail!("{}: its options are not a map", G::NAME);
        };
        let known: Vec<String> = map.keys().cloned().collect();
        let mut set = |key: &str, value: serde_json::Value| -> Result<()> {
            if key == "max_turns" && !map.contains_key(key) && map.contains_key("max_rounds") {
                bail!(
                    "{} has no option \"max_turns\": its games are counted in rounds (every player moves once \
                     a round); use --set max_rounds=N (its options: {})",
                    G::NAME,
                    known.join(", ")
                );
            }
            if !map.contains_key(key) {
                bail!("{} has no option {key:?} (its options: {})", G::NAME, known.join(", "));
            }
            map.insert(key.to_owned(), value);
            Ok(())
        };
        if let Some(m) = self.max_turns {
            set("max_turns", m.into())?;
        }
        for kv in &self.set {
            let (k, v) = kv.split_once('=').with_context(|| format!("--set {kv:?}: expected KEY=VALUE"))?;
            let value =
                serde_json::from_str(v.trim()).unwrap_or_else(|_| serde_json::Value::String(v.trim().to_owned()));
            set(k.trim(), value)?;
        }
        let config = serde_json::from_value(serde_json::Value::Object(map)).context("bad game option")?;
        G::check_config(&config).map_err(|why| anyhow::anyhow!("bad game option: {} {why}", G::NAME))?;
        Ok(config)
    }

    fn bank(&self) -> Result<TimeBank> {
        let secs = |v: f64, what| {
            Duration::try_from_secs_f64(v).map_err(|_| anyhow::anyhow!("--{what} {v}: not a number of seconds"))
        };
        Ok(TimeBank {
            initial: secs(self.time_bank, "time-bank")?,
            per_turn: secs(self.time_per_turn, "time-per-turn")?,
        })
    }
}

/// How program bots and workers are sandboxed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum SandboxMode {
    /// Resource limits (and, as root, the `nobody` user for programs) only.
    None,
    /// Also bubblewrap: no network, the file system read-only (a program gets a private
    /// /tmp; a worker writes only its scratch directory and the logs).
    Bwrap,
}

/// Whether games run in worker processes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Isolate {
    /// Games in long-lived worker processes when a native or Lua bot plays (a crash, or
    /// a call stuck in C code, then costs only its entry); else in this process.
    Auto,
    /// Games always in worker processes.
    On,
    /// Everything in this process: fastest, but a native bot can crash or hang the host,
    /// and a Lua call stuck in a C function (a pattern match) waits for its time bank.
    Off,
}

/// The isolation games need: workers when asked, or (auto) when an entry's code can
/// crash the process or get stuck where no hook reaches it (native libraries, Lua).
fn games_isolation<G: Game>(
    isolate: Isolate,
    iso: Option<Arc<Isolation>>,
    entries: &[Entry<G>],
) -> Option<Arc<Isolation>> {
    let risky = |e: &Entry<G>| matches!(e.kind, EntryKind::Native | EntryKind::NativeC | EntryKind::Lua);
    match isolate {
        Isolate::On => iso,
        Isolate::Auto => iso.filter(|_| entries.iter().any(risky)),
        Isolate::Off => None,
    }
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Play one game and print each entry's score.
    Play {
        /// The game's seed (a tournament prints the seed of each of its games).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Record the game to this replay file (see `zombies replay`).
        #[arg(long, value_name = "FILE")]
        replay: Option<PathBuf>,
        /// Run the game in a worker process: by default (auto) when a native or Lua bot
        /// plays, so that a crashing bot is named instead of ending the program.
        #[arg(long, value_enum, default_value_t = Isolate::Auto)]
        isolate: Isolate,
        #[command(flatten)]
        game: GameOptions,
        #[command(flatten)]
        sources: SourceArgs,
        #[command(flatten)]
        which: GameChoice,
    },
    /// Play several games (in parallel) and rank the entries by the game's measure
    /// (zombies: median score; eggs: mean; target: total points; hex: match points).
    Tournament {
        /// Number of games in the whole tournament (all shards), at least 1.
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..))]
        rounds: u64,
        /// The tournament's seed; game i plays with a seed derived from it and i.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Games played at once (default: all cores), at least 1. Results do not
        /// depend on it.
        #[arg(long, value_name = "J", value_parser = clap::value_parser!(u64).range(1..))]
        jobs: Option<u64>,
        /// Play only the games whose index is K modulo N (one machine of N).
        #[arg(long, value_name = "K/N", default_value = "0/1")]
        shard: Shard,
        /// Write the results as JSON to this file (for `zombies merge`, too).
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Write the leaderboard as CSV to this file.
        #[arg(long, value_name = "FILE")]
        csv: Option<PathBuf>,
        /// Record every game to DIR/game-<index>-<seed>.zrpl.
        #[arg(long, value_name = "DIR")]
        replay_dir: Option<PathBuf>,
        /// Draw each entry's score distribution to this SVG file.
        #[arg(long, value_name = "FILE.svg")]
        plot: Option<PathBuf>,
        /// Write a browsable report to DIR: index.html (sortable leaderboard, score plot,
        /// errors and timings, a row per game) and a replay page per game in DIR/games/.
        #[arg(long, value_name = "DIR")]
        report: Option<PathBuf>,
        /// Run games in long-lived worker processes (one per job): by default (auto)
        /// whenever a native or Lua bot plays, since tournament entries are untrusted
        /// code (see docs/hardening.md).
        #[arg(long, value_enum, default_value_t = Isolate::Auto)]
        isolate: Isolate,
        #[command(flatten)]
        game: GameOptions,
        #[command(flatten)]
        sources: SourceArgs,
        #[command(flatten)]
        which: GameChoice,
    },
    /// Turn a replay into one self-contained HTML page (a viewer with no other files),
    /// or with --json into the game turn by turn as JSON (docs/replays.md).
    Replay {
        /// The replay file (from `play --replay` or `tournament --replay-dir`).
        file: PathBuf,
        /// The page to write (default, without --json: the replay's name with `.html`).
        #[arg(long, value_name = "OUT.html")]
        html: Option<PathBuf>,
        /// Write the game turn by turn as JSON to this file, for other tools (`-` for
        /// standard output); the schema is in docs/replays.md.
        #[arg(long, value_name = "OUT.json")]
        json: Option<PathBuf>,
    },
    /// Check one bot: load it, play it against the game's bundled bots (or --vs) over
    /// a few seeded games, and print a short report. Exits non-zero when it is broken.
    Check {
        /// The bot: a library, a script or a program.
        file: PathBuf,
        /// Opponents: directories or files (default: the --plugins/--scripts bots).
        #[arg(long = "vs", value_name = "DIR|FILE")]
        vs: Vec<PathBuf>,
        /// Games to play (seeded: the same games every time). In a two-seat game (hex)
        /// rounds: each plays the bot on both sides against every opponent.
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..))]
        games: u64,
        /// The games' seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[command(flatten)]
        game: GameOptions,
        #[command(flatten)]
        sources: SourceArgs,
        #[command(flatten)]
        which: GameChoice,
    },
    /// Merge the JSON results of several shards into one leaderboard.
    Merge {
        /// Results files written by `tournament --json`.
        #[arg(required = true, value_name = "FILE")]
        inputs: Vec<PathBuf>,
        /// Write the merged results as JSON to this file.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Write the merged leaderboard as CSV to this file.
        #[arg(long, value_name = "FILE")]
        csv: Option<PathBuf>,
        /// Merge even when shards or games are missing (a provisional leaderboard);
        /// without it, a shard missing or incomplete is an error.
        #[arg(long)]
        partial: bool,
    },
    /// Measure the engine and bot calls on the standard workloads (docs/performance.md).
    Bench {
        /// Seconds to spend on each workload (at least one game each).
        #[arg(long, default_value_t = 3.0)]
        seconds: f64,
        /// Only the workloads whose name contains this text.
        #[arg(long)]
        only: Option<String>,
        /// Games for the one-thread versus all-cores comparison (0 skips it).
        #[arg(long, default_value_t = 300)]
        games: u64,
        /// Also time each step of the turn (µs per turn, step by step) for each workload.
        #[arg(long)]
        steps: bool,
        /// Instead, measure what isolation costs: whole tournaments with workers and
        /// without (zombies: 20 Lua entries, 100 games; 400 short native-only games),
        /// checking that they play the same games.
        #[arg(long)]
        isolation: bool,
        #[command(flatten)]
        sources: SourceArgs,
        #[command(flatten)]
        which: GameChoice,
    },
    /// Write a starting bot into ./NAME/: a complete, commented bot for the game
    /// (`--game`) in the language, with a README saying how to build and play it.
    NewBot {
        /// The bot's name: its directory, its files and its entry's name (a letter,
        /// then letters, digits, `_` or `-`).
        name: String,
        /// The language: rust, c, rhai, lua or python.
        #[arg(long, value_name = "LANG")]
        lang: String,
        /// (Rust) the arena's plugin-abi directory the crate depends on by path
        /// (default: this arena's).
        #[arg(long, value_name = "DIR")]
        abi_path: Option<PathBuf>,
        #[command(flatten)]
        which: GameChoice,
    },
    /// List the entries found and the files skipped, with reasons.
    List {
        /// Load native libraries in child processes (a library that crashes while
        /// loading is then listed as skipped instead of ending the command).
        #[arg(long, value_enum, default_value_t = Isolate::On)]
        isolate: Isolate,
        #[command(flatten)]
        sources: SourceArgs,
        #[command(flatten)]
        which: GameChoice,
    },
    /// (internal) Serve games for an isolating host: one JSON request per line on
    /// stdin, one answer per line on the original stdout.
    #[command(name = "__worker", hide = true)]
    Worker {
        #[arg(long)]
        blame: PathBuf,
        #[arg(long)]
        bank_ms: u64,
        #[arg(long)]
        bank_per_turn_ms: u64,
        #[arg(long)]
        call_limit_ms: u64,
        /// The entries' files, in entry order.
        #[arg(long = "entry")]
        entries: Vec<PathBuf>,
        #[command(flatten)]
        sources: SourceArgs,
        #[command(flatten)]
        which: GameChoice,
    },
    /// (internal) Load one native library and report what it is.
    #[command(name = "__probe", hide = true)]
    Probe {
        file: PathBuf,
        #[arg(long)]
        out: PathBuf,
    },
}

fn main() {
    // Rust ignores SIGPIPE, so printing into a closed pipe (`zombies ... | head`) would
    // panic; the default action ends the program quietly, as command-line tools do.
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to the default before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    #[cfg(unix)]
    arena::process::no_inherited_descriptors();
    let cli = Cli::parse();
    let sources = Sources::resolve(&cli.sources, cli.command.sources());
    if sources.sandbox == SandboxMode::Bwrap && cli.command.sources().is_some() {
        if let Err(why) = arena::process::bwrap_available() {
            eprintln!("error: --sandbox bwrap: {why}");
            std::process::exit(1);
        }
    }
    let game = cli.command.game().or(cli.game.game.as_deref()).unwrap_or(arena::games::DEFAULT).to_owned();
    let result = with_game!(game.as_str(), G => run::<G>(cli.command, &sources), _ => Err(anyhow::anyhow!("unknown game {game:?}")));
    while QUITTING.load(Ordering::SeqCst) {
        // The Ctrl-C handler is writing the results, then exits with 130.
        std::thread::sleep(Duration::from_millis(50));
    }
    if let Err(err) = result {
        eprintln!("error: {err:#}");
        std::process::exit(1);
    }
}

/// A directory (or bot file) given with `--plugins` or `--scripts` that does not exist
/// is an error (a typo would otherwise run a contest without its entries).
fn check_sources(sources: &Sources) -> Result<()> {
    let given =
        sources.plugins.iter().map(|d| ("--plugins", d)).chain(sources.scripts.iter().map(|d| ("--scripts", d)));
    for (option, dir) in given {
        if !dir.exists() {
            bail!("{option} {}: no such directory or file", dir.display());
        }
    }
    Ok(())
}

impl Command {
    /// The game named after the subcommand, for the commands that play or write bots.
    fn game(&self) -> Option<&str> {
        match self {
            Command::Play { which, .. }
            | Command::Tournament { which, .. }
            | Command::Check { which, .. }
            | Command::Bench { which, .. }
            | Command::List { which, .. }
            | Command::NewBot { which, .. }
            | Command::Worker { which, .. } => which.game.as_deref(),
            Command::Replay { .. } | Command::Merge { .. } | Command::Probe { .. } => None,
        }
    }

    /// The bot options given after the subcommand, for the commands that load bots.
    fn sources(&self) -> Option<&SourceArgs> {
        match self {
            Command::Play { sources, .. }
            | Command::Tournament { sources, .. }
            | Command::Check { sources, .. }
            | Command::Bench { sources, .. }
            | Command::List { sources, .. }
            | Command::Worker { sources, .. } => Some(sources),
            Command::Replay { .. } | Command::Merge { .. } | Command::NewBot { .. } | Command::Probe { .. } => None,
        }
    }
}

fn run<G: Game>(command: Command, sources: &Sources) -> Result<()> {
    if matches!(
        command,
        Command::List { .. }
            | Command::Play { .. }
            | Command::Tournament { .. }
            | Command::Bench { .. }
            | Command::Check { .. }
    ) {
        check_sources(sources)?;
    }
    match command {
        Command::List { isolate, .. } => {
            let iso = isolation(sources, isolate, TimeBank::default())?;
            // Listing plays no game: what a bot writes while loading goes nowhere, and
            // the logs of the last tournament stay as they are.
            let limits = ScriptLimits { log_dir: None, ..script_limits(sources) };
            list(&discover_in::<G>(&search_paths(sources), &limits, iso.as_deref()));
            if let Some(iso) = &iso {
                let _ = std::fs::remove_dir_all(&iso.scratch);
            }
            Ok(())
        }
        Command::Worker { blame, bank_ms, bank_per_turn_ms, call_limit_ms, entries, .. } => {
            let bank =
                TimeBank { initial: Duration::from_millis(bank_ms), per_turn: Duration::from_millis(bank_per_turn_ms) };
            worker::<G>(sources, &blame, bank, Duration::from_millis(call_limit_ms), &entries)
        }
        Command::NewBot { name, lang, abi_path, .. } => new_bot(G::NAME, &name, &lang, abi_path.as_deref()),
        Command::Probe { file, out } => {
            let report = match arena::loaders::native::inspect(&file) {
                Ok(info) => ProbeReport::Bot(info),
                Err(reason) => ProbeReport::Skipped(reason),
            };
            std::fs::write(&out, serde_json::to_vec(&report)?).with_context(|| format!("{}", out.display()))
        }
        Command::Play { seed, replay, isolate, game, .. } => {
            let iso = isolation(sources, isolate, game.bank()?)?;
            let found = playable(discover::<G>(sources, iso.as_deref()))?;
            if iso.is_some() {
                start_logs(sources, &found.entries);
            }
            let plan = Plan {
                config: game.config::<G>()?,
                record: replay.is_some(),
                bank: Some(game.bank()?),
                call_limit: Some(Duration::from_millis(sources.call_timeout_ms)),
                isolation: games_isolation(isolate, iso, &found.entries),
                ..Plan::new(0, 1)
            };
            let mut worker = plan.isolation.as_ref().map(|iso| Worker::new(Arc::clone(iso), &found.entries));
            // The game's first lineup (every entry; hex: the first two, humans then zombies).
            let seats = G::lineup(found.entries.len(), 0);
            let (outcome, recorded) = tournament::play_one(worker.as_mut(), &found.entries, &seats, &plan, seed)
                .map_err(anyhow::Error::msg)?;
            if let (Some(path), Some(recorded)) = (&replay, recorded) {
                write_atomically(path, &recorded.to_bytes(), "the replay")?;
                println!("replay written to {}", path.display());
            }
            println!("game seed {seed}: {} {}", outcome.turns, G::TURNS);
            let seat_names = seat_labels::<G>();
            let mut order: Vec<usize> = (0..seats.len()).collect();
            if seat_names.is_empty() {
                order.sort_by_key(|&i| std::cmp::Reverse(outcome.scores[i]));
            }
            for &i in &order {
                let label = match seat_names {
                    // One entry alone plays every seat (hex: both sides).
                    [_, ..] if seats.len() == 1 => format!("  (played the {})", seat_names.join(" and the ")),
                    _ => seat_names.get(i).map_or(String::new(), |l| format!("  (played the {l})")),
                };
                println!("  {:<24} {}{label}", found.entries[seats[i]].name, outcome.scores[i]);
            }
            if seats.len() < found.entries.len() {
                println!(
                    "  ({} of {} entries seated: a {} game seats {}; `tournament` plays every lineup)",
                    seats.len(),
                    found.entries.len(),
                    G::NAME,
                    seats.len()
                );
            }
            let sources: Vec<(String, PathBuf)> =
                found.entries.iter().map(|e| (e.name.clone(), e.source.clone())).collect();
            print_problems(order.iter().map(|&i| (found.entries[seats[i]].name.as_str(), &outcome.stats[i])), &sources);
            Ok(())
        }
        Command::Tournament {
            rounds, seed, jobs, shard, json, csv, replay_dir, plot, report, isolate, game, ..
        } => {
            if let Some(p) = plot.as_ref().filter(|p| p.extension().is_none_or(|e| e != "svg")) {
                bail!("{}: the plot is drawn as SVG; give a file name ending in .svg", p.display());
            }
            // Every output is checked before the first game: a typo costs nothing.
            check_outputs(&[json.as_deref(), csv.as_deref(), plot.as_deref()], &[replay_dir.as_deref()])?;
            let mut report =
                report.as_deref().map(arena::report::Report::create).transpose().map_err(anyhow::Error::msg)?;
            let iso = isolation(sources, isolate, game.bank()?)?;
            let found = playable(discover::<G>(sources, iso.as_deref()))?;
            if iso.is_some() {
                start_logs(sources, &found.entries);
            }
            let jobs = jobs.map_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()), |j| j as usize);
            // Games in the whole tournament: rounds times the game's games per round
            // (hex: every ordered pair of entries each round).
            let rounds = rounds * G::games_per_round(found.entries.len());
            let plan: Plan<G> = Plan {
                seed,
                rounds,
                shard,
                jobs,
                config: game.config::<G>()?,
                record: replay_dir.is_some() || report.is_some(),
                bank: Some(game.bank()?),
                call_limit: Some(Duration::from_millis(sources.call_timeout_ms)),
                isolation: games_isolation(isolate, iso, &found.entries),
                with_entry: None,
            };
            if let Some(dir) = &replay_dir {
                std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
            }
            let mut replay_error = None;
            let stop = stop_on_ctrl_c()?;
            // What a second Ctrl-C (quit now) still writes: the games finished so far.
            let finished: Arc<std::sync::Mutex<Vec<tournament::GameRecord>>> = Arc::default();
            {
                let (finished, names) =
                    (Arc::clone(&finished), found.entries.iter().map(|e| e.name.clone()).collect::<Vec<_>>());
                let (json, csv) = (json.clone(), csv.clone());
                let plan = Plan::<G> { shard, config: plan.config.clone(), ..Plan::new(seed, rounds) };
                on_quit(Box::new(move || {
                    let games = finished.lock().map(|g| g.clone()).unwrap_or_default();
                    let result = tournament::summarise(G::NAME, G::RANKING, &names, seed, rounds, games).of_plan(&plan);
                    let _ = write_results(&result, json.as_deref(), csv.as_deref());
                }));
            }
            let total = (0..rounds).filter(|&i| shard.has(i)).count() as u64;
            if let Some(report) = &mut report {
                report.start(&found.entries, &plan, total);
            }
            let mut progress = Progress::new(total, &found.entries);
            let started = Instant::now();
            let result = tournament::run(&found.entries, &plan, &stop, |g, replay| {
                progress.game(g);
                if let Ok(mut f) = finished.lock() {
                    f.push(g.clone());
                }
                if let Some(report) = &mut report {
                    report.game(g, replay.as_ref());
                }
                if let (Some(dir), Some(replay)) = (&replay_dir, replay) {
                    let path = dir.join(format!("game-{:05}-{}.zrpl", g.index, g.seed));
                    if let Err(e) = write_atomically(&path, &replay.to_bytes(), "the replay") {
                        replay_error.get_or_insert(e);
                    }
                }
            });
            progress.finish();
            let secs = started.elapsed().as_secs_f64();
            if result.games.len() <= 20 {
                for g in &result.games {
                    println!("game {:>4}  seed {:>20}  {:>5} {}", g.index, g.seed, g.turns, G::TURNS);
                }
            }
            let sources: Vec<(String, PathBuf)> =
                found.entries.iter().map(|e| (e.name.clone(), e.source.clone())).collect();
            print_leaderboard(&result, &sources);
            if let Some(iso) = &plan.isolation {
                let _ = std::fs::remove_dir_all(&iso.scratch);
            }
            println!(
                "{} of {} games played in {:.1} s ({}, {} jobs){}",
                result.played,
                total,
                secs,
                rate_text(result.played, secs),
                jobs,
                if result.played < total { " -- interrupted" } else { "" }
            );
            // Each output is written on its own: one that fails costs only itself.
            let mut failures: Vec<anyhow::Error> = replay_error.into_iter().collect();
            if let Some(path) = plot {
                let written = arena::plot::score_boxplot_svg(&result)
                    .map_err(anyhow::Error::msg)
                    .and_then(|svg| write_atomically(&path, svg.as_bytes(), "the plot"));
                match written {
                    Ok(()) => println!("plot written to {}", path.display()),
                    Err(e) => failures.push(e),
                }
            }
            if let Some(dir) = &replay_dir {
                println!("replays written to {}", dir.display());
            }
            failures.extend(write_results(&result, json.as_deref(), csv.as_deref()).err());
            if let Some(report) = &mut report {
                match report.finish(&result) {
                    Ok(index) => println!("report written to {}", index.display()),
                    Err(e) => failures.push(anyhow::Error::msg(e)),
                }
            }
            outputs_failed(failures)?;
            exit_if_lost(&result);
            Ok(())
        }
        Command::Replay { file, html, json } => {
            let bytes = std::fs::read(&file).with_context(|| format!("{}: cannot read", file.display()))?;
            if let Some(out) = &json {
                let value = arena::games::turns::replay_json(&bytes).with_context(|| file.display().to_string())?;
                let text = serde_json::to_vec(&value)?;
                if out.as_os_str() == "-" {
                    std::io::stdout().write_all(&text).and_then(|()| std::io::stdout().write_all(b"\n"))?;
                } else {
                    write_atomically(out, &text, "the JSON")?;
                    println!("{}: turn by turn written to {}", file.display(), out.display());
                }
                if html.is_none() {
                    return Ok(());
                }
            }
            let html = html.unwrap_or_else(|| file.with_extension("html"));
            let game = arena::replay::game_of(&bytes).with_context(|| file.display().to_string())?;
            with_game!(game.as_str(), R => replay_page::<R>(&file, &bytes, &html),
                _ => bail!("{}: a replay of {game:?}, a game this program does not know", file.display()))
        }
        Command::Check { file, vs, games, seed, game, .. } => check::<G>(sources, &file, &vs, games, seed, &game),
        Command::Bench { seconds, only, games, steps, isolation, .. } => {
            bench::<G>(sources, seconds, only, games, steps, isolation)
        }
        Command::Merge { inputs, json, csv, partial } => {
            let parts = inputs
                .iter()
                .map(|path| {
                    let bytes = std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))?;
                    let part = serde_json::from_slice::<TournamentResult>(&bytes)
                        .with_context(|| format!("{}: not a results file", path.display()))?;
                    Ok((path.display().to_string(), part))
                })
                .collect::<Result<Vec<_>>>()?;
            let result = tournament::merge_named(parts, partial)?;
            print_leaderboard(&result, &[]);
            let missing = result.rounds - result.played;
            println!(
                "{} of {} games merged{}",
                result.played,
                result.rounds,
                if missing > 0 { format!(" -- {missing} missing") } else { String::new() }
            );
            write_results(&result, json.as_deref(), csv.as_deref())?;
            exit_if_lost(&result);
            Ok(())
        }
    }
}

/// Writes the viewer page of a replay of game `G`.
fn replay_page<G: Game>(file: &Path, bytes: &[u8], html: &Path) -> Result<()> {
    let replay = arena::replay::Replay::<G>::from_bytes(bytes).with_context(|| file.display().to_string())?;
    let page = G::viewer_page(&replay).with_context(|| file.display().to_string())?;
    write_atomically(html, page.as_bytes(), "the viewer page")?;
    let h = &replay.header;
    println!(
        "{}: {} replay, seed {}, {} entries, {} {}; viewer written to {}",
        file.display(),
        h.game,
        h.seed,
        h.names.len(),
        h.turns,
        G::TURNS,
        html.display()
    );
    Ok(())
}

/// The performance workloads of game `G` (docs/performance.md), or (`--isolation`) what
/// isolation costs; each line printed as soon as it is measured.
fn bench<G: Game>(
    sources: &Sources,
    seconds: f64,
    only: Option<String>,
    games: u64,
    steps: bool,
    isolation_cost: bool,
) -> Result<()> {
    let opts = arena::bench::BenchOptions {
        paths: search_paths(sources),
        limits: script_limits(sources),
        time: Duration::from_secs_f64(seconds),
        only,
        games,
        steps,
    };
    let mut print = |line: String| println!("{line}");
    if isolation_cost {
        let iso = isolation(sources, Isolate::On, TimeBank::default())?.context("isolation is on")?;
        arena::games::isolation_tax(&opts, &iso, &mut print)?;
        let _ = std::fs::remove_dir_all(&iso.scratch);
    } else {
        arena::games::bench(G::NAME, &opts, &mut print)?;
    }
    Ok(())
}

/// `arena check`: the bot at `file` against `vs` (or the usual bots) over `games`
/// seeded games; one short report; an error (non-zero exit) when the bot is broken:
/// not loadable, disqualified in a game, or failing more than 1% of its calls.
fn check<G: Game>(
    sources: &Sources,
    file: &Path,
    vs: &[PathBuf],
    games: u64,
    seed: u64,
    opts: &GameOptions,
) -> Result<()> {
    let started = std::time::SystemTime::now();
    let iso = isolation(sources, Isolate::Auto, opts.bank()?)?;
    let limits = script_limits(sources);
    let load = |paths: Vec<PathBuf>| {
        discover_in::<G>(&SearchPaths { plugins: paths.clone(), scripts: paths }, &limits, iso.as_deref())
    };
    println!("checking {} ({})", file.display(), G::NAME);
    let mine = load(vec![file.to_owned()]);
    let Some(bot) = mine.entries.into_iter().next() else {
        let why = mine
            .skipped
            .first()
            .map_or("not a bot file (a library, a .lua or .rhai script, or an executable)".to_owned(), |s| {
                s.reason.clone()
            });
        bail!("{}: not loaded: {why}", file.display());
    };
    println!("  loaded: {} ({})", bot.name, bot.kind);
    let others = if vs.is_empty() { discover::<G>(sources, iso.as_deref()) } else { load(vs.to_vec()) };
    let mut entries = vec![bot.clone()];
    entries.extend(others.entries.into_iter().filter(|e| e.name != bot.name && e.source != bot.source));
    if entries.len() < 2 {
        println!("  (no opponents found: it plays alone)");
    }
    let rounds = games * G::games_per_round(entries.len());
    let plan = Plan {
        seed,
        rounds,
        jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
        config: opts.config::<G>()?,
        record: true,
        bank: Some(opts.bank()?),
        call_limit: Some(Duration::from_millis(sources.call_timeout_ms)),
        isolation: games_isolation(Isolate::Auto, iso.clone(), &entries),
        // Only the games that seat the bot (hex: its pairs, not the others' pairs).
        with_entry: Some(0),
        ..Plan::new(seed, rounds)
    };
    if plan.isolation.is_some() {
        start_logs(sources, &entries);
    }
    let total = plan.indices(entries.len()).len() as u64;
    let labels = seat_labels::<G>();
    if labels.len() == 2 {
        println!(
            "  playing {total} games: {games} round{} as the {} and as the {} against each of {} opponents",
            if games == 1 { "" } else { "s" },
            labels[0],
            labels[1],
            entries.len() - 1
        );
    } else {
        println!("  playing {total} games");
    }
    let mut progress = Progress::new(total, &entries);
    // The bot's worst game (lowest score, the first of equals), kept as a replay.
    let mut worst: Option<(u32, u64, u64, Vec<u8>)> = None;
    let result = tournament::run(&entries, &plan, &AtomicBool::new(false), |g, replay| {
        progress.game(g);
        if let (Some(&score), Some(replay)) = (g.scores.get(&bot.name), replay) {
            if worst.as_ref().is_none_or(|w| (score, g.index) < (w.0, w.1)) {
                worst = Some((score, g.index, g.seed, replay.to_bytes()));
            }
        }
    });
    progress.finish();
    if let Some(iso) = &iso {
        let _ = std::fs::remove_dir_all(&iso.scratch);
    }
    let Some(rank) = result.leaderboard.iter().position(|s| s.name == bot.name) else {
        bail!("{}: it played no game", file.display());
    };
    let me = &result.leaderboard[rank];
    let s = &me.stats;
    println!(
        "  played {} games against {} other entries: rank {} of {} (mean {:.2}, median {:.1}, min {}, max {})",
        result.played,
        entries.len() - 1,
        rank + 1,
        result.leaderboard.len(),
        me.mean,
        me.median,
        me.min,
        me.max
    );
    println!(
        "  calls: {}, {:.1} us each on average (limit {} ms a call; bank {} s + {} s a turn)",
        s.calls, me.mean_call_micros, sources.call_timeout_ms, opts.time_bank, opts.time_per_turn
    );
    println!("  errors: {}, overruns: {}, disqualified in {} games", s.errors, s.overruns, s.disqualified);
    for m in &s.messages {
        println!("    {m}");
    }
    let log = sources.logs.join(format!("{}.log", bot.name));
    let written = std::fs::metadata(&log).and_then(|m| m.modified()).is_ok_and(|t| t >= started);
    if written {
        println!("  log: {}", log.display());
    } else {
        println!("  log: nothing written (print, stderr, or log!/zb_log for native bots, go to {})", log.display());
    }
    if let Some((score, index, game_seed, bytes)) = worst {
        let path = sources.logs.join(format!("check-{}-worst.zrpl", bot.name));
        std::fs::create_dir_all(&sources.logs).with_context(|| format!("{}: cannot create", sources.logs.display()))?;
        write_atomically(&path, &bytes, "the replay")?;
        println!(
            "  worst game: {index} (seed {game_seed}, score {score}): replay {} (arena replay {} to watch it)",
            path.display(),
            path.display()
        );
    }
    let broken = s.disqualified > 0 || (s.errors + s.overruns) * 100 > s.calls;
    if broken {
        bail!(
            "{}: broken: disqualified in {} games, {} of {} calls failed",
            file.display(),
            s.disqualified,
            s.errors + s.overruns,
            s.calls
        );
    }
    println!("  ok");
    Ok(())
}

/// Writes the JSON results and the CSV leaderboard, each on its own (one failing does
/// not keep the other from being written).
fn write_results(result: &TournamentResult, json: Option<&Path>, csv: Option<&Path>) -> Result<()> {
    let mut failures = Vec::new();
    if let Some(path) = json {
        let mut value = serde_json::to_value(result)?;
        with_seed_texts(&mut value);
        match write_atomically(path, &serde_json::to_vec_pretty(&value)?, "the results") {
            Ok(()) => println!("results written to {}", path.display()),
            Err(e) => failures.push(e),
        }
    }
    if let Some(path) = csv {
        match write_atomically(path, tournament::leaderboard_csv(result).as_bytes(), "the leaderboard") {
            Ok(()) => println!("leaderboard written to {}", path.display()),
            Err(e) => failures.push(e),
        }
    }
    outputs_failed(failures)
}

/// Adds `"seed_text"` beside every `"seed"` of the results (the tournament's and each
/// game's): 64-bit seeds lose precision as JSON numbers in JavaScript and jq, and
/// `play --seed` of a rounded seed plays another game.
fn with_seed_texts(value: &mut serde_json::Value) {
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
fn outputs_failed(failures: Vec<anyhow::Error>) -> Result<()> {
    match failures.len() {
        0 => Ok(()),
        _ => bail!("{}", failures.iter().map(|e| format!("{e:#}")).collect::<Vec<_>>().join("\nerror: ")),
    }
}

/// Checks, before anything is played, that every output file can be written (its
/// directory exists and takes a file) and creates every output directory; one line
/// per problem, all of them.
fn check_outputs(files: &[Option<&Path>], dirs: &[Option<&Path>]) -> Result<()> {
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

/// What a second Ctrl-C runs before the program quits (writing the finished games).
static ON_QUIT: std::sync::Mutex<Option<Box<dyn Fn() + Send>>> = std::sync::Mutex::new(None);

/// Set by a second Ctrl-C: the program then ends with its status (130), even when the
/// games in flight happen to finish while it writes the results.
static QUITTING: AtomicBool = AtomicBool::new(false);

fn on_quit(f: Box<dyn Fn() + Send>) {
    if let Ok(mut slot) = ON_QUIT.lock() {
        *slot = Some(f);
    }
}

/// A flag set by the first Ctrl-C (the games in flight finish, no new one starts); a
/// second Ctrl-C exits at once.
fn stop_on_ctrl_c() -> Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            QUITTING.store(true, Ordering::SeqCst);
            eprintln!("\nquitting: writing the results of the finished games");
            if let Ok(slot) = ON_QUIT.try_lock() {
                if let Some(write) = slot.as_ref() {
                    write();
                }
            }
            std::process::exit(130);
        }
        eprintln!("\nstopping: finishing the games in flight (Ctrl-C again to quit now)");
    })
    .context("cannot install the Ctrl-C handler")?;
    Ok(stop)
}

/// Progress of a tournament: a bar on a terminal, plain lines otherwise.
struct Progress {
    ranking: Ranking,
    bar: Option<ProgressBar>,
    names: Vec<String>,
    scores: Vec<Vec<u32>>,
    done: u64,
    total: u64,
    started: Instant,
    last_line: Instant,
}

impl Progress {
    fn new<G: Game>(total: u64, entries: &[Entry<G>]) -> Progress {
        let bar = std::io::stdout().is_terminal().then(|| {
            let bar = ProgressBar::new(total);
            bar.set_style(
                ProgressStyle::with_template("{bar:30} {pos}/{len} games  {per_sec}  ETA {eta}  leader: {msg}")
                    .expect("a valid template"),
            );
            bar
        });
        let names: Vec<String> = entries.iter().map(|e| e.name.clone()).collect();
        let scores = vec![Vec::new(); names.len()];
        Progress {
            ranking: G::RANKING,
            bar,
            names,
            scores,
            done: 0,
            total,
            started: Instant::now(),
            last_line: Instant::now(),
        }
    }

    /// The entry ahead so far, by the game's ranking key.
    fn leader(&self) -> String {
        let key = |scores: &[u32]| match self.ranking {
            Ranking::Median => tournament::median(scores),
            Ranking::Mean => tournament::mean(scores),
            Ranking::Total => scores.iter().map(|&s| f64::from(s)).sum(),
            Ranking::Pairs => tournament::mean(scores),
        };
        let best = (0..self.names.len())
            .map(|i| (key(&self.scores[i]), i))
            .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)));
        let what = format!("{:?}", self.ranking).to_lowercase();
        best.map_or_else(String::new, |(m, i)| format!("{} ({what} {m:.1})", self.names[i]))
    }

    fn game(&mut self, g: &tournament::GameRecord) {
        self.done += 1;
        for (i, name) in self.names.iter().enumerate() {
            if let Some(&s) = g.scores.get(name) {
                self.scores[i].push(s);
            }
        }
        if let Some(bar) = &self.bar {
            bar.set_message(self.leader());
            bar.inc(1);
        } else if self.last_line.elapsed().as_secs() >= 5 || self.done == self.total {
            self.last_line = Instant::now();
            let rate = rate_text(self.done, self.started.elapsed().as_secs_f64());
            eprintln!("{}/{} games, {rate}, leader: {}", self.done, self.total, self.leader());
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// The directories to search: those given, or the defaults that exist.
fn search_paths(sources: &Sources) -> SearchPaths {
    let or_default = |dirs: &[PathBuf], default: &str| {
        if dirs.is_empty() {
            vec![PathBuf::from(default)].into_iter().filter(|d| d.is_dir()).collect()
        } else {
            dirs.to_vec()
        }
    };
    SearchPaths { plugins: or_default(&sources.plugins, "plugins"), scripts: or_default(&sources.scripts, "scripts") }
}

fn script_limits(sources: &Sources) -> ScriptLimits {
    let sandbox = match sources.sandbox {
        SandboxMode::None => arena::process::Sandbox::None,
        SandboxMode::Bwrap => arena::process::Sandbox::Bwrap { writable: Vec::new() },
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
fn start_logs<G: Game>(sources: &Sources, entries: &[Entry<G>]) {
    for e in entries {
        let _ = std::fs::remove_file(sources.logs.join(format!("{}.log", e.name)));
    }
}

/// The entries; with isolation, native libraries are only probed in child processes.
fn discover<G: Game>(sources: &Sources, iso: Option<&Isolation>) -> Discovery<G> {
    discover_in(&search_paths(sources), &script_limits(sources), iso)
}

/// The entries found in `paths`; with isolation, native libraries are only probed.
fn discover_in<G: Game>(paths: &SearchPaths, limits: &ScriptLimits, iso: Option<&Isolation>) -> Discovery<G> {
    match iso {
        Some(iso) => loaders::discover_with(paths, limits, &|p| arena::isolate::probe::<G>(iso, p)),
        None => loaders::discover(paths, limits),
    }
}

/// How to start workers that find the same entries as this process.
fn isolation(sources: &Sources, isolate: Isolate, bank: TimeBank) -> Result<Option<Arc<Isolation>>> {
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
            // A worker runs inside the sandbox itself (below): its program bots need no
            // second one (nor could they have it: bwrap does not nest here).
            ("--sandbox", "none".to_owned()),
        ]
        .into_iter()
        .flat_map(|(k, v)| [k.into(), v.into()]),
    );
    args.extend(["--logs".into(), sources.logs.clone().into()]);
    let scratch = std::env::temp_dir().join(format!("zombies-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).with_context(|| format!("{}: cannot create", scratch.display()))?;
    let program = std::env::current_exe().context("cannot find this program to start workers")?;
    let call_limit = Duration::from_millis(sources.call_timeout_ms);
    let memory = sources.worker_memory_mib << 20;
    let processes = sources.worker_processes;
    // Under bwrap, workers write only their scratch directory and the logs.
    let sandbox = match sources.sandbox {
        SandboxMode::None => arena::process::Sandbox::None,
        SandboxMode::Bwrap => {
            std::fs::create_dir_all(&sources.logs)
                .with_context(|| format!("{}: cannot create the log directory", sources.logs.display()))?;
            arena::process::Sandbox::Bwrap { writable: vec![sources.logs.clone()] }
        }
    };
    Ok(Some(Arc::new(Isolation { program, args, bank, call_limit, scratch, memory, processes, sandbox })))
}

/// The `__worker` command: loads the isolating host's entries once, then plays the
/// games it asks for until it closes the worker's stdin.
fn worker<G: Game>(
    sources: &Sources,
    blame: &Path,
    bank: TimeBank,
    call_limit: Duration,
    files: &[PathBuf],
) -> Result<()> {
    // A worker has a process group of its own, so a terminal's Ctrl-C does not reach
    // it; an interrupt sent to it anyway is ignored too: the host decides when to
    // stop, and a worker dying of it would be blamed on whichever bot was running.
    ctrlc::set_handler(|| {}).context("cannot ignore Ctrl-C")?;
    // Answers go out on the original stdout; from now on fd 1 is stderr, so that
    // nothing a bot prints can be taken for an answer.
    let answers = private_stdout().context("cannot set up the worker's answer pipe")?;
    let limits = ScriptLimits { log_append: true, ..script_limits(sources) };
    let entries = files
        .iter()
        .map(|f| {
            let loaded = if loaders::native::is_library_name(f) {
                loaders::native::load::<G>(f, &limits)
            } else if loaders::scripts::is_script_name(f) {
                loaders::scripts::load::<G>(f, &limits).unwrap_or_else(|| Err("not a bot file".to_owned()))
            } else {
                loaders::declared_game(f).and_then(|d| loaders::program::load::<G>(f, &limits, d.persistent))
            };
            loaded.map_err(|reason| anyhow::anyhow!("{}: {reason}", f.display()))
        })
        .collect::<Result<Vec<_>>>()?;
    let blame = BlamePage::open(blame).with_context(|| format!("{}: cannot open the blame page", blame.display()))?;
    arena::isolate::serve(&entries, &blame, bank, call_limit, std::io::stdin().lock(), answers)?;
    Ok(())
}

/// A writer on the process's original stdout, with fd 1 pointed at stderr instead.
#[cfg(unix)]
fn private_stdout() -> std::io::Result<std::fs::File> {
    use std::os::fd::FromRawFd;
    // SAFETY: plain descriptor calls on this process's own stdout and stderr, before
    // any bot code runs; the duplicate is owned by the returned File alone.
    unsafe {
        // Close-on-exec: no program bot the worker starts inherits the answer channel.
        let fd = libc::fcntl(1, libc::F_DUPFD_CLOEXEC, 3);
        if fd < 0 || libc::dup2(2, 1) < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(std::fs::File::from_raw_fd(fd))
    }
}

#[cfg(not(unix))]
fn private_stdout() -> std::io::Result<std::io::Stdout> {
    Ok(std::io::stdout())
}

/// `new-bot`: writes the bot and says how to build and play it.
fn new_bot(game: &str, name: &str, lang: &str, abi_path: Option<&Path>) -> Result<()> {
    let request = arena::kit::Request { name, lang, game, parent: Path::new("."), abi_path };
    let written = arena::kit::new_bot(&request).map_err(anyhow::Error::msg)?;
    println!("wrote {name}/ ({lang}, game {game}): {}", written.files.join(", "));
    println!("next (README.md says more):");
    if let Some(build) = &written.build {
        println!("  cd {name} && {build} && cd ..");
    }
    println!("  arena --game {game} {} list", written.find);
    println!("  arena --game {game} {} play --seed 1", written.find);
    Ok(())
}

/// Reports skipped files (one line each) and insists on at least one entry.
fn playable<G: Game>(discovery: Discovery<G>) -> Result<Discovery<G>> {
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

fn list<G: Game>(discovery: &Discovery<G>) {
    println!("{} entries ({}):", discovery.entries.len(), G::NAME);
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

fn print_leaderboard(result: &TournamentResult, sources: &[(String, PathBuf)]) {
    println!();
    if result.ranking == Ranking::Pairs {
        println!(
            "{:<4} {:<20} {:>6} {:>9} {:>9}   (survival as humans: mean over rounds, summed over opponents)",
            "rank", "entry", "points", "margin", "survival"
        );
        for (rank, s) in result.leaderboard.iter().enumerate() {
            println!("{:<4} {:<20} {:>6.1} {:>9.1} {:>9.1}", rank + 1, s.name, s.points, s.margin, s.survival);
        }
        println!();
    }
    let lost = result.leaderboard.iter().any(|s| s.lost > 0);
    println!(
        "{:<4} {:<20} {:>7} {:>7} {:>15} {:>8} {:>5} {:>5} {:>10} {:>8} {:>7} {:>8} {:>4}",
        "rank",
        "entry",
        if lost { "games*" } else { "games" },
        "median",
        "95% CI",
        "mean",
        "min",
        "max",
        "calls",
        "us/call",
        "errors",
        "overruns",
        "out"
    );
    for (rank, s) in result.leaderboard.iter().enumerate() {
        println!(
            "{:<4} {:<20} {:>7} {:>7.1} {:>15} {:>8.2} {:>5} {:>5} {:>10} {:>8.2} {:>7} {:>8} {:>4}",
            rank + 1,
            s.name,
            if s.lost > 0 { format!("{}-{}", s.games + s.lost, s.lost) } else { s.games.to_string() },
            s.median,
            format!("[{:.1}, {:.1}]", s.median_ci_low, s.median_ci_high),
            s.mean,
            s.min,
            s.max,
            s.stats.calls,
            s.mean_call_micros,
            s.stats.errors,
            s.stats.overruns,
            s.stats.disqualified
        );
    }
    let ranked = match result.ranking {
        Ranking::Median => "median score, then mean",
        Ranking::Mean => "mean score, then median",
        Ranking::Total => {
            "total points, then the mean distance of the best copy to the target (nearer first), then mean"
        }
        Ranking::Pairs => "match points (per opponent: win 1, draw 1/2), then margin, then survival",
    };
    println!(
        "(ranked by {ranked}; out: games in which the entry was disqualified: it crashed, hung, or spent its time bank)"
    );
    if lost {
        println!("(games*: N-L: the entry was to play N games, L of which could not be played, listed below)");
    }
    print_problems(result.leaderboard.iter().map(|s| (s.name.as_str(), &s.stats)), sources);
    for f in &result.failed {
        let who = if f.entries.is_empty() { String::new() } else { format!(" [{}]", f.entries.join(", ")) };
        println!("game {} (seed {}){who} could not be played: {}", f.index, f.seed, f.reason);
    }
}

/// The exit status of a tournament (or merge) whose results lack games that could not
/// be played (the results hold every other game): 3, distinct from an error's 1.
const EXIT_LOST_GAMES: i32 = 3;

/// Ends the process with [`EXIT_LOST_GAMES`] after a last line saying so, when games
/// were lost.
fn exit_if_lost(result: &TournamentResult) {
    if !result.failed.is_empty() {
        println!(
            "{} game(s) could not be played and are not in the results (listed above, and under \"failed\" in the JSON); exit status {EXIT_LOST_GAMES}",
            result.failed.len()
        );
        let _ = std::io::stdout().flush();
        std::process::exit(EXIT_LOST_GAMES);
    }
}

/// One line per entry that made errors, overran or was disqualified: its file, the
/// counts and its first distinct messages (the same after `play` and a tournament).
fn print_problems<'a>(
    entries: impl Iterator<Item = (&'a str, &'a arena::bot::CallStats)>,
    sources: &[(String, PathBuf)],
) {
    for (name, s) in entries.filter(|(_, s)| s.errors + s.overruns + s.disqualified > 0) {
        let file =
            sources.iter().find(|(n, _)| n == name).map_or(String::new(), |(_, p)| format!(" ({})", p.display()));
        println!(
            "{name}{file}: {} errors, {} over budget/time/memory, disqualified in {} games, in {} calls; first: {}",
            s.errors,
            s.overruns,
            s.disqualified,
            s.calls,
            s.messages.join(" | ")
        );
    }
}

/// Writes `bytes` (`what`: "the results", "the plot", ...) to `path` through a
/// temporary file in the same directory and a rename, so that an output is never seen
/// half-written.
fn write_atomically(path: &Path, bytes: &[u8], what: &str) -> Result<()> {
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

/// Games per second, or seconds per game when games are slower than one a second (a rate
/// of "0.0 games/s" says nothing).
fn rate_text(games: u64, secs: f64) -> String {
    if games == 0 {
        return "no game finished yet".to_owned();
    }
    let rate = games as f64 / secs.max(1e-9);
    if rate >= 1.0 { format!("{rate:.1} games/s") } else { format!("{:.1} s/game", secs / games as f64) }
}

/// What each seat plays in a game that seats entries in roles (hex: the first seat
/// plays the humans, the second the zombies); empty for games where every seat is alike.
fn seat_labels<G: Game>() -> &'static [&'static str] {
    match (G::RANKING, arena::games::seat_roles(G::NAME)) {
        (Ranking::Pairs, []) => &["first seat", "second seat"],
        (Ranking::Pairs, roles) => roles,
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::rate_text;

    #[test]
    fn a_slow_rate_is_given_in_seconds_per_game_never_as_zero_games_per_second() {
        assert_eq!(rate_text(3, 120.0), "40.0 s/game");
        assert_eq!(rate_text(30, 10.0), "3.0 games/s");
        assert_eq!(rate_text(0, 10.0), "no game finished yet");
    }
}
