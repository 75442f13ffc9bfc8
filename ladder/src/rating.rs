//! Ratings: Weng-Lin (the Bayesian approximation behind OpenSkill, from `skillratings`)
//! over each game's ranking by score, ties allowed, folded over the played games in
//! game-id order from the prior (mu 25, sigma 25/3) of every version. A version's rating
//! is shown as mu, sigma and the conservative mu - 3 sigma; beside it, the game's own
//! statistic, its mean score.
//!
//! Games of pairs (hex: one side each, the first seat the humans) are rated by matches:
//! the two games of a match (the same pair, each side once, sharing a `pairing`) are one
//! two-player result, won by the higher score in the first seat (hex: the longer
//! survival as humans), as the arena's tournaments rank pairs. A match is rated at its
//! second game; one whose other game was lost is not rated. The mean score of a version
//! in a game of pairs is that of its first seat.
//!
//! Because the games are sorted by id before the fold, the ratings are a function of the
//! set of games alone: neither the jobs, nor the order games finished in, nor the order
//! they were stored in changes them.
//!
//! Not here: reading games from the database (`store`), choosing games (`schedule`).

use std::collections::BTreeMap;

use skillratings::MultiTeamOutcome;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};

/// One played game as the ratings see it.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayedGame {
    /// The game's id (the order of the fold).
    pub id: i64,
    /// Games of pairs: the id of its match's first game.
    pub pairing: Option<i64>,
    /// Each seat in seat order: the version seated and its score.
    pub seats: Vec<(i64, u32)>,
}

/// A version's rating and statistic.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rated {
    /// The skill estimate.
    pub mu: f64,
    /// Its uncertainty.
    pub sigma: f64,
    /// Played games it sat in.
    pub games: u64,
    /// Its mean score in them (games of pairs: in the first seat).
    pub mean_score: f64,
}

impl Rated {
    /// The rating of a version without games: the prior.
    pub fn prior() -> Rated {
        let r = WengLinRating::new();
        Rated { mu: r.rating, sigma: r.uncertainty, games: 0, mean_score: 0.0 }
    }

    /// The conservative estimate, mu - 3 sigma, by which the leaderboard is ranked.
    pub fn conservative(&self) -> f64 {
        self.mu - 3.0 * self.sigma
    }
}

/// The ratings of every version seated in `games`, folded in id order whatever the
/// order given. `pairs`: the games are games of pairs, rated by matches (module doc).
pub fn rate(games: &[PlayedGame], pairs: bool) -> BTreeMap<i64, Rated> {
    let mut order: Vec<&PlayedGame> = games.iter().collect();
    order.sort_by_key(|g| g.id);
    order.dedup_by_key(|g| g.id);
    let config = WengLinConfig::new();
    let mut skill: BTreeMap<i64, WengLinRating> = BTreeMap::new();
    // Per version: games and the sum of the scores its statistic counts.
    let mut tally: BTreeMap<i64, (u64, f64, u64)> = BTreeMap::new();
    // Games of pairs whose match is waiting for its other game: pairing -> (a, b, a's score first).
    let mut waiting: BTreeMap<i64, (i64, i64, u32)> = BTreeMap::new();
    for g in order {
        for (seat, &(v, score)) in g.seats.iter().enumerate() {
            let t = tally.entry(v).or_default();
            t.0 += 1;
            if !pairs || seat == 0 {
                t.1 += f64::from(score);
                t.2 += 1;
            }
        }
        let results: Vec<(i64, u32)> = if pairs {
            let (Some(p), [(a, a_score), (b, _)]) = (g.pairing, g.seats.as_slice()) else { continue };
            match waiting.remove(&p) {
                // This game is the match's second: (b, a) after (a, b).
                Some((first_a, first_b, first_score)) if first_a == *b && first_b == *a => {
                    vec![(first_a, first_score), (*a, *a_score)]
                }
                _ => {
                    waiting.insert(p, (*a, *b, *a_score));
                    continue;
                }
            }
        } else {
            g.seats.clone()
        };
        if results.len() < 2 {
            continue;
        }
        let teams: Vec<[WengLinRating; 1]> = results.iter().map(|(v, _)| [*skill.entry(*v).or_default()]).collect();
        // Rank 1 is the highest score; equal scores share a rank.
        let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = results
            .iter()
            .zip(&teams)
            .map(|((_, s), team)| {
                let above = results.iter().filter(|(_, other)| other > s).count();
                (&team[..], MultiTeamOutcome::new(above + 1))
            })
            .collect();
        let new = weng_lin_multi_team(&ranked, &config);
        for ((v, _), team) in results.iter().zip(new) {
            if let Some(r) = team.first() {
                skill.insert(*v, *r);
            }
        }
    }
    tally
        .into_iter()
        .map(|(v, (games, sum, counted))| {
            let r = skill.get(&v).copied().unwrap_or_default();
            let mean_score = if counted == 0 { 0.0 } else { sum / counted as f64 };
            (v, Rated { mu: r.rating, sigma: r.uncertainty, games, mean_score })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(id: i64, seats: &[(i64, u32)]) -> PlayedGame {
        PlayedGame { id, pairing: None, seats: seats.to_vec() }
    }

    #[test]
    fn the_winner_gains_the_loser_loses_and_ties_move_less() {
        let r = rate(&[game(1, &[(1, 10), (2, 5), (3, 5)])], false);
        let prior = Rated::prior();
        assert!(r[&1].mu > prior.mu, "{r:?}");
        assert!(r[&2].mu < prior.mu && r[&3].mu < prior.mu, "{r:?}");
        assert!((r[&2].mu - r[&3].mu).abs() < 1e-9, "a tie moves both alike: {r:?}");
        assert!(r[&1].sigma < prior.sigma);
        assert_eq!((r[&1].games, r[&1].mean_score), (1, 10.0));
    }

    #[test]
    fn ratings_are_a_function_of_the_set_of_games_not_their_order() {
        let games: Vec<PlayedGame> = (0..40)
            .map(|i| game(i, &[(i % 3, (i * 7 % 11) as u32), ((i + 1) % 3, (i * 5 % 13) as u32), (3, 6)]))
            .collect();
        let mut shuffled = games.clone();
        shuffled.reverse();
        shuffled.swap(3, 17);
        assert_eq!(rate(&games, false), rate(&shuffled, false));
        // The order of the fold matters to Weng-Lin, so the id order is what fixes it.
        let mut renumbered = games.clone();
        renumbered.reverse();
        for (i, g) in renumbered.iter_mut().enumerate() {
            g.id = i as i64;
        }
        assert_ne!(rate(&games, false), rate(&renumbered, false));
    }

    #[test]
    fn a_match_of_pairs_is_won_by_the_better_first_seat_and_rated_at_its_second_game() {
        let pair =
            |id, pairing, a, b, score| PlayedGame { id, pairing: Some(pairing), seats: vec![(a, score), (b, 0)] };
        // 1 survives 30 as humans against 2, 2 only 20 against 1: 1 wins the match.
        let r = rate(&[pair(1, 1, 1, 2, 30), pair(2, 1, 2, 1, 20)], true);
        assert!(r[&1].mu > r[&2].mu, "{r:?}");
        assert_eq!((r[&1].mean_score, r[&2].mean_score), (30.0, 20.0));
        // A match missing its second game is not rated.
        let half = rate(&[pair(1, 1, 1, 2, 30)], true);
        assert_eq!((half[&1].mu, half[&1].games), (Rated::prior().mu, 1));
    }
}
