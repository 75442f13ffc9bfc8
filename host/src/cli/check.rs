//! `arena check`: one bot against the game's bundled bots (or `--vs`) over a few seeded
//! games, with a short report (rank, calls, errors, its log, its worst game as a
//! replay, and what it said at its calls in that game) and a non-zero exit when it is
//! broken.
//!
//! Not here: playing the games (`arena::tournament`).

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{Context as _, Result, bail};
use arena::game::Game;
use arena::loaders::SearchPaths;
use arena::tournament::{self, Plan};
use clap::Args;

use super::bots::{discover, discover_in, games_isolation, isolation, script_limits, start_logs};
use super::files::write_atomically;
use super::options::{GameChoice, GameOptions, Isolate, SourceArgs, Sources};
use super::terminal::{Progress, seat_labels};

/// The options of `arena check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The bot: a library, a script or a program.
    pub file: PathBuf,
    /// Opponents: directories or files (default: the --plugins/--scripts bots).
    #[arg(long = "vs", value_name = "DIR|FILE")]
    pub vs: Vec<PathBuf>,
    /// Games to play (seeded: the same games every time). In a two-seat game (hex)
    /// rounds: each plays the bot on both sides against every opponent.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..))]
    pub games: u64,
    /// The games' seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    #[command(flatten)]
    pub game: GameOptions,
    #[command(flatten)]
    pub sources: SourceArgs,
    #[command(flatten)]
    pub which: GameChoice,
}

/// `arena check`: the bot at `file` against `vs` (or the usual bots) over `games`
/// seeded games; one short report; an error (non-zero exit) when the bot is broken:
/// not loadable, disqualified in a game, or failing more than 1% of its calls.
pub fn check<G: Game>(args: CheckArgs, sources: &Sources) -> Result<()> {
    let CheckArgs { file, vs, games, seed, game: opts, .. } = &args;
    let (games, seed) = (*games, *seed);
    let started = std::time::SystemTime::now();
    let iso = isolation(sources, Isolate::Auto, opts.bank()?)?;
    let limits = script_limits(sources);
    let load = |paths: Vec<PathBuf>| {
        discover_in::<G>(&SearchPaths { plugins: paths.clone(), scripts: paths }, &limits, iso.as_deref())
    };
    outln!("checking {} ({})", file.display(), G::NAME);
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
    outln!("  loaded: {} ({})", bot.name, bot.kind);
    let others = if vs.is_empty() { discover::<G>(sources, iso.as_deref()) } else { load(vs.to_vec()) };
    let mut entries = vec![bot.clone()];
    entries.extend(others.entries.into_iter().filter(|e| e.name != bot.name && e.source != bot.source));
    if entries.len() < 2 {
        outln!("  (no opponents found: it plays alone)");
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
        outln!(
            "  playing {total} games: {games} round{} as the {} and as the {} against each of {} opponents",
            if games == 1 { "" } else { "s" },
            labels[0],
            labels[1],
            entries.len() - 1
        );
    } else {
        outln!("  playing {total} games");
    }
    let mut progress = Progress::new(total, &entries);
    // The bot's worst game (lowest score, the first of equals), kept as a replay, and
    // what the bot said in it.
    let mut worst: Option<(u32, u64, u64, Vec<u8>)> = None;
    let mut said: Vec<arena::replay::Note> = Vec::new();
    // In a two-seat game (hex): the bot's scores per opponent and per seat.
    let mut by_seat: std::collections::BTreeMap<(String, usize), Vec<u32>> = Default::default();
    let result = tournament::run(&entries, &plan, &AtomicBool::new(false), |g, replay| {
        progress.game(g);
        if let (Some(seat), Some(opponent), Some(&score)) = (
            g.seats.iter().position(|n| *n == bot.name),
            g.seats.iter().find(|n| **n != bot.name),
            g.scores.get(&bot.name),
        ) {
            by_seat.entry((opponent.clone(), seat)).or_default().push(score);
        }
        if let (Some(&score), Some(replay)) = (g.scores.get(&bot.name), replay) {
            if worst.as_ref().is_none_or(|w| (score, g.index) < (w.0, w.1)) {
                worst = Some((score, g.index, g.seed, replay.to_bytes()));
                let me = replay.header.names.iter().position(|n| *n == bot.name).map(|i| i as u32);
                said = replay.notes.iter().filter(|n| Some(n.entry) == me).cloned().collect();
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
    outln!(
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
    if labels.len() == 2 && !by_seat.is_empty() {
        print_by_seat(&by_seat, labels);
    }
    outln!(
        "  calls: {}, {:.1} us each on average (limit {} ms a call; bank {} s + {} s a turn)",
        s.calls,
        me.mean_call_micros,
        sources.call_timeout_ms,
        opts.time_bank,
        opts.time_per_turn
    );
    outln!("  errors: {}, overruns: {}, disqualified in {} games", s.errors, s.overruns, s.disqualified);
    for m in &s.messages {
        outln!("    {m}");
    }
    let log = sources.logs.join(format!("{}.log", bot.name));
    let written = std::fs::metadata(&log).and_then(|m| m.modified()).is_ok_and(|t| t >= started);
    if written {
        outln!("  log: {}", log.display());
    } else {
        outln!("  log: nothing written (print, stderr, or log!/zb_log for native bots, go to {})", log.display());
    }
    if let Some((score, index, game_seed, bytes)) = worst {
        let path = sources.logs.join(format!("check-{}-worst.zrpl", bot.name));
        std::fs::create_dir_all(&sources.logs).with_context(|| format!("{}: cannot create", sources.logs.display()))?;
        write_atomically(&path, &bytes, "the replay")?;
        outln!(
            "  worst game: {index} (seed {game_seed}, score {score}): replay {} (arena replay {} to watch it)",
            path.display(),
            path.display()
        );
        print_said(&said, G::TURNS);
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
    outln!("  ok");
    Ok(())
}

/// The most lines of what the bot said that `check` prints (the rest: in the replay).
const SAID_LINES: usize = 40;

/// What the bot said at its calls of its worst game, a line per text line, each after
/// its turn and its player or unit; at most [`SAID_LINES`] lines.
fn print_said(said: &[arena::replay::Note], turns: &str) {
    if said.is_empty() {
        outln!("  it said nothing in that game (a bot says something at a call with debug(...): docs/replays.md)");
        return;
    }
    let turn = turns.trim_end_matches('s');
    outln!("  what it said in that game ({} calls; `arena replay FILE --json -` lists all, under debug):", said.len());
    let mut printed = 0;
    for n in said {
        let place = match n.unit {
            Some(u) => format!("{turn} {}, #{u}", n.turn),
            None => format!("{turn} {}", n.turn),
        };
        for (k, line) in n.text.lines().enumerate() {
            if printed == SAID_LINES {
                let left: usize = said.iter().map(|n| n.text.lines().count()).sum::<usize>() - printed;
                outln!("    ... {left} more lines");
                return;
            }
            if k == 0 {
                outln!("    {place}: {line}");
            } else {
                outln!("    {:width$}  {line}", "", width = place.len());
            }
            printed += 1;
        }
    }
}

/// A two-seat game's breakdown: per opponent, the bot's mean score in each seat (and
/// its games), and the difference, what the ranking's match points compare.
fn print_by_seat(by_seat: &std::collections::BTreeMap<(String, usize), Vec<u32>>, labels: &[&str]) {
    outln!(
        "  by opponent and side (its mean score in each seat against each opponent; the ranking's match points compare them):"
    );
    let opponents: std::collections::BTreeSet<&String> = by_seat.keys().map(|(o, _)| o).collect();
    let width = opponents.iter().map(|o| o.len()).max().unwrap_or(0);
    for opponent in opponents {
        let side = |seat: usize| match by_seat.get(&(opponent.clone(), seat)) {
            Some(scores) => format!(
                "as the {} {:.1} ({} game{})",
                labels[seat],
                tournament::mean(scores),
                scores.len(),
                if scores.len() == 1 { "" } else { "s" }
            ),
            None => format!("as the {}: not played", labels[seat]),
        };
        outln!("    vs {opponent:<width$}  {}   {}", side(0), side(1));
    }
}
