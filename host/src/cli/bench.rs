//! `arena bench`: the performance workloads of the chosen game, or (`--isolation`) what
//! isolation costs, each line printed as soon as it is measured. The same command for
//! every game: the workloads are the game's own (`arena::games::<game>::bench`),
//! reached through the registry.
//!
//! Not here: the workloads and their measurements (`arena::bench`, each game's
//! `bench.rs`); performance goals (`docs/performance.md`).

use std::time::Duration;

use anyhow::{Context as _, Result};
use arena::bench::BenchOptions;
use arena::game::Game;
use arena::limits::TimeBank;
use clap::Args;

use super::bots::{isolation, script_limits, search_paths};
use super::options::{GameChoice, Isolate, SourceArgs, Sources};

/// The options of `arena bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Seconds to spend on each workload (at least one game each).
    #[arg(long, default_value_t = 3.0)]
    pub seconds: f64,
    /// Only the workloads whose name contains this text.
    #[arg(long)]
    pub only: Option<String>,
    /// Games for the one-thread versus all-cores comparison (0 skips it).
    #[arg(long, default_value_t = 300)]
    pub games: u64,
    /// Also time each step of the turn (µs per turn, step by step) for each workload.
    #[arg(long)]
    pub steps: bool,
    /// Instead, measure what isolation costs: whole tournaments with workers and
    /// without (zombies: 20 Lua entries, 100 games; 400 short native-only games),
    /// checking that they play the same games.
    #[arg(long)]
    pub isolation: bool,
    #[command(flatten)]
    pub sources: SourceArgs,
    #[command(flatten)]
    pub which: GameChoice,
}

/// Runs the workloads of game `G` (docs/performance.md), or (`--isolation`) what
/// isolation costs, printing each line as soon as it is measured.
pub fn bench<G: Game>(args: BenchArgs, sources: &Sources) -> Result<()> {
    let opts = BenchOptions {
        paths: search_paths(sources),
        limits: script_limits(sources),
        time: Duration::from_secs_f64(args.seconds),
        only: args.only,
        games: args.games,
        steps: args.steps,
    };
    let mut print = |line: String| outln!("{line}");
    if args.isolation {
        let iso = isolation(sources, Isolate::On, TimeBank::default())?.context("isolation is on")?;
        arena::games::isolation_tax(&opts, &iso, &mut print)?;
        let _ = std::fs::remove_dir_all(&iso.scratch);
    } else {
        arena::games::bench(G::NAME, &opts, &mut print)?;
    }
    Ok(())
}
