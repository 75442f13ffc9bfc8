//! Invisible target's performance workloads (`arena --game target bench`,
//! `docs/games/target.md`): whole 16-player games of random bots to their natural end
//! (one core), one wall placement (the eligibility DFS) at every stage of a game, and
//! program bots' answers to the seed protocol's line.
//!
//! This module builds workloads and measures them, handing each line of the report to
//! the caller; it prints nothing.

use std::path::Path;
use std::time::{Duration, Instant};

use rand::RngExt;
use zombies_plugin_abi::target::TargetContext;

use super::engine::{self, Engine};
use super::{Config, InvisibleTarget};
use crate::bench::{BenchError, BenchOptions, answer_micros, python, thread_cpu_millis};
use crate::bot::{Entry, EntryKind};
use crate::play::play_game;

/// Whole games of `entries` for at least `min_time`, one at a time on this thread.
#[derive(Debug, Clone, Copy)]
pub struct Games {
    /// Games played.
    pub games: u64,
    /// Mean rounds of a game.
    pub rounds: f64,
    /// Mean wall-clock milliseconds per game.
    pub wall_ms: f64,
    /// Mean CPU milliseconds per game (this thread).
    pub cpu_ms: f64,
    /// The largest CPU milliseconds of one game.
    pub worst_cpu_ms: f64,
}

/// Plays whole games of `entries` (seeds 0, 1, ...) for at least `min_time`.
pub fn games(entries: &[Entry<InvisibleTarget>], min_time: Duration) -> Games {
    let (mut games, mut rounds, mut worst, mut cpu) = (0u64, 0u64, 0f64, 0f64);
    let started = Instant::now();
    while games == 0 || started.elapsed() < min_time {
        let start = thread_cpu_millis();
        let outcome = play_game(entries, 0x7A26E7 ^ games, &Config::default());
        let used = thread_cpu_millis() - start;
        worst = worst.max(used);
        cpu += used;
        rounds += u64::from(outcome.turns);
        games += 1;
    }
    let n = games as f64;
    Games {
        games,
        rounds: rounds as f64 / n,
        wall_ms: started.elapsed().as_secs_f64() * 1e3 / n,
        cpu_ms: cpu / n,
        worst_cpu_ms: worst,
    }
}

/// Snapshots of a 16-player game of random movers (drawn from the game's own
/// generator), taken every `every` walls until it ends: one board per stage.
pub fn snapshots(seed: u64, every: usize) -> Vec<Engine> {
    let mut game = Engine::new(16, seed, engine::Config::default());
    let mut out = vec![game.clone()];
    while !game.is_over() {
        let mv = game.rng().random_range(0..5u8);
        let step = game.play(Some(mv));
        if step.wall.is_some() && game.walls() % every == 0 {
            out.push(game.clone());
        }
    }
    out.push(game);
    out
}

/// Microseconds of one eligibility search (the DFS a wall placement runs, with the
/// listing of the eligible cells) on `game`'s board: the eligible cells, and the
/// median and largest of `n` (thread CPU time).
pub fn wall_placement_micros(game: &Engine, n: usize) -> (usize, f64, f64) {
    let mut eligible = 0;
    let mut times: Vec<f64> = (0..n)
        .map(|_| {
            let start = thread_cpu_millis();
            eligible = std::hint::black_box(game.eligible_cells()).len();
            (thread_cpu_millis() - start) * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    (eligible, times[n / 2], times[n - 1])
}

/// The workloads: 16 players of a builtin Rust bot and of a native one (16 entries of one
/// copy, 2 of 8), wall placements along a game, and program bots' answers.
pub fn run(opts: &BenchOptions, out: &mut dyn FnMut(String)) -> Result<(), BenchError> {
    let discovery = opts.discover::<InvisibleTarget>();
    let natives = || discovery.entries.iter().filter(|e| e.kind == EntryKind::Native);
    let native = natives().find(|e| e.name.to_lowercase().contains("random")).cloned();
    let builtin = Entry::<InvisibleTarget>::builtin("RustRandom", || |ctx: &TargetContext<'_>| ctx.random(5));
    let mut bots = vec![("builtin Rust closure", builtin)];
    if let Some(n) = native {
        bots.push(("native plugin", n));
    } else {
        out("(no native random target plugin found: build with `cargo build --release`, add --plugins target/release)"
            .to_owned());
    }
    out("16-player games to their natural end, one at a time on one core:".to_owned());
    out(format!(
        "{:<44} {:>6} {:>8} {:>12} {:>12} {:>14}",
        "workload", "games", "rounds", "wall ms/game", "cpu ms/game", "worst cpu ms"
    ));
    for (what, entry) in &bots {
        for entries in [16usize, 2] {
            let name = format!("T{entries}x{} {what} ({})", 16 / entries, entry.name);
            if !opts.selects(&name) {
                continue;
            }
            let field: Vec<_> = (0..entries).map(|i| entry.renamed(format!("P{i}"))).collect();
            let g = games(&field, opts.time);
            out(format!(
                "{name:<44} {:>6} {:>8.0} {:>12.1} {:>12.1} {:>14.1}",
                g.games, g.rounds, g.wall_ms, g.cpu_ms, g.worst_cpu_ms
            ));
        }
    }
    if opts.selects("walls") {
        out("\none wall placement (the eligibility DFS and the list of eligible cells), CPU time of 200:".to_owned());
        out(format!("{:>8} {:>10} {:>12} {:>12}", "walls", "eligible", "median us", "worst us"));
        for game in snapshots(7, 500) {
            let (eligible, us, worst) = wall_placement_micros(&game, 200);
            out(format!("{:>8} {eligible:>10} {us:>12.1} {worst:>12.1}", game.walls()));
        }
    }
    if opts.selects("programs") {
        out("\nprogram bots (persistent, one process per copy; median over many answers):".to_owned());
        let python = python();
        let echo = "import sys\nfor l in sys.stdin: print(2, flush=True)";
        let seeker = Path::new("scripts/target/py-seeker.py");
        let mut cmds = vec![("cat", vec!["cat"]), ("python3, answers 2", vec![python, "-u", "-c", echo])];
        if seeker.exists() {
            cmds.push(("scripts/target/py-seeker.py", vec![python, "scripts/target/py-seeker.py"]));
        }
        // The seed protocol's line for 16 players (the start of a game); the first
        // answer, which includes the start-up, is not measured.
        let line = "17 2080 4096 100 700 1300 1900 2500 3100 3700 300 900 1500 2100 2700 3300 3900 500\n";
        for (what, cmd) in cmds {
            match answer_micros(&cmd, 1, 2_000, |_| line.to_owned()) {
                Ok((median, p99)) => out(format!("  {what}: median {median:.1} us, p99 {p99:.1} us (limit 50,000 us)")),
                Err(e) => out(format!("  {what}: {e}")),
            }
        }
    }
    Ok(())
}
