//! `arena ladder ...`: a contest kept in a database (`--db FILE`, SQLite, or `--db
//! postgres://...`, PostgreSQL) whose entries play rated games for as long as it runs.
//! `run` plays (rescanning the bot directories between batches; Ctrl-C ends after the
//! games in flight), `work` is one of many workers that play the ladder's games from the
//! database's queue (on many machines: a Slurm job array), `status` is the leaderboard,
//! `games` the stored games, `entry` one entry's versions, games and errors, `replay` a
//! stored game's viewer page, `add-entrant` a token for the contest server. Every
//! command but `run`, `work` and `add-entrant` has `--json`.
//!
//! Not here: the ladder itself (the crate `arena-ladder`: database, matchmaking,
//! ratings, the loop of batches), bot discovery (`bots`), the replay pages
//! (`replay`, each game's viewer).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context as _, Result};
use arena::game::Game;
use arena::tournament::Plan;
use arena_ladder::run::{DEFAULT_BATCH, DEFAULT_SEATS, Event, Settings, ensure_rated};
use arena_ladder::store::{self, Store};
use arena_ladder::work::{DEFAULT_LEASE, WorkSettings, worker_name};
use clap::{Args, Subcommand};

use super::bots::{discover, hidden_from_boxes, isolation, start_logs};
use super::options::{GameChoice, GameOptions, Isolate, SandboxMode, SourceArgs, Sources};
use super::terminal::stop_on_ctrl_c;

/// The options of `arena ladder`.
#[derive(Debug, Args)]
pub struct LadderArgs {
    #[command(subcommand)]
    pub command: LadderCommand,
}

/// The ladder's commands.
#[derive(Debug, Subcommand)]
pub enum LadderCommand {
    /// Play rated games, batch after batch, until --games are played or Ctrl-C (the
    /// games in flight finish and are kept). Bots added to or changed in the bot
    /// directories join at the next batch.
    Run(Box<RunArgs>),
    /// A worker: plays the ladder's games from the database's queue, as many workers as
    /// wanted on as many machines (a Slurm job array: scripts/slurm/ladder-workers.sbatch),
    /// until --until-games are stored or Ctrl-C. Each game is leased for a while and
    /// committed once; a killed worker's games are played again by the others. The first
    /// worker to find the queue empty schedules the next batch, as `run` would.
    Work(Box<WorkArgs>),
    /// The leaderboard: versions ranked by mu - 3 sigma, and the files that did not load.
    Status(StatusArgs),
    /// The stored games, newest first: seed, status, lineup and scores.
    Games(GamesArgs),
    /// One entry: its versions with their ratings, its games and its bots' errors.
    Entry(EntryArgs),
    /// A stored game's viewer page (one self-contained HTML file), from the database
    /// alone; with --json the game turn by turn.
    Replay(ReplayArgs),
    /// Create an entrant of the contest server (`arena serve`) and print its token, to
    /// give to the entrant (only its hash is stored); --admin: the host's token, which
    /// may retire any submitted bot.
    AddEntrant(AddEntrantArgs),
}

/// The options of `arena ladder add-entrant`.
#[derive(Debug, Args)]
pub struct AddEntrantArgs {
    /// The entrant's name: 1 to 32 letters, digits, - and _, starting with a letter.
    pub name: String,
    /// The database (an SQLite file, created when missing, or a postgres:// URL).
    #[arg(long, value_name = "FILE|URL")]
    pub db: PathBuf,
    /// The host's token: may retire any submitted bot.
    #[arg(long)]
    pub admin: bool,
}

/// The database option every ladder command takes.
#[derive(Debug, Clone, Args)]
pub struct DbArg {
    /// The ladder's database: an SQLite file (`run` and `work` create it when missing) or
    /// a PostgreSQL URL, postgres://USER[:PASSWORD]@HOST[:PORT]/DB (the database must
    /// exist; its tables are made when missing).
    #[arg(long, value_name = "FILE|URL")]
    pub db: PathBuf,
}

/// The options of `arena ladder run`.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Games to play, then stop [default: until Ctrl-C].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub games: Option<u64>,
    /// Games played at once (default: all cores). The games and ratings do not depend on it.
    #[arg(long, value_name = "J", value_parser = clap::value_parser!(u64).range(1..))]
    pub jobs: Option<u64>,
    /// The ladder's seed: game ID plays with a seed derived from it and ID.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Games scheduled at once; the directories are rescanned and the ratings updated
    /// between batches.
    #[arg(long, value_name = "B", default_value_t = DEFAULT_BATCH, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub batch: usize,
    /// Entries seated in a free-for-all game (all of them when fewer; games of pairs
    /// seat two).
    #[arg(long, value_name = "K", default_value_t = DEFAULT_SEATS, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(2..))]
    pub seats: usize,
    /// Do not store the games' replays (`ladder replay` then cannot show them).
    #[arg(long)]
    pub no_replays: bool,
    /// How games are isolated: auto (the default) and strict play each entry in a
    /// worker process and a box of its own, whatever the entries are (a ladder's change
    /// while it runs); on, one shared worker (bots you trust); off, in this process.
    #[arg(long, value_enum, default_value_t = Isolate::Auto)]
    pub isolate: Isolate,
    #[command(flatten)]
    pub game: GameOptions,
    #[command(flatten)]
    pub sources: SourceArgs,
    #[command(flatten)]
    pub which: GameChoice,
}

/// The options of `arena ladder work`.
#[derive(Debug, Clone, Args)]
pub struct WorkArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Schedule no more games once the database holds N games of the game (all workers
    /// together), and end when they are all committed [default: until Ctrl-C].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub until_games: Option<u64>,
    /// Games this worker plays at once (default: all cores, or SLURM_CPUS_ON_NODE).
    #[arg(long, value_name = "J", value_parser = clap::value_parser!(u64).range(1..))]
    pub jobs: Option<u64>,
    /// How long a leased game stays this worker's unless renewed (renewed every third of
    /// it while the game plays); a killed worker's games are played again after it.
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_LEASE.as_secs_f64(), value_parser = parse_lease)]
    pub lease: f64,
    /// The ladder's seed of the batches this worker schedules (give every worker the same).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Games per batch this worker schedules (give every worker the same).
    #[arg(long, value_name = "B", default_value_t = DEFAULT_BATCH, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub batch: usize,
    /// Entries seated in a free-for-all game this worker schedules.
    #[arg(long, value_name = "K", default_value_t = DEFAULT_SEATS, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(2..))]
    pub seats: usize,
    /// Do not store the games' replays.
    #[arg(long)]
    pub no_replays: bool,
    /// How games are isolated (as `ladder run`).
    #[arg(long, value_enum, default_value_t = Isolate::Auto)]
    pub isolate: Isolate,
    #[command(flatten)]
    pub game: GameOptions,
    #[command(flatten)]
    pub sources: SourceArgs,
    #[command(flatten)]
    pub which: GameChoice,
}

fn parse_lease(text: &str) -> std::result::Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s >= 0.2 => Ok(s),
        _ => Err(format!("{text:?}: a lease is a number of seconds, at least 0.2")),
    }
}

/// The options of `arena ladder status`.
#[derive(Debug, Args)]
pub struct StatusArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Also the retired versions.
    #[arg(long)]
    pub all: bool,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub which: GameChoice,
}

/// The options of `arena ladder games`.
#[derive(Debug, Args)]
pub struct GamesArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Only the games of this entry.
    #[arg(long, value_name = "NAME")]
    pub entry: Option<String>,
    /// At most this many games (the newest).
    #[arg(long, value_name = "N", default_value_t = 50)]
    pub limit: u64,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub which: GameChoice,
}

/// The options of `arena ladder entry`.
#[derive(Debug, Args)]
pub struct EntryArgs {
    /// The entry's name.
    pub name: String,
    #[command(flatten)]
    pub db: DbArg,
    /// At most this many of its games (the newest).
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub limit: u64,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub which: GameChoice,
}

/// The options of `arena ladder replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The game's id (`arena ladder games` lists them).
    pub game_id: i64,
    #[command(flatten)]
    pub db: DbArg,
    /// The page to write [default, without --json: game-ID.html].
    #[arg(long, value_name = "OUT.html")]
    pub html: Option<PathBuf>,
    /// Write the game turn by turn as JSON to this file (`-`: standard output).
    #[arg(long, value_name = "OUT.json")]
    pub json: Option<PathBuf>,
}

impl LadderArgs {
    /// The game and bot options given after the subcommand.
    pub fn after(&self) -> (Option<&GameChoice>, Option<&SourceArgs>) {
        match &self.command {
            LadderCommand::Run(a) => (Some(&a.which), Some(&a.sources)),
            LadderCommand::Work(a) => (Some(&a.which), Some(&a.sources)),
            LadderCommand::Status(a) => (Some(&a.which), None),
            LadderCommand::Games(a) => (Some(&a.which), None),
            LadderCommand::Entry(a) => (Some(&a.which), None),
            LadderCommand::Replay(_) | LadderCommand::AddEntrant(_) => (None, None),
        }
    }

    /// True for the commands that load bots.
    pub fn loads_bots(&self) -> bool {
        matches!(self.command, LadderCommand::Run(_) | LadderCommand::Work(_))
    }
}

/// Runs the ladder command for game `G`.
pub fn ladder<G: Game>(args: LadderArgs, sources: &Sources) -> Result<()> {
    match args.command {
        LadderCommand::Run(a) => run::<G>(*a, sources),
        LadderCommand::Work(a) => work::<G>(*a, sources),
        LadderCommand::Status(a) => status::<G>(a),
        LadderCommand::Games(a) => games::<G>(a),
        LadderCommand::Entry(a) => entry::<G>(a),
        LadderCommand::Replay(a) => replay(a),
        LadderCommand::AddEntrant(a) => add_entrant(a),
    }
}

/// `sources` with the directory of the SQLite database `db` hidden from every box (as
/// the bot directories are): the database, its `-wal` and `-shm` files and its lock
/// files, there, are never seen by a bot, which could otherwise read every replay and
/// token hash, and stop the ladder with a lock taken through a read-only descriptor
/// (issue #30). The entries' own files under that directory are bound back into their
/// boxes. When `db` is a link, the directory of every link on the way and of its target
/// too (SQLite follows links, even to a database it is about to create, and keeps its
/// `-wal` and `-shm` beside the target). Boxed, a database in a directory no
/// box can be kept out of (the root, or a system directory such as `/run`) is refused in
/// one line. A PostgreSQL database keeps no file here.
pub fn hide_database(sources: &Sources, db: &Path) -> Result<Sources> {
    let mut sources = sources.clone();
    if store::Backend::of(db) == store::Backend::Postgres {
        return Ok(sources);
    }
    let given = std::path::absolute(db).with_context(|| format!("{}: cannot resolve", db.display()))?;
    // The link followed by hand: SQLite follows one whose target does not exist yet
    // (and makes the database there), which `canonicalize` refuses.
    let mut files = vec![given.clone()];
    let mut file = given;
    while let Ok(target) = std::fs::read_link(&file) {
        file = match file.parent() {
            Some(dir) => std::path::absolute(dir.join(target))?,
            None => break,
        };
        if files.contains(&file) {
            break;
        }
        files.push(file.clone());
    }
    // Each directory as given and resolved (`..` and links in it: what the box covers).
    let dirs: Vec<PathBuf> = files
        .iter()
        .filter_map(|f| f.parent())
        .flat_map(|d| [Some(d.to_path_buf()), d.canonicalize().ok()])
        .flatten()
        .collect();
    sources.hidden.extend(dirs.iter().cloned());
    if sources.sandbox == SandboxMode::Bwrap {
        let covered = hidden_from_boxes(&sources);
        if let Some(dir) = dirs.iter().find(|d| !covered.contains(d)) {
            anyhow::bail!(
                "{}: the ladder's database is in {}, which boxes cannot be kept out of (the root or a system \
                 directory): move it to a directory of its own, e.g. /srv/arena/ladder.db",
                db.display(),
                dir.display()
            );
        }
    }
    Ok(sources)
}

fn run<G: Game>(args: RunArgs, sources: &Sources) -> Result<()> {
    let stop = stop_on_ctrl_c()?;
    play::<G>(args, sources, &stop)
}

/// Plays the ladder of `args` until its games are played or `stop` is set, printing
/// what joins, each batch's games and, at the end, the leaderboard (`ladder run`, and
/// the ladder of `arena serve`).
pub fn play<G: Game>(args: RunArgs, sources: &Sources, stop: &AtomicBool) -> Result<()> {
    let RunArgs { db, games, jobs, seed, batch, seats, no_replays, isolate, game, .. } = args;
    let db = db.db;
    let sources = &hide_database(sources, &db)?;
    let store = Store::open(&db, true)?;
    // No other ladder and no worker on the database.
    let _lock = store.ladder_lock(false)?;
    // A ladder's entries change while it runs: auto isolates whatever they are, each
    // entry in a process and a box of its own (strict).
    let iso = isolation(sources, isolate, game.bank()?)?;
    let jobs = jobs.map_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()), |j| j as usize);
    let plan = Plan::<G> {
        seed,
        jobs,
        config: game.config::<G>()?,
        record: !no_replays,
        bank: Some(game.bank()?),
        call_limit: Some(Duration::from_millis(sources.call_timeout_ms)),
        isolation: iso.clone(),
        ..Plan::new(seed, 0)
    };
    let settings = Settings { plan, batch, seats, games };
    let mut logs_started = false;
    let mut scan = || {
        let found = discover::<G>(sources, iso.as_deref());
        if iso.is_some() && !logs_started {
            start_logs(sources, &found.entries);
            logs_started = true;
        }
        found
    };
    let mut last_errors = None;
    let (mut batch_played, mut batch_lost, mut first_id, mut last_id) = (0u64, 0u64, i64::MAX, 0i64);
    let mut on_event = |e: Event<'_>| match e {
        Event::Scanned(synced, errors) => {
            if batch_played + batch_lost > 0 {
                outln!("games {first_id}-{last_id}: {batch_played} played, {batch_lost} lost");
                (batch_played, batch_lost, first_id, last_id) = (0, 0, i64::MAX, 0);
            }
            for name in &synced.new_entries {
                outln!("joined: {name}");
            }
            for name in &synced.new_versions {
                outln!("new version: {name} (its old version retired, its games kept)");
            }
            for (name, why) in &synced.gone {
                outln!("retired: {name} ({why}; its games kept)");
            }
            if last_errors.as_deref() != Some(errors) {
                for e in errors {
                    eprintln!("not loaded: {}: {}", e.path, e.reason);
                }
                last_errors = Some(errors.to_vec());
            }
        }
        Event::Game(row) => {
            match &row.result {
                Ok(_) => batch_played += 1,
                Err(why) => {
                    batch_lost += 1;
                    eprintln!("game {} lost: {why}", row.id);
                }
            }
            first_id = first_id.min(row.id);
            last_id = last_id.max(row.id);
        }
        Event::Scheduled { .. } | Event::Dropped(_) => {}
    };
    let summary = arena_ladder::run::run(&store, &settings, &mut scan, stop, &mut on_event);
    if batch_played + batch_lost > 0 {
        outln!("games {first_id}-{last_id}: {batch_played} played, {batch_lost} lost");
    }
    if let Some(iso) = &iso {
        let _ = std::fs::remove_dir_all(&iso.scratch);
    }
    let summary = summary?;
    print_board::<G>(&store.leaderboard(G::NAME, false)?);
    outln!(
        "{} games played, {} lost, in {} batches{}; `arena ladder status --db {}` shows the leaderboard",
        summary.played,
        summary.lost,
        summary.batches,
        if stop.load(Ordering::SeqCst) { " -- stopped" } else { "" },
        store.path().display()
    );
    Ok(())
}

fn work<G: Game>(args: WorkArgs, sources: &Sources) -> Result<()> {
    let stop = stop_on_ctrl_c()?;
    let WorkArgs { db, until_games, jobs, lease, seed, batch, seats, no_replays, isolate, game, .. } = args;
    let sources = &hide_database(sources, &db.db)?;
    let store = Store::open(&db.db, true)?;
    // Workers together, never beside a `ladder run`.
    let _lock = store.ladder_lock(true)?;
    let iso = isolation(sources, isolate, game.bank()?)?;
    let cpus = || {
        std::env::var("SLURM_CPUS_ON_NODE")
            .ok()
            .and_then(|n| n.trim().parse::<usize>().ok())
            .filter(|&n| n > 0)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    };
    let jobs = jobs.map_or_else(cpus, |j| j as usize);
    let plan = Plan::<G> {
        seed,
        jobs,
        config: game.config::<G>()?,
        record: !no_replays,
        bank: Some(game.bank()?),
        call_limit: Some(Duration::from_millis(sources.call_timeout_ms)),
        isolation: iso.clone(),
        ..Plan::new(seed, 0)
    };
    let name = worker_name();
    let settings = WorkSettings {
        plan,
        batch,
        seats,
        until: until_games,
        lease: Duration::from_secs_f64(lease),
        name: name.clone(),
    };
    outln!("worker {name} on {}: {jobs} games at once, leases of {lease} s", store.path().display());
    let mut logs_started = false;
    let mut scan = || {
        let found = discover::<G>(sources, iso.as_deref());
        if iso.is_some() && !logs_started {
            start_logs(sources, &found.entries);
            logs_started = true;
        }
        found
    };
    let mut last_errors = None;
    let mut on_event = |e: Event<'_>| match e {
        Event::Scanned(synced, errors) => {
            for name in &synced.new_entries {
                outln!("joined: {name}");
            }
            for name in &synced.new_versions {
                outln!("new version: {name} (its old version retired, its games kept)");
            }
            for (name, why) in &synced.gone {
                outln!("retired: {name} ({why}; its games kept)");
            }
            if last_errors.as_deref() != Some(errors) {
                for e in errors {
                    eprintln!("not loaded: {}: {}", e.path, e.reason);
                }
                last_errors = Some(errors.to_vec());
            }
        }
        Event::Scheduled { first, last } => outln!("scheduled games {first}-{last}"),
        Event::Game(row) => match &row.result {
            Ok((turns, _)) => outln!("game {} played ({turns} turns)", row.id),
            Err(why) => eprintln!("game {} lost: {why}", row.id),
        },
        Event::Dropped(id) => {
            eprintln!("game {id} not committed: its lease expired and another worker took it over")
        }
    };
    let summary = arena_ladder::work::work(&store, &settings, &mut scan, &stop, &mut on_event);
    if let Some(iso) = &iso {
        let _ = std::fs::remove_dir_all(&iso.scratch);
    }
    let summary = summary?;
    outln!(
        "worker {name}: {} games played, {} lost, {} batches scheduled{}",
        summary.played,
        summary.lost,
        summary.batches,
        if stop.load(Ordering::SeqCst) { " -- stopped" } else { "" }
    );
    Ok(())
}

/// A statistic and its interval, as the tournament's table shows them: `212.0 [208.5, 221.0]`
/// (match points per match with two decimals).
fn stat_text(stat: &arena_ladder::rating::Statistic, fine: bool) -> String {
    if fine {
        format!("{:.2} [{:.2}, {:.2}]", stat.value, stat.low, stat.high)
    } else {
        format!("{:.1} [{:.1}, {:.1}]", stat.value, stat.low, stat.high)
    }
}

fn print_board<G: Game>(board: &[store::Standing]) {
    let name = arena_ladder::rating::statistic_name(G::RANKING);
    let fine = G::RANKING == arena::game::Ranking::Pairs;
    let stats: Vec<String> = board.iter().map(|s| stat_text(&s.stat, fine)).collect();
    let header = format!("{name}, 95% interval");
    let width = stats.iter().map(String::len).chain([header.len()]).max().unwrap_or(0);
    outln!(
        "{:>4}  {:<24} {:>8} {:>6} {:>7} {:>6} {:>9} {:>10}  {}",
        "rank",
        "entry",
        "version",
        "games",
        "mu",
        "sigma",
        "mu-3sigma",
        "mean score",
        header
    );
    for (s, stat) in board.iter().zip(&stats) {
        outln!(
            "{:>4}  {:<24} {:>8} {:>6} {:>7.2} {:>6.2} {:>9.2} {:>10.2}  {}",
            s.rank,
            s.entry,
            &s.sha256[..8.min(s.sha256.len())],
            s.games,
            s.mu,
            s.sigma,
            s.conservative,
            s.mean_score,
            if s.active { stat.clone() } else { format!("{stat:<width$}  (retired)") }
        );
    }
}

fn status<G: Game>(args: StatusArgs) -> Result<()> {
    let store = Store::open(&args.db.db, false)?;
    ensure_rated::<G>(&store)?;
    let board = store.leaderboard(G::NAME, args.all)?;
    let errors = store.load_errors(G::NAME)?;
    let pairs = G::RANKING == arena::game::Ranking::Pairs;
    let top = arena_ladder::settled::top_versions(&board);
    let settled = arena_ladder::settled::top_places(&board, &store.played_games_of(G::NAME, &top)?, pairs);
    // The workers' queue: games scheduled and not committed yet, and those leased now.
    let queued = store.queued(G::NAME)?;
    let leased: Vec<&str> = queued.iter().filter(|q| q.held).filter_map(|q| q.worker.as_deref()).collect();
    let mut workers = leased.clone();
    workers.sort_unstable();
    workers.dedup();
    if args.json {
        let top_places = settled.as_ref().map(|d| serde_json::json!({ "line": d.line(), "settled": d }));
        let queue = serde_json::json!({
            "games": queued.iter().map(|q| q.id).collect::<Vec<_>>(), "leased": leased.len(), "workers": workers,
        });
        let value = serde_json::json!({
            "game": G::NAME, "statistic": arena_ladder::rating::statistic_name(G::RANKING),
            "leaderboard": board, "not_loaded": errors, "top_places": top_places, "queue": queue,
        });
        outln!("{}", serde_json::to_string_pretty(&value)?);
        return Ok(());
    }
    print_board::<G>(&board);
    if let Some(d) = &settled {
        outln!("top places: {}", d.line());
    }
    if let (Some(first), Some(last)) = (queued.first(), queued.last()) {
        outln!(
            "queue: {} games ({}-{}) scheduled for workers, {} of them playing now on {} workers",
            queued.len(),
            first.id,
            last.id,
            leased.len(),
            workers.len()
        );
    }
    for e in &errors {
        outln!("not loaded: {}: {}", e.path, e.reason);
    }
    Ok(())
}

fn print_game(g: &store::GameView) {
    let seats: Vec<String> = g
        .seats
        .iter()
        .map(|s| {
            let who = format!("{}@{}", s.entry, &s.sha256[..8.min(s.sha256.len())]);
            match s.score {
                Some(score) => format!("{who} {score}"),
                None => who,
            }
        })
        .collect();
    let what = match (&g.reason, g.turns) {
        (Some(why), _) => format!("lost: {why}"),
        (None, Some(t)) => format!("{t} turns"),
        (None, None) => g.status.clone(),
    };
    outln!("game {:>6}  seed {:>20}  {:<12} {}", g.id, g.seed, what, seats.join(", "));
}

fn games<G: Game>(args: GamesArgs) -> Result<()> {
    let store = Store::open(&args.db.db, false)?;
    let games = store.games(G::NAME, args.entry.as_deref(), args.limit)?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&games)?);
        return Ok(());
    }
    for g in &games {
        print_game(g);
    }
    Ok(())
}

fn entry<G: Game>(args: EntryArgs) -> Result<()> {
    let store = Store::open(&args.db.db, false)?;
    ensure_rated::<G>(&store)?;
    let e = store.entry(G::NAME, &args.name, args.limit)?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&e)?);
        return Ok(());
    }
    outln!("{} ({}, {})", e.name, e.kind, e.path);
    for v in &e.versions {
        outln!(
            "  version {:>4}  {}  {} bytes  {} games  mu {:.2}  sigma {:.2}  mean score {:.2}  {} {}  {}",
            v.id,
            &v.sha256[..12.min(v.sha256.len())],
            v.size,
            v.games,
            v.mu,
            v.sigma,
            v.mean_score,
            arena_ladder::rating::statistic_name(G::RANKING),
            stat_text(&v.stat, G::RANKING == arena::game::Ranking::Pairs),
            match &v.retired {
                Some(why) => format!("retired: {why}"),
                None if v.active => "active".to_owned(),
                None => "retired".to_owned(),
            }
        );
    }
    for g in &e.games {
        print_game(g);
        for s in g.seats.iter().filter(|s| s.entry == e.name) {
            let Some(stats) = &s.stats else { continue };
            let count = |k: &str| stats.get(k).and_then(|v| v.as_u64()).unwrap_or(0);
            let (errors, overruns, out) = (count("errors"), count("overruns"), count("disqualified"));
            if errors + overruns + out > 0 {
                let messages: Vec<&str> = stats
                    .get("messages")
                    .and_then(|m| m.as_array())
                    .map(|m| m.iter().filter_map(|v| v.as_str()).collect())
                    .unwrap_or_default();
                outln!(
                    "    {errors} errors, {overruns} overruns{}{}",
                    if out > 0 { ", disqualified" } else { "" },
                    if messages.is_empty() { String::new() } else { format!(": {}", messages.join("; ")) }
                );
            }
        }
    }
    Ok(())
}

fn replay(args: ReplayArgs) -> Result<()> {
    let store = Store::open(&args.db.db, false)?;
    let (game, bytes) = store.replay(args.game_id)?;
    // What ran: the seed and each seat's version (unless the JSON goes to standard output).
    if args.json.as_deref().is_none_or(|j| j.as_os_str() != "-") {
        print_game(&store.game(args.game_id)?);
    }
    let what = format!("{} game {}", store.path().display(), args.game_id);
    let html = match (&args.html, &args.json) {
        (Some(h), _) => Some(h.clone()),
        (None, None) => Some(PathBuf::from(format!("game-{}.html", args.game_id))),
        (None, Some(_)) => None,
    };
    super::replay::write_outputs(&what, &game, &bytes, html.as_deref(), args.json.as_deref())
        .with_context(|| format!("{game} replay of {what}"))
}

fn add_entrant(args: AddEntrantArgs) -> Result<()> {
    let store = Store::open(&args.db, true)?;
    let token = arena_server::submit::add_entrant(&store, &args.name, args.admin)
        .map_err(|e| anyhow::anyhow!("{}: {e}", store.path().display()))?;
    outln!("{token}");
    eprintln!(
        "entrant {}{} added to {}: the line above is its token, shown only now (the database keeps its hash)",
        args.name,
        if args.admin { " (host)" } else { "" },
        store.path().display()
    );
    Ok(())
}
