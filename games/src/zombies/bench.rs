//! Zombies' performance workloads (`arena bench`, `docs/performance.md`): the engine with
//! native, Lua and Rhai bots at 20 and 1,000 entries, measured single-threaded in turns
//! per second and time per bot call, step by step with `--steps`, and whole games per
//! second on one thread versus all cores; and what isolation costs (`--isolation`).
//!
//! This module builds workloads and measures them, handing each line of the report to
//! the caller; it prints nothing. Performance goals live in `docs/performance.md`, never
//! in timed tests.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use rand::SeedableRng;
use zombies_plugin_abi::abi_stable::std_types::{RSlice, RStr};
use zombies_plugin_abi::{Context, Id};

use super::{Board, Config, Engine, GameRng, Zombies, random_source};
use crate::bench::{BenchError, BenchOptions, peak_rss_mib};
use crate::bot::{CallStats, EntryKind};
use crate::isolate::Isolation;
use crate::limits::TimeBank;
use crate::loaders::{ScriptLimits, SearchPaths, discover};
use crate::play::{make_bots, play_game};
use crate::tournament::{self, Plan};

/// A zombies entry (the workloads below are zombies games).
type Entry = crate::bot::Entry<Zombies>;

/// A named set of entries.
#[derive(Debug, Clone)]
pub struct Workload {
    /// E.g. `W20 native`.
    pub name: String,
    /// The entries, each fielding 50 players.
    pub entries: Vec<Entry>,
}

/// `stayers` entries that always stay and `walkers` that move at random, made from
/// one entry of each behaviour.
pub fn field(name: &str, stay: &Entry, walk: &Entry, stayers: usize, walkers: usize) -> Workload {
    let mut entries: Vec<Entry> = (0..stayers).map(|i| stay.renamed(format!("Stay{i}"))).collect();
    entries.extend((0..walkers).map(|i| walk.renamed(format!("Walk{i}"))));
    Workload { name: name.to_owned(), entries }
}

/// The native StandStill and RandomWalker plugins, found among `entries`.
pub fn native_pair(entries: &[Entry]) -> Result<(Entry, Entry), String> {
    let find = |name: &str| {
        entries.iter().find(|e| e.name == name).cloned().ok_or_else(|| {
            format!("the native {name} plugin was not found (cargo build --release; --plugins target/release)")
        })
    };
    Ok((find("StandStill")?, find("RandomWalker")?))
}

/// Trivial script bots (stay / random move, each reading the context once), written to
/// `dir` and loaded: `(lua stay, lua walk, rhai stay, rhai walk)`.
pub fn script_pairs(dir: &Path) -> Result<[Entry; 4], String> {
    let files = [
        ("stay.lua", "function do_turn(ctx)\n  if ctx.bullets < 0 then return 'N' end\n  return 'STAY'\nend\n"),
        (
            "walk.lua",
            "function do_turn(ctx)\n  if ctx.bullets < 0 then return 'STAY' end\n  return random_move()\nend\n",
        ),
        ("stay.rhai", "fn do_turn(ctx) { if ctx.bullets < 0 { \"N\" } else { \"STAY\" } }\n"),
        ("walk.rhai", "fn do_turn(ctx) { if ctx.bullets < 0 { \"STAY\" } else { random_move() } }\n"),
    ];
    for (file, source) in files {
        std::fs::write(dir.join(file), source).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    // Discovery renames nothing: the Lua and Rhai files share stems, so the second of
    // each name is skipped as a duplicate; load each language from its own directory.
    let load = |ext: &str| -> Result<(Entry, Entry), String> {
        let sub = dir.join(ext);
        std::fs::create_dir_all(&sub).map_err(|e| format!("{}: {e}", sub.display()))?;
        for stem in ["stay", "walk"] {
            let file = format!("{stem}.{ext}");
            std::fs::rename(dir.join(&file), sub.join(&file)).map_err(|e| format!("{file}: {e}"))?;
        }
        let found = discover(&SearchPaths { plugins: vec![], scripts: vec![sub] }, &ScriptLimits::default());
        if let Some(s) = found.skipped.first() {
            return Err(s.to_string());
        }
        let get = |name: &str| found.entries.iter().find(|e| e.name == name).cloned().ok_or(format!("{name}.{ext}"));
        Ok((get("stay")?, get("walk")?))
    };
    let (lua_stay, lua_walk) = load("lua")?;
    let (rhai_stay, rhai_walk) = load("rhai")?;
    Ok([lua_stay, lua_walk, rhai_stay, rhai_walk])
}

/// Runs `f` with a fixed context, for measuring or exercising one bot call: player 1 of
/// entry `bench` at (10, 10) on a 29x29 board with 3 bullets at clock 0, a zombie just
/// east of it, and a seeded generator.
pub fn with_sample_context<R>(f: impl FnOnce(&Context<'_>) -> R) -> R {
    let mut board = Board::new(29);
    let me = Id { owner: 0, number: 1 };
    board.set(10, 10, me);
    board.set(11, 10, Id { owner: Id::ZOMBIE, number: 2 });
    let names = [RStr::from_str("bench")];
    let mut rng = GameRng::seed_from_u64(1);
    let ctx = Context {
        id: me,
        bullets: 3,
        clock: 0,
        x: 10,
        y: 10,
        board_size: 29,
        view: board.view(10, 10),
        names: RSlice::from_slice(&names),
        random: random_source(&mut rng),
    };
    f(&ctx)
}

/// What one workload measured.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Measurement {
    /// The workload.
    pub name: String,
    /// Games played.
    pub games: u64,
    /// Turns played, all games.
    pub turns: u64,
    /// Bot calls made.
    pub calls: u64,
    /// Wall-clock time of all games, single-threaded.
    pub seconds: f64,
    /// Turns per second.
    pub turns_per_sec: f64,
    /// Mean time of a bot call in microseconds (sampled: one call in 16), bot included.
    pub micros_per_call: f64,
    /// Most heap held by the playing thread at a game's end of turn, in MiB.
    pub peak_heap_mib: f64,
}

/// Plays games of `workload` one after the other on this thread until `min_time` has
/// passed (at least one game), with seeds 0, 1, 2, ...
pub fn measure(workload: &Workload, min_time: Duration) -> Measurement {
    let start = Instant::now();
    let (mut games, mut turns, mut peak) = (0u64, 0u64, 0isize);
    let mut stats = CallStats::default();
    while games == 0 || start.elapsed() < min_time {
        let base = crate::alloc_meter::thread_net();
        crate::alloc_meter::reset_peak();
        let outcome = play_game(&workload.entries, games, &Config::default());
        peak = peak.max(crate::alloc_meter::peak_since_reset() - base);
        games += 1;
        turns += u64::from(outcome.turns);
        for s in &outcome.stats {
            stats.merge(s);
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    Measurement {
        name: workload.name.clone(),
        games,
        turns,
        calls: stats.calls,
        seconds,
        turns_per_sec: turns as f64 / seconds,
        micros_per_call: stats.mean_micros(),
        peak_heap_mib: peak as f64 / f64::from(1 << 20),
    }
}

/// Games per second of `games` games of `workload` on `jobs` threads.
pub fn games_per_sec(workload: &Workload, games: u64, jobs: usize) -> f64 {
    let plan = Plan { jobs, ..Plan::new(1, games) };
    let start = Instant::now();
    tournament::run(&workload.entries, &plan, &AtomicBool::new(false), |_, _| {});
    games as f64 / start.elapsed().as_secs_f64()
}

pub use super::STEPS;

/// Where a workload's turns spend their time, step by step.
#[derive(Debug, Clone, serde::Serialize)]
pub struct StepProfile {
    /// The workload.
    pub name: String,
    /// Turns played, all games.
    pub turns: u64,
    /// Time spent in each step of [`STEPS`], all turns, in nanoseconds.
    pub nanos: [u64; 8],
}

impl StepProfile {
    /// Mean microseconds per turn spent in step `i` of [`STEPS`].
    pub fn micros_per_turn(&self, i: usize) -> f64 {
        self.nanos[i] as f64 / 1e3 / self.turns.max(1) as f64
    }
}

/// Plays games of `workload` like [`measure`], timing each step of every turn (two clock
/// reads per step, so the total is a little above an untimed run's).
pub fn step_profile(workload: &Workload, min_time: Duration) -> StepProfile {
    let start = Instant::now();
    let (mut games, mut turns, mut nanos) = (0u64, 0u64, [0u64; 8]);
    while games == 0 || start.elapsed() < min_time {
        let (mut bots, _) = make_bots(&workload.entries, |_, bot| bot);
        let names = workload.entries.iter().map(|e| e.name.clone()).collect();
        let mut game = Engine::new(names, games, Config::default());
        while !game.is_over() {
            let mut t = Instant::now();
            game.turn_observed(&mut bots, |i| {
                let now = Instant::now();
                nanos[i] += (now - t).as_nanos() as u64;
                t = now;
            });
            turns += 1;
        }
        games += 1;
    }
    StepProfile { name: workload.name.clone(), turns, nanos }
}

/// The workloads (`arena bench`): each measured for `opts.time`, then, with
/// `opts.steps`, step by step; then W20 native on one thread and on all cores.
pub fn run(opts: &BenchOptions, out: &mut dyn FnMut(String)) -> Result<(), BenchError> {
    let discovery = opts.discover::<Zombies>();
    let (stay, walk) = native_pair(&discovery.entries).map_err(BenchError::Setup)?;
    let dir = std::env::temp_dir().join(format!("zombies-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let [lua_stay, lua_walk, rhai_stay, rhai_walk] = script_pairs(&dir).map_err(BenchError::Setup)?;
    let workloads = [
        field("W20 native", &stay, &walk, 10, 10),
        field("W20 lua", &lua_stay, &lua_walk, 10, 10),
        field("W20 rhai", &rhai_stay, &rhai_walk, 10, 10),
        field("W1000 native", &stay, &walk, 500, 500),
    ];
    out(format!(
        "{:<14} {:>6} {:>8} {:>11} {:>9} {:>12} {:>9}",
        "workload", "games", "turns", "calls", "turns/s", "us/call", "peak MiB"
    ));
    let selected: Vec<_> = workloads.iter().filter(|w| opts.selects(&w.name)).collect();
    for w in &selected {
        let m = measure(w, opts.time);
        out(format!(
            "{:<14} {:>6} {:>8} {:>11} {:>9.0} {:>12.3} {:>9.1}",
            m.name, m.games, m.turns, m.calls, m.turns_per_sec, m.micros_per_call, m.peak_heap_mib
        ));
    }
    if opts.steps {
        out("\nmicroseconds per turn, step by step:".to_owned());
        out(format!("{:<14} {}", "workload", STEPS.map(|s| format!("{s:>9}")).concat()));
        for w in &selected {
            let p = step_profile(w, opts.time);
            let cols: String = (0..STEPS.len()).map(|i| format!("{:>9.2}", p.micros_per_turn(i))).collect();
            out(format!("{:<14} {cols}", p.name));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    if let Some(peak) = peak_rss_mib() {
        out(format!("process peak resident memory so far: {peak:.1} MiB"));
    }
    let games = opts.games;
    if games > 0 && opts.selects("jobs") {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let one = games_per_sec(&workloads[0], games, 1);
        let all = games_per_sec(&workloads[0], games, cores);
        out(format!(
            "W20 native, {games} games: {one:.1} games/s with --jobs 1, {all:.1} with --jobs {cores} ({:.2}x)",
            all / one
        ));
    }
    Ok(())
}

/// What isolation costs, in wall time, on three workloads played without workers, with
/// the long-lived shared worker of `iso`, and in lockstep (`--isolate strict`: a process
/// per entry and a referee) (`arena bench --isolation`); the games must be the same.
pub fn isolation_tax(opts: &BenchOptions, iso: &Arc<Isolation>, out: &mut dyn FnMut(String)) -> Result<(), BenchError> {
    let dir = std::env::temp_dir().join(format!("arena-tax-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    for i in 0..10 {
        std::fs::write(
            dir.join(format!("Stay{i}.lua")),
            "function do_turn(ctx)\n  if ctx.bullets < 0 then return 'N' end\n  return 'STAY'\nend\n",
        )?;
        std::fs::write(
            dir.join(format!("Walk{i}.lua")),
            "function do_turn(ctx)\n  if ctx.bullets < 0 then return 'STAY' end\n  return random_move()\nend\n",
        )?;
    }
    let lua = discover::<Zombies>(&SearchPaths { plugins: vec![], scripts: vec![dir.clone()] }, &opts.limits).entries;
    // Loaded here (for the games without workers; workers load the same files).
    let found = opts.discover::<Zombies>().entries;
    let natives: Vec<Entry> =
        found.iter().filter(|e| matches!(e.kind, EntryKind::Native | EntryKind::NativeC)).cloned().collect();
    if natives.is_empty() {
        return Err(BenchError::Setup(
            "no native zombies plugins found (cargo build --release; --plugins target/release)".to_owned(),
        ));
    }
    let bundled = format!("all {} entries found, 20 games", found.len());
    let workloads = [
        ("W20 Lua, 100 games".to_owned(), lua, 100, Config::default()),
        (bundled, found, 20, Config::default()),
        ("native-only, 400 short games".to_owned(), natives, 400, Config::default()),
    ];
    let strict = Arc::new(Isolation { lockstep: true, ..Isolation::clone(iso) });
    out(format!(
        "{:<32} {:>8} {:>8} {:>8} {:>8} {:>8}  same games",
        "workload (--jobs 1)", "off (s)", "on (s)", "strict", "on/off", "st/on"
    ));
    for (name, entries, rounds, config) in workloads {
        let time = |isolation: Option<Arc<Isolation>>| {
            let plan = Plan {
                config,
                bank: Some(TimeBank::default()),
                call_limit: Some(iso.call_limit),
                isolation,
                ..Plan::new(7, rounds)
            };
            let started = Instant::now();
            let result = tournament::run(&entries, &plan, &AtomicBool::new(false), |_, _| {});
            (started.elapsed().as_secs_f64(), result)
        };
        let (off, a) = time(None);
        let (on, b) = time(Some(Arc::clone(iso)));
        let (st, c) = time(Some(Arc::clone(&strict)));
        let same_as = |b: &tournament::TournamentResult| {
            a.games.len() == b.games.len()
                && a.games
                    .iter()
                    .zip(&b.games)
                    .all(|(x, y)| (x.seed, x.turns, &x.scores) == (y.seed, y.turns, &y.scores))
        };
        let same = same_as(&b) && same_as(&c);
        out(format!("{name:<32} {off:>8.2} {on:>8.2} {st:>8.2} {:>7.2}x {:>7.2}x  {same}", on / off, st / on));
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
