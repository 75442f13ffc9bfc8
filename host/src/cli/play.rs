//! `arena play`: one game of the entries found (the game's first lineup), each seat's
//! score printed, the problems of the entries that had any, and the game recorded to a
//! replay file when asked.
//!
//! Not here: playing the game (`arena::tournament::play_one`), its workers
//! (`arena::isolate`).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Result, bail};
use arena::game::Game;
use arena::isolate::Worker;
use arena::tournament::{self, Plan};
use clap::Args;

use super::bots::{discover, games_isolation, isolation, playable, start_logs};
use super::files::write_atomically;
use super::options::{GameChoice, GameOptions, Isolate, SourceArgs, Sources};
use super::terminal::{print_problems, seat_labels};

/// The options of `arena play`.
#[derive(Debug, Args)]
pub struct PlayArgs {
    /// The game's seed (a tournament prints the seed of each of its games).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Record the game to this replay file (see `arena replay`).
    #[arg(long, value_name = "FILE")]
    pub replay: Option<PathBuf>,
    /// The entries to seat, by name, in seat order (hex: the humans, then the zombies):
    /// the command a report or a replay page gives to play one of its games again. By
    /// default every entry found (hex: the first two).
    #[arg(long, value_delimiter = ',', value_name = "NAME,...")]
    pub entries: Vec<String>,
    /// Run the game in a worker process: by default (auto) when a native or Lua bot
    /// plays, so that a crashing bot is named instead of ending the program.
    #[arg(long, value_enum, default_value_t = Isolate::Auto)]
    pub isolate: Isolate,
    #[command(flatten)]
    pub game: GameOptions,
    #[command(flatten)]
    pub sources: SourceArgs,
    #[command(flatten)]
    pub which: GameChoice,
}

/// Plays the game and prints the scores.
pub fn play<G: Game>(args: PlayArgs, sources: &Sources) -> Result<()> {
    let PlayArgs { seed, replay, isolate, game, entries, .. } = args;
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
    // The entries named, in that order; else the game's first lineup (every entry; hex:
    // the first two, humans then zombies).
    let seats = if entries.is_empty() {
        G::lineup(found.entries.len(), 0)
    } else {
        let mut seats = Vec::new();
        for name in &entries {
            let Some(i) = found.entries.iter().position(|e| e.name == *name) else {
                let known: Vec<&str> = found.entries.iter().map(|e| e.name.as_str()).collect();
                bail!("--entries: no entry is named {name:?} (found: {})", known.join(", "));
            };
            seats.push(i);
        }
        let want = G::lineup(found.entries.len().max(seats.len()), 0).len();
        if seats.len() != want && G::games_per_round(found.entries.len()) != 1 {
            bail!("--entries: a {} game seats {want} entries, not {}", G::NAME, seats.len());
        }
        seats
    };
    let (outcome, recorded) =
        tournament::play_one(worker.as_mut(), &found.entries, &seats, &plan, seed).map_err(anyhow::Error::msg)?;
    if let (Some(path), Some(recorded)) = (&replay, recorded) {
        write_atomically(path, &recorded.to_bytes(), "the replay")?;
        outln!("replay written to {}", path.display());
    }
    outln!("game seed {seed}: {} {}", outcome.turns, G::TURNS);
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
        outln!("  {:<24} {}{label}", found.entries[seats[i]].name, outcome.scores[i]);
    }
    if seats.len() < found.entries.len() {
        outln!(
            "  ({} of {} entries seated: a {} game seats {}; `tournament` plays every lineup)",
            seats.len(),
            found.entries.len(),
            G::NAME,
            seats.len()
        );
    }
    let sources: Vec<(String, PathBuf)> = found.entries.iter().map(|e| (e.name.clone(), e.source.clone())).collect();
    print_problems(order.iter().map(|&i| (found.entries[seats[i]].name.as_str(), &outcome.stats[i])), &sources);
    Ok(())
}
