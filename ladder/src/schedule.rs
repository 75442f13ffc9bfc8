//! Matchmaking: the lineups of a batch of games, from the active versions, their games
//! so far, their ratings and how often each pair has met.
//!
//! The rule, game after game of the batch (the counts include the games already picked
//! for it):
//!
//! 1. **Who plays next**: the version with the fewest games, then the largest sigma
//!    (new and uncertain versions play more), then the lowest version id.
//! 2. **Against whom**: the others ordered by pairs that have never met first (every
//!    pair meets), then nearest in rating (mu), then fewest meetings, then lowest id;
//!    the first `seats - 1` of them join it. When there are no more versions than seats,
//!    all play (all entries when few).
//! 3. **Seat order**: free-for-all games seat the lineup in version-id order rotated by
//!    the game's place in the batch, so no version keeps the same seat. Games of pairs
//!    (hex) are scheduled as matches of two games, one on each side, ids in a row:
//!    the version that plays next takes the first seat in the first game.
//!
//! The batch is a function of its inputs (no clock, no randomness, no thread count), so
//! a ladder's games do not depend on how many jobs play them.
//!
//! Not here: where the inputs come from (`store`), playing (`run`).

use std::collections::BTreeMap;

/// A version that may be seated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    /// Its id.
    pub version: i64,
    /// Games it has played.
    pub games: u64,
    /// Its rating.
    pub mu: f64,
    /// Its rating's uncertainty.
    pub sigma: f64,
}

/// Games each pair of versions (smaller id first) has played together.
pub type Meetings = BTreeMap<(i64, i64), u64>;

fn pair(a: i64, b: i64) -> (i64, i64) {
    if a < b { (a, b) } else { (b, a) }
}

/// The lineups (version ids in seat order) of `count` games among `candidates`, each
/// seating `seats` versions (at most all of them); with `pairs`, matches of two games
/// of two seats, one on each side (`count` rounded up to whole matches). Empty when
/// fewer than two candidates.
pub fn schedule(
    candidates: &[Candidate],
    meetings: &Meetings,
    seats: usize,
    pairs: bool,
    count: usize,
) -> Vec<Vec<i64>> {
    let mut cands: Vec<Candidate> = candidates.to_vec();
    cands.sort_by_key(|c| c.version);
    cands.dedup_by_key(|c| c.version);
    if cands.len() < 2 {
        return Vec::new();
    }
    let seats = if pairs { 2 } else { seats.clamp(2, cands.len()) };
    let mut met = meetings.clone();
    let mut lineups = Vec::with_capacity(count + 1);
    while lineups.len() < count {
        let first = *cands
            .iter()
            .min_by(|a, b| a.games.cmp(&b.games).then(b.sigma.total_cmp(&a.sigma)).then(a.version.cmp(&b.version)))
            .expect("two candidates at least");
        let mut others: Vec<Candidate> = cands.iter().filter(|c| c.version != first.version).copied().collect();
        let times = |c: &Candidate| met.get(&pair(first.version, c.version)).copied().unwrap_or(0);
        others.sort_by(|a, b| {
            (times(a) > 0)
                .cmp(&(times(b) > 0))
                .then((a.mu - first.mu).abs().total_cmp(&(b.mu - first.mu).abs()))
                .then(times(a).cmp(&times(b)))
                .then(a.version.cmp(&b.version))
        });
        let mut chosen: Vec<i64> =
            std::iter::once(first.version).chain(others.iter().take(seats - 1).map(|c| c.version)).collect();
        let games = if pairs {
            let (a, b) = (chosen[0], chosen[1]);
            vec![vec![a, b], vec![b, a]]
        } else {
            chosen.sort_unstable();
            let turn = lineups.len() % chosen.len();
            chosen.rotate_left(turn);
            vec![chosen]
        };
        for lineup in games {
            for c in cands.iter_mut().filter(|c| lineup.contains(&c.version)) {
                c.games += 1;
            }
            for (i, &a) in lineup.iter().enumerate() {
                for &b in &lineup[i + 1..] {
                    *met.entry(pair(a, b)).or_default() += 1;
                }
            }
            lineups.push(lineup);
        }
    }
    lineups
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(version: i64, games: u64, mu: f64, sigma: f64) -> Candidate {
        Candidate { version, games, mu, sigma }
    }

    #[test]
    fn a_new_version_plays_every_game_until_it_has_caught_up() {
        let mut cands: Vec<Candidate> = (1..=6).map(|v| cand(v, 30, 25.0 + v as f64, 2.0)).collect();
        cands.push(cand(7, 0, 25.0, 8.3));
        let games = schedule(&cands, &Meetings::new(), 3, false, 12);
        assert_eq!(games.len(), 12);
        // It has fewer games than the others (30 each) all batch long: it plays them all.
        assert!(games.iter().all(|g| g.contains(&7)), "{games:?}");
        // Once level, it no longer does.
        let level: Vec<Candidate> = cands.iter().map(|c| Candidate { games: 30, ..*c }).collect();
        let games = schedule(&level, &Meetings::new(), 3, false, 7);
        assert!(games.iter().filter(|g| g.contains(&7)).count() < 7, "{games:?}");
    }

    #[test]
    fn every_pair_meets_before_any_pair_meets_twice() {
        let cands: Vec<Candidate> = (1..=5).map(|v| cand(v, 0, 25.0 + 3.0 * v as f64, 8.0)).collect();
        let games = schedule(&cands, &Meetings::new(), 2, false, 10);
        let mut met = Meetings::new();
        for g in &games {
            *met.entry(pair(g[0], g[1])).or_default() += 1;
        }
        assert_eq!(met.len(), 10, "all 10 pairs of 5 met in 10 games: {games:?}");
    }

    #[test]
    fn opponents_are_near_in_rating_once_every_pair_has_met() {
        let cands = [cand(1, 10, 10.0, 2.0), cand(2, 10, 40.0, 2.0), cand(3, 10, 12.0, 2.0), cand(4, 11, 39.0, 2.0)];
        let met: Meetings = [(1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)].into_iter().map(|p| (p, 1)).collect();
        let games = schedule(&cands, &met, 2, false, 1);
        assert_eq!(games, vec![vec![1, 3]]);
    }

    #[test]
    fn pairs_play_both_sides_in_a_row_and_few_entries_all_play() {
        let cands: Vec<Candidate> = (1..=3).map(|v| cand(v, 0, 25.0, 8.0)).collect();
        let games = schedule(&cands, &Meetings::new(), 2, true, 3);
        assert_eq!(games.len(), 4, "whole matches: {games:?}");
        assert_eq!(games[1], vec![games[0][1], games[0][0]]);
        let all = schedule(&cands, &Meetings::new(), 8, false, 2);
        assert!(all.iter().all(|g| g.len() == 3), "{all:?}");
        assert_ne!(all[0], all[1], "the seats rotate");
        assert!(schedule(&cands[..1], &Meetings::new(), 8, false, 2).is_empty());
    }
}
