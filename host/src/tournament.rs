//! Tournaments: many games with the same entries, each with a seed derived from the
//! tournament's seed and the game's index, ranked by median score.
//!
//! This module plays games and summarises them; it does not load entries nor print
//! (the CLI does both).
//!
//! **Architecture Invariant:** game `i` of a tournament with seed `S` is exactly the
//! game `play --seed game_seed(S, i)` plays, whatever else runs around it.

use std::collections::BTreeMap;

use crate::bot::{Bot, BrokenBot, CallStats, Entry};
use crate::zombies::{Game, GameConfig, GameOutcome};

/// The seed of game `index` of a tournament seeded with `seed` (SplitMix64 mixing, so
/// neighbouring indices give unrelated games).
pub fn game_seed(seed: u64, index: u64) -> u64 {
    splitmix64(splitmix64(seed) ^ index)
}

fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Plays one game: fresh bots for every entry (an entry whose bot cannot be made plays
/// with players that always stay, and the failure is counted), then the game.
pub fn play_game(entries: &[Entry], seed: u64, config: GameConfig) -> GameOutcome {
    let mut failures = Vec::new();
    let mut bots: Vec<Box<dyn Bot>> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| match e.create_bot() {
            Ok(bot) => bot,
            Err(err) => {
                failures.push((i, err.clone()));
                Box::new(BrokenBot(err))
            }
        })
        .collect();
    let names = entries.iter().map(|e| e.name.clone()).collect();
    let mut outcome = Game::new(names, seed, config).play(&mut bots);
    for (i, err) in failures {
        outcome.stats[i].record_error(&err);
    }
    outcome
}

/// One line of the leaderboard.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Standing {
    /// Entry name.
    pub name: String,
    /// Median score (the ranking key; the mean of the two middle scores for an even count).
    pub median: f64,
    /// Mean score.
    pub mean: f64,
    /// Lowest score.
    pub min: u32,
    /// Highest score.
    pub max: u32,
    /// Bot call counters over all games.
    #[serde(flatten)]
    pub stats: CallStats,
}

/// One game as recorded in results.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GameRecord {
    /// Index of the game in its tournament.
    pub index: u64,
    /// The game's seed: `zombies play --seed` replays it.
    pub seed: u64,
    /// Turns played.
    pub turns: u32,
    /// Score of each entry.
    pub scores: BTreeMap<String, u32>,
}

/// A tournament's results.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TournamentResult {
    /// The tournament's seed.
    pub seed: u64,
    /// Every game played, by index.
    pub games: Vec<GameRecord>,
    /// Entries ranked by median score (then mean, then name).
    pub leaderboard: Vec<Standing>,
}

/// Plays `rounds` games in index order and ranks the entries.
pub fn run(entries: &[Entry], seed: u64, rounds: u64, config: GameConfig) -> TournamentResult {
    let outcomes: Vec<(u64, GameOutcome)> =
        (0..rounds).map(|i| (i, play_game(entries, game_seed(seed, i), config))).collect();
    summarise(entries, seed, &outcomes)
}

/// Builds the results of a set of played games.
pub fn summarise(entries: &[Entry], seed: u64, outcomes: &[(u64, GameOutcome)]) -> TournamentResult {
    let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    let games = outcomes
        .iter()
        .map(|(index, o)| GameRecord {
            index: *index,
            seed: o.seed,
            turns: o.turns,
            scores: names.iter().zip(&o.scores).map(|(n, &s)| (n.to_string(), s)).collect(),
        })
        .collect();
    let mut leaderboard: Vec<Standing> = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let scores: Vec<u32> = outcomes.iter().map(|(_, o)| o.scores[i]).collect();
            let mut stats = CallStats::default();
            for (_, o) in outcomes {
                stats.merge(&o.stats[i]);
            }
            Standing {
                name: name.to_string(),
                median: median(&scores),
                mean: mean(&scores),
                min: scores.iter().copied().min().unwrap_or(0),
                max: scores.iter().copied().max().unwrap_or(0),
                stats,
            }
        })
        .collect();
    rank(&mut leaderboard);
    TournamentResult { seed, games, leaderboard }
}

/// Sorts standings best first: median, then mean (both descending), then name.
pub fn rank(standings: &mut [Standing]) {
    standings.sort_by(|a, b| {
        b.median.total_cmp(&a.median).then(b.mean.total_cmp(&a.mean)).then_with(|| a.name.cmp(&b.name))
    });
}

/// The median (mean of the two middle values for an even count; 0 for none).
pub fn median(values: &[u32]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut v = values.to_vec();
    v.sort_unstable();
    let n = v.len();
    if n % 2 == 1 { f64::from(v[n / 2]) } else { (f64::from(v[n / 2 - 1]) + f64::from(v[n / 2])) / 2.0 }
}

/// The arithmetic mean (0 for none).
pub fn mean(values: &[u32]) -> f64 {
    if values.is_empty() { 0.0 } else { values.iter().map(|&v| f64::from(v)).sum::<f64>() / values.len() as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[289, 167, 215, 146, 237]), 215.0);
        assert_eq!(median(&[1, 4, 2, 3]), 2.5);
        assert_eq!(median(&[]), 0.0);
    }

    #[test]
    fn game_seeds_differ_by_index_and_seed() {
        assert_ne!(game_seed(1, 0), game_seed(1, 1));
        assert_ne!(game_seed(1, 0), game_seed(2, 0));
        assert_eq!(game_seed(7, 3), game_seed(7, 3));
    }
}
