//! Ratings: Weng-Lin (the Bayesian approximation behind OpenSkill, from `skillratings`)
//! over each game's ranking by score, ties allowed, folded over the played games in
//! game-id order from the prior (mu 25, sigma 25/3) of every version. A version's rating
//! is shown as mu, sigma and the conservative mu - 3 sigma; beside it, the game's own
//! statistic with its 95% interval ([`Statistic`]).
//!
//! Games of pairs (hex: one side each, the first seat the humans) are rated by matches:
//! the two games of a match (the same pair, each side once, sharing a `pairing`) are one
//! two-player result, won by the higher score in the first seat (hex: the longer
//! survival as humans), as the arena's tournaments rank pairs. A match is rated at its
//! second game; one whose other game was lost is not rated. The mean score of a version
//! in a game of pairs is that of its first seat.
//!
//! Because the games are folded in id order, the ratings are a function of the set of
//! games alone: neither the jobs, nor the order games finished in, nor the order they
//! were stored in changes them. The fold is a [`Fold`], whose whole state (each version's
//! skill and tallies, the matches waiting for their second game, the largest id folded)
//! can be stored and taken up again: games with larger ids extend it exactly as a fold
//! from scratch would (the store's incremental update; a game with a smaller id than the
//! largest folded forces a fold from scratch).
//!
//! Not here: reading games from the database (`store`), choosing games (`schedule`).

use std::collections::BTreeMap;

use arena::game::Ranking;
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

/// The game's own statistic of a version (what its tournaments rank by) with a 95%
/// interval: see [`statistic`].
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct Statistic {
    /// The statistic.
    pub value: f64,
    /// The interval's lower bound.
    pub low: f64,
    /// The interval's upper bound.
    pub high: f64,
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
    /// The sum of the scores the mean counts.
    pub score_sum: f64,
    /// How many scores the mean counts.
    pub scored: u64,
    /// Games of pairs: rated matches played.
    pub matches: u64,
    /// Games of pairs: match points won in them (win 1, draw 1/2).
    pub points: f64,
    /// The game's own statistic with its interval (zero until computed from the
    /// version's scores: [`statistic`]).
    pub stat: Statistic,
}

impl Rated {
    /// The rating of a version without games: the prior.
    pub fn prior() -> Rated {
        let r = WengLinRating::new();
        Rated {
            mu: r.rating,
            sigma: r.uncertainty,
            games: 0,
            mean_score: 0.0,
            score_sum: 0.0,
            scored: 0,
            matches: 0,
            points: 0.0,
            stat: Statistic::default(),
        }
    }

    /// The conservative estimate, mu - 3 sigma, by which the leaderboard is ranked.
    pub fn conservative(&self) -> f64 {
        self.mu - 3.0 * self.sigma
    }
}

/// A match of pairs waiting for its second game: its first game's seats (a, b) and a's
/// score in the first seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Waiting {
    /// The match (its `pairing`).
    pub pairing: i64,
    /// The first seat of its first game.
    pub a: i64,
    /// The second seat.
    pub b: i64,
    /// `a`'s score.
    pub score: u32,
}

/// The fold of the ratings over games in id order, resumable (module doc).
#[derive(Debug, Clone, PartialEq)]
pub struct Fold {
    /// Games of pairs, rated by matches.
    pub pairs: bool,
    /// Each version's rating so far (the statistic left alone).
    pub rated: BTreeMap<i64, Rated>,
    /// Matches of pairs waiting for their second game.
    pub waiting: BTreeMap<i64, Waiting>,
    /// The largest game id folded (`i64::MIN` before any).
    pub through: i64,
}

/// Why a game cannot extend a fold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("game {id} comes before game {through}, already rated: the ratings must be computed from scratch")]
pub struct OutOfOrder {
    /// The game.
    pub id: i64,
    /// The largest id folded.
    pub through: i64,
}

impl Fold {
    /// A fold without games.
    pub fn new(pairs: bool) -> Fold {
        Fold { pairs, rated: BTreeMap::new(), waiting: BTreeMap::new(), through: i64::MIN }
    }

    /// Folds `games` (any order; sorted by id here) after those folded so far: refused
    /// when one of them has an id not above [`Fold::through`] (a fold from scratch is
    /// then the only exact answer).
    pub fn extend(&mut self, games: &[PlayedGame]) -> Result<(), OutOfOrder> {
        let mut order: Vec<&PlayedGame> = games.iter().collect();
        order.sort_by_key(|g| g.id);
        order.dedup_by_key(|g| g.id);
        if let Some(g) = order.first()
            && g.id <= self.through
        {
            return Err(OutOfOrder { id: g.id, through: self.through });
        }
        let config = WengLinConfig::new();
        for g in order {
            self.add(g, &config);
        }
        Ok(())
    }

    fn add(&mut self, g: &PlayedGame, config: &WengLinConfig) {
        self.through = g.id;
        for (seat, &(v, score)) in g.seats.iter().enumerate() {
            let t = self.rated.entry(v).or_insert_with(Rated::prior);
            t.games += 1;
            if !self.pairs || seat == 0 {
                t.score_sum += f64::from(score);
                t.scored += 1;
                t.mean_score = t.score_sum / t.scored as f64;
            }
        }
        let results: Vec<(i64, u32)> = if self.pairs {
            let (Some(p), [(a, a_score), (b, _)]) = (g.pairing, g.seats.as_slice()) else { return };
            match self.waiting.remove(&p) {
                // This game is the match's second: (b, a) after (a, b).
                Some(w) if w.a == *b && w.b == *a => vec![(w.a, w.score), (*a, *a_score)],
                _ => {
                    self.waiting.insert(p, Waiting { pairing: p, a: *a, b: *b, score: *a_score });
                    return;
                }
            }
        } else {
            g.seats.clone()
        };
        if results.len() < 2 {
            return;
        }
        let skill = |r: &Rated| WengLinRating { rating: r.mu, uncertainty: r.sigma };
        let teams: Vec<[WengLinRating; 1]> =
            results.iter().map(|(v, _)| [self.rated.get(v).map_or_else(WengLinRating::new, skill)]).collect();
        // Rank 1 is the highest score; equal scores share a rank.
        let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = results
            .iter()
            .zip(&teams)
            .map(|((_, s), team)| {
                let above = results.iter().filter(|(_, other)| other > s).count();
                (&team[..], MultiTeamOutcome::new(above + 1))
            })
            .collect();
        let new = weng_lin_multi_team(&ranked, config);
        for ((v, s), team) in results.iter().zip(new) {
            let t = self.rated.entry(*v).or_insert_with(Rated::prior);
            if let Some(r) = team.first() {
                (t.mu, t.sigma) = (r.rating, r.uncertainty);
            }
            if self.pairs {
                t.matches += 1;
                let other = results.iter().find(|(o, _)| o != v).map_or(0, |(_, s)| *s);
                t.points += match s.cmp(&other) {
                    std::cmp::Ordering::Greater => 1.0,
                    std::cmp::Ordering::Equal => 0.5,
                    std::cmp::Ordering::Less => 0.0,
                };
            }
        }
    }
}

/// The ratings of every version seated in `games`, folded in id order whatever the
/// order given. `pairs`: the games are games of pairs, rated by matches (module doc).
/// The statistics are left at zero ([`statistics`] fills them).
pub fn rate(games: &[PlayedGame], pairs: bool) -> BTreeMap<i64, Rated> {
    let mut fold = Fold::new(pairs);
    fold.extend(games).expect("a fresh fold takes any games");
    fold.rated
}

/// [`rate`], with each version's statistic of the game's `ranking` computed from its
/// scores in `games`.
pub fn rate_with_statistics(games: &[PlayedGame], ranking: Ranking) -> BTreeMap<i64, Rated> {
    let pairs = ranking == Ranking::Pairs;
    let mut rated = rate(games, pairs);
    let mut scores: BTreeMap<i64, Vec<u32>> = BTreeMap::new();
    let mut seen = std::collections::BTreeSet::new();
    for g in games.iter().filter(|g| seen.insert(g.id)) {
        for (seat, &(v, s)) in g.seats.iter().enumerate() {
            if !pairs || seat == 0 {
                scores.entry(v).or_default().push(s);
            }
        }
    }
    for (v, r) in &mut rated {
        r.stat = statistic(ranking, scores.get(v).map_or(&[][..], Vec::as_slice), r);
    }
    rated
}

/// Up to this many scores the interval of a mean (and a total) is the tournament
/// report's percentile bootstrap (1,000 resamples); above, where that bootstrap costs
/// 1,000 times the scores and its distribution is the normal one to within its own
/// resampling noise, the normal interval (clamped to the scores' range).
pub const BOOTSTRAP_UP_TO: usize = 400;

/// The seed of the bootstrap of a mean (the tournament report's).
const MEAN_SEED: u64 = 0x6d65_616e;

/// What [`statistic`] measures, for a game ranked by `ranking`.
pub fn statistic_name(ranking: Ranking) -> &'static str {
    match ranking {
        Ranking::Median => "median score",
        Ranking::Mean => "mean score",
        Ranking::Total => "total score",
        Ranking::Pairs => "match points per match",
    }
}

/// The game's own statistic of a version, with a 95% interval, from `scores` (its
/// scores in its played games, in any order; games of pairs: in the first seat) and, for
/// games of pairs, its rated matches in `rated`:
///
/// - median score: the distribution-free interval of a median, between the order
///   statistics the binomial distribution B(n, 1/2) puts 2.5% beyond on each side (what
///   the tournaments' bootstrap interval of the median estimates, computed exactly in
///   one sort);
/// - mean score: the tournament report's percentile bootstrap up to
///   [`BOOTSTRAP_UP_TO`] scores, the normal interval above;
/// - total score: the sum, and n times the mean's interval;
/// - match points per match (games of pairs: win 1, draw 1/2): the Wilson interval.
pub fn statistic(ranking: Ranking, scores: &[u32], rated: &Rated) -> Statistic {
    // Sorted: the bootstrap resamples by position, and the statistic is of the set.
    let mut sorted = scores.to_vec();
    sorted.sort_unstable();
    let scores = sorted.as_slice();
    match ranking {
        Ranking::Median => median_interval(scores),
        Ranking::Mean => mean_interval(scores),
        Ranking::Total => {
            let m = mean_interval(scores);
            let n = scores.len() as f64;
            Statistic { value: m.value * n, low: m.low * n, high: m.high * n }
        }
        Ranking::Pairs => wilson(rated.points, rated.matches),
    }
}

fn median_interval(scores: &[u32]) -> Statistic {
    if scores.is_empty() {
        return Statistic::default();
    }
    let v = scores;
    let n = v.len();
    // j: the largest count with P(B < j) <= 2.5%, B ~ B(n, 1/2); the interval is
    // [x(j), x(n - j + 1)] (1-based), the range itself when j is 0.
    let ln_half_n = -(n as f64) * std::f64::consts::LN_2;
    let (mut ln_choose, mut cumulative, mut j) = (0.0f64, 0.0f64, 0usize);
    for k in 0..=n / 2 {
        cumulative += (ln_choose + ln_half_n).exp();
        if cumulative > 0.025 {
            break;
        }
        j = k + 1;
        ln_choose += ((n - k) as f64).ln() - ((k + 1) as f64).ln();
    }
    let (low, high) = if j == 0 { (v[0], v[n - 1]) } else { (v[j - 1], v[n - j]) };
    Statistic { value: arena::tournament::median(v), low: f64::from(low), high: f64::from(high) }
}

fn mean_interval(scores: &[u32]) -> Statistic {
    let value = arena::tournament::mean(scores);
    if scores.len() <= BOOTSTRAP_UP_TO {
        let (low, high) = arena::tournament::bootstrap_mean_ci(scores, MEAN_SEED);
        return Statistic { value, low, high };
    }
    let n = scores.len() as f64;
    let var = scores.iter().map(|&s| (f64::from(s) - value).powi(2)).sum::<f64>() / (n - 1.0);
    let half = 1.96 * (var / n).sqrt();
    let (min, max) = scores.iter().fold((u32::MAX, 0), |(lo, hi), &s| (lo.min(s), hi.max(s)));
    Statistic { value, low: (value - half).max(f64::from(min)), high: (value + half).min(f64::from(max)) }
}

fn wilson(points: f64, matches: u64) -> Statistic {
    if matches == 0 {
        return Statistic::default();
    }
    let (n, z) = (matches as f64, 1.96f64);
    let p = points / n;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    Statistic { value: p, low: (centre - half).max(0.0), high: (centre + half).min(1.0) }
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

    #[test]
    fn a_fold_taken_up_again_gives_what_a_fold_from_scratch_gives() {
        let pair = |id: i64| PlayedGame {
            id,
            pairing: Some(id - (id + 1) % 2),
            seats: if id % 2 == 1 {
                vec![(id % 3, (id * 7 % 11) as u32), (3, 5)]
            } else {
                vec![(3, 4), ((id - 1) % 3, 0)]
            },
        };
        for pairs in [false, true] {
            let games: Vec<PlayedGame> = (1..=41)
                .map(|i| if pairs { pair(i) } else { game(i, &[(i % 4, (i * 7 % 11) as u32), ((i + 1) % 4, 3)]) })
                .collect();
            let mut fold = Fold::new(pairs);
            // In pieces that end in the middle of a match (games of pairs: 1-2, 3-4, ...).
            for piece in [&games[..7], &games[7..8], &games[8..30], &games[30..]] {
                fold.extend(piece).unwrap();
            }
            assert_eq!(fold.rated, rate(&games, pairs), "pairs: {pairs}");
            assert_eq!(fold.through, 41);
            // A game below the largest folded is refused: only a fold from scratch is exact.
            assert_eq!(fold.extend(&games[3..4]), Err(OutOfOrder { id: 4, through: 41 }));
        }
    }

    #[test]
    fn the_median_interval_is_that_of_the_order_statistics_and_holds_the_median() {
        let prior = Rated::prior();
        // n = 10: P(B(10, 1/2) <= 1) = 1.1% <= 2.5% < P(B <= 2) = 5.5%: x(2) and x(9).
        let scores: Vec<u32> = vec![9, 1, 8, 2, 7, 3, 6, 4, 5, 10];
        let s = statistic(Ranking::Median, &scores, &prior);
        assert_eq!((s.value, s.low, s.high), (5.5, 2.0, 9.0));
        // Too few scores for any order statistic: the range.
        assert_eq!(statistic(Ranking::Median, &[4, 1, 9], &prior), Statistic { value: 4.0, low: 1.0, high: 9.0 });
        assert_eq!(statistic(Ranking::Median, &[], &prior), Statistic::default());
        // Many scores: the interval narrows around the median.
        let many: Vec<u32> = (0..10_000).map(|i| (i * 7919 % 1000) as u32).collect();
        let s = statistic(Ranking::Median, &many, &prior);
        assert!(s.low <= s.value && s.value <= s.high && s.high - s.low < 40.0, "{s:?}");
    }

    #[test]
    fn the_mean_and_total_intervals_hold_the_statistic_and_stay_in_the_scores_range() {
        let prior = Rated::prior();
        let few = [0u32, 0, 0, 3];
        let s = statistic(Ranking::Mean, &few, &prior);
        assert_eq!(s.value, 0.75);
        assert!(0.0 <= s.low && s.low <= s.value && s.value <= s.high && s.high <= 3.0, "{s:?}");
        // The same scores in another order: the same interval.
        assert_eq!(statistic(Ranking::Mean, &[3, 0, 0, 0], &prior), s);
        let t = statistic(Ranking::Total, &few, &prior);
        assert_eq!((t.value, t.low, t.high), (3.0, 4.0 * s.low, 4.0 * s.high));
        // Past the bootstrap's size: the normal interval, clamped to the range.
        let many: Vec<u32> = (0..BOOTSTRAP_UP_TO as u32 + 100).map(|i| i % 2).collect();
        let s = statistic(Ranking::Mean, &many, &prior);
        assert!((s.value - 0.5).abs() < 1e-9 && s.low > 0.44 && s.high < 0.56 && s.low < s.high, "{s:?}");
    }

    #[test]
    fn match_points_per_match_have_the_wilson_interval() {
        let r = Rated { matches: 10, points: 7.0, ..Rated::prior() };
        let s = statistic(Ranking::Pairs, &[], &r);
        assert_eq!(s.value, 0.7);
        assert!((s.low - 0.3968).abs() < 1e-3 && (s.high - 0.8922).abs() < 1e-3, "{s:?}");
        let none = statistic(Ranking::Pairs, &[], &Rated::prior());
        assert_eq!(none, Statistic::default());
        // Pairs' fold counts the points: 1 wins the match, 2 loses it.
        let pair = |id, a, b, score| PlayedGame { id, pairing: Some(1), seats: vec![(a, score), (b, 0)] };
        let rated = rate(&[pair(1, 1, 2, 30), pair(2, 2, 1, 20)], true);
        assert_eq!((rated[&1].matches, rated[&1].points, rated[&2].points), (1, 1.0, 0.0));
    }
}
