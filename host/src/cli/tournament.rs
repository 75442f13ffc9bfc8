//! `arena tournament`: many seeded games (in parallel, optionally one shard of them; or,
//! with `--until-decided` and for a game whose rules say so, in batches until a verdict,
//! said on the last line), with a progress bar, the leaderboard, and the outputs asked for (results JSON, CSV,
//! replays, the score plot, the HTML report), each written on its own and checked
//! before the first game. The first Ctrl-C finishes the games in flight; the second
//! still writes the finished games.
//!
//! Not here: playing and ranking (`arena::tournament`), the verdict (`arena::decide`),
//! the report's pages (`arena::report`), the plot (`arena::plot`).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};
use arena::decide::{Delta, Rule, RuleError, triangle_end};
use arena::game::Game;
use arena::tournament::{self, Plan, Shard};
use clap::Args;

use super::bots::{discover, games_isolation, isolation, playable, start_logs};
use super::files::{check_outputs, outputs_failed, write_atomically, write_results};
use super::options::{GameChoice, GameOptions, Isolate, SourceArgs, Sources};
use super::terminal::{
    Progress, exit_if_interrupted, exit_if_lost_after, on_quit, print_leaderboard, rate_text, stop_on_ctrl_c,
};

/// The options of `arena tournament`.
#[derive(Debug, Args)]
pub struct TournamentArgs {
    /// Number of games in the whole tournament (all shards), at least 1 (default 5;
    /// target plays until decided unless this is given).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub rounds: Option<u64>,
    /// Play games in batches until there is a clear winner, or the leaders are shown
    /// joint winners, or --max-games is reached (Kim & Nelson's sequential procedure;
    /// see docs/deciding.md). The last line says the verdict.
    #[arg(long, conflicts_with = "rounds")]
    pub until_decided: bool,
    /// With --until-decided: the confidence of the verdict, strictly between 0 and 1
    /// (default 0.95).
    #[arg(long, value_name = "P")]
    pub confidence: Option<f64>,
    /// With --until-decided: the indifference zone δ, the smallest difference per game
    /// worth telling apart, in points (0.5) or as a fraction of each pair's spread
    /// (0.25sd, the default).
    #[arg(long, value_name = "D")]
    pub delta: Option<Delta>,
    /// With --until-decided: the most games played (default: where the procedure has
    /// decided every pair, for δ given as a spread; else 10,000).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_games: Option<u64>,
    /// With --until-decided: games between two looks, default 10 (whole rounds; hex:
    /// every ordered pair each round).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub batch: Option<u64>,
    /// The tournament's seed; game i plays with a seed derived from it and i.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Games played at once (default: all cores), at least 1. Results do not
    /// depend on it.
    #[arg(long, value_name = "J", value_parser = clap::value_parser!(u64).range(1..))]
    pub jobs: Option<u64>,
    /// Play only shard K of N (one machine of N), K from 1 to N: the games whose
    /// index is K - 1 modulo N.
    #[arg(long, value_name = "K/N", default_value = "1/1")]
    pub shard: Shard,
    /// Write the results as JSON to this file (for `arena merge`, too).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the leaderboard as CSV to this file.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Record every game to DIR/game-<index>-<seed>.zrpl.
    #[arg(long, value_name = "DIR")]
    pub replay_dir: Option<PathBuf>,
    /// Draw each entry's score distribution to this SVG file.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Write a browsable report to DIR: index.html (sortable leaderboard, score plot,
    /// errors and timings, a row per game) and a replay page per game in DIR/games/.
    #[arg(long, value_name = "DIR")]
    pub report: Option<PathBuf>,
    /// Run games in long-lived worker processes (one per job): by default (auto)
    /// whenever a native or Lua bot plays, since tournament entries are untrusted
    /// code (see docs/hardening.md).
    #[arg(long, value_enum, default_value_t = Isolate::Auto)]
    pub isolate: Isolate,
    #[command(flatten)]
    pub game: GameOptions,
    #[command(flatten)]
    pub sources: SourceArgs,
    #[command(flatten)]
    pub which: GameChoice,
}

/// Plays the tournament, prints the leaderboard and writes the outputs.
pub fn tournament<G: Game>(args: TournamentArgs, sources: &Sources) -> Result<()> {
    let given = args.confidence.is_some() || args.delta.is_some() || args.max_games.is_some() || args.batch.is_some();
    let args_rule = RuleArgs {
        confidence: args.confidence.unwrap_or(0.95),
        delta: args.delta.unwrap_or_default(),
        max_games: args.max_games,
        batch: args.batch.unwrap_or(10),
    };
    let TournamentArgs { rounds, seed, jobs, shard, json, csv, replay_dir, plot, report, isolate, game, .. } = args;
    let until_decided = args.until_decided || (G::UNTIL_DECIDED && rounds.is_none());
    if given && !until_decided {
        bail!(
            "--confidence, --delta, --max-games and --batch are for a tournament played until decided: add --until-decided"
        );
    }
    if until_decided && shard != Shard::ALL {
        bail!(
            "--shard plays a fixed share of the games; a tournament played until decided cannot be split (give --rounds)"
        );
    }
    if let Some(p) = plot.as_ref().filter(|p| p.extension().is_none_or(|e| e != "svg")) {
        bail!("{}: the plot is drawn as SVG; give a file name ending in .svg", p.display());
    }
    // Every output is checked before the first game: a typo costs nothing.
    check_outputs(&[json.as_deref(), csv.as_deref(), plot.as_deref()], &[replay_dir.as_deref()])?;
    let mut report = report.as_deref().map(arena::report::Report::create).transpose().map_err(anyhow::Error::msg)?;
    let iso = isolation(sources, isolate, game.bank()?)?;
    let found = playable(discover::<G>(sources, iso.as_deref()))?;
    if iso.is_some() {
        start_logs(sources, &found.entries);
    }
    let jobs = jobs.map_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()), |j| j as usize);
    // Games in the whole tournament: rounds times the game's games per round
    // (hex: every ordered pair of entries each round); played until decided, the most.
    let per_round = G::games_per_round(found.entries.len()).max(1);
    let rule = until_decided.then(|| decide_rule(&args_rule, found.entries.len(), per_round)).transpose()?;
    let rounds = match &rule {
        Some(rule) => rule.max_blocks * per_round,
        None => rounds.unwrap_or(5) * per_round,
    };
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
        report.link_logs(&sources.logs);
        report.start(&found.entries, &plan, total);
    }
    let mut progress = Progress::new(total, &found.entries);
    let started = Instant::now();
    let on_game = |g: &tournament::GameRecord, replay: Option<arena::replay::Replay<G>>| {
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
    };
    let result = match &rule {
        Some(rule) => tournament::run_until_decided(&found.entries, &plan, rule, &stop, on_game),
        None => tournament::run(&found.entries, &plan, &stop, on_game),
    };
    progress.finish();
    // Played until decided: the games scheduled, not the most.
    let total = if rule.is_some() { result.rounds } else { total };
    let secs = started.elapsed().as_secs_f64();
    if result.games.len() <= 20 {
        for g in &result.games {
            outln!("game {:>4}  seed {:>20}  {:>5} {}", g.index, g.seed, g.turns, G::TURNS);
        }
    }
    let sources: Vec<(String, PathBuf)> = found.entries.iter().map(|e| (e.name.clone(), e.source.clone())).collect();
    print_leaderboard(&result, &sources);
    if let Some(iso) = &plan.isolation {
        let _ = std::fs::remove_dir_all(&iso.scratch);
    }
    outln!(
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
        let written = arena::plot::score_boxplot_svg(&result, G::SCORES)
            .map_err(anyhow::Error::msg)
            .and_then(|svg| write_atomically(&path, svg.as_bytes(), "the plot"));
        match written {
            Ok(()) => outln!("plot written to {}", path.display()),
            Err(e) => failures.push(e),
        }
    }
    if let Some(dir) = &replay_dir {
        outln!("replays written to {}", dir.display());
    }
    failures.extend(write_results(&result, json.as_deref(), csv.as_deref()).err());
    if let Some(report) = &mut report {
        match report.finish(&result) {
            Ok(index) => outln!("report written to {}", index.display()),
            Err(e) => failures.push(anyhow::Error::msg(e)),
        }
    }
    outputs_failed(failures)?;
    // The last line says the verdict (after the games lost, if any).
    exit_if_lost_after(&result, result.decision.as_ref().map(|d| d.line()).as_deref());
    exit_if_interrupted(&stop, result.played, total);
    Ok(())
}

/// What `--until-decided` is given.
struct RuleArgs {
    confidence: f64,
    delta: Delta,
    max_games: Option<u64>,
    batch: u64,
}

/// The rule of a tournament of `entries` played until decided, in rounds of
/// `per_round` games: the batch and the maximum in whole rounds.
fn decide_rule(args: &RuleArgs, entries: usize, per_round: u64) -> Result<Rule> {
    let rule = Rule {
        confidence: args.confidence,
        delta: args.delta,
        batch: args.batch.div_ceil(per_round),
        games_per_block: per_round,
        ..Rule::new(1, u64::MAX)
    };
    let max_blocks = match (args.max_games, args.delta) {
        (Some(n), _) => n / per_round,
        (None, Delta::Spread(_)) => triangle_end(&rule, entries, 1.0).ceil() as u64,
        (None, Delta::Points(_)) => 10_000u64.div_ceil(per_round),
    };
    let rule = Rule { max_blocks, ..rule };
    rule.check().map_err(|e| match e {
        RuleError::Max { .. } => anyhow::anyhow!(
            "--max-games {}: the first stage alone is {} games ({} rounds of {per_round})",
            rule.max_blocks * per_round,
            rule.first * per_round,
            rule.first
        ),
        e => anyhow::Error::new(e),
    })?;
    Ok(rule)
}
