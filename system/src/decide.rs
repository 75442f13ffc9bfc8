//! Deciding when a contest has a winner: a fully sequential indifference-zone procedure
//! after Kim & Nelson (2001), "A fully sequential procedure for indifference-zone
//! selection in simulation", ACM TOMACS 11(3), 251-273, over blocks of paired results.
//!
//! A **block** is one unit of common random numbers: every entry's result in the same
//! game (free-for-all games), or one round of every ordered pair (two-seat games). Each
//! block gives, for every pair of entries (i, l), i's advantage over l in it
//! ([`Block::from_scores`], [`Block::from_pairs`]). After a first stage of `n0` blocks
//! the procedure looks at the sums of these advantages at the end of every batch and
//! applies, to every pair still in the race, Kim & Nelson's triangular continuation
//! region (their constant `h²` for `k` entries and `n0`, `c = 1`) to the advantages
//! shifted by half the indifference zone, so that each pair ends in one of three ways:
//! one entry *beats* the other (the other is out of the race for good), the two are
//! *within δ* of each other, or the pair goes on. Both ways of being wrong about a pair
//! (saying "A beats B" when A is not better; saying "within δ" when one is δ better) have
//! probability at most `(1 - confidence) / (k - 1)`, so over the `k - 1` rivals of an
//! entry at most `1 - confidence`:
//!
//! - whatever the entries' strengths, an entry is named the **clear winner** while another
//!   is better than it with probability at most `1 - confidence` (a best entry beaten by
//!   one of its `k - 1` rivals);
//! - if the best entry is at least δ better than every other, it is named the clear
//!   winner with probability at least `confidence`;
//! - if the top two are exactly equal, one is named the clear winner with probability at
//!   most `2 (1 - confidence) / (k - 1)` (either beating the other).
//!
//! The verdict is **joint winners** when every pair of the entries left is within δ.
//! Looking only at the end of whole batches is looking less often than the bound
//! allows, so batching never weakens it. The results are treated as normal with an
//! unknown variance per pair, estimated from the first stage (the paper's assumption).
//!
//! This module is pure arithmetic over numbers: it names no game and plays nothing, so
//! a tournament (`crate::tournament::run_until_decided`) or a ladder can call it with
//! its own blocks. It is not the leaderboard: the leaderboard ranks by the game's rule,
//! this says whether the ranking's top is settled.

use std::fmt;

/// The indifference zone δ: the smallest difference per block worth telling apart.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Delta {
    /// In the results' own units (points per game, or per round for pairs).
    Points(f64),
    /// A fraction of each pair's standard deviation of the advantage per block, as
    /// estimated from the first stage (`0.25sd`: a quarter of it).
    Spread(f64),
}

impl Default for Delta {
    fn default() -> Delta {
        Delta::Spread(0.25)
    }
}

impl fmt::Display for Delta {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Delta::Points(d) => write!(f, "{d}"),
            Delta::Spread(d) => write!(f, "{d}sd"),
        }
    }
}

impl std::str::FromStr for Delta {
    type Err = String;
    /// `0.5` (points) or `0.25sd` (a fraction of the spread); positive and finite.
    fn from_str(s: &str) -> Result<Delta, String> {
        let s = s.trim();
        let (number, spread) = match s.strip_suffix("sd") {
            Some(n) => (n, true),
            None => (s, false),
        };
        let d: f64 = number.trim().parse().map_err(|_| format!("{s:?} is not a number (or a number then sd)"))?;
        if !(d.is_finite() && d > 0.0) {
            return Err(format!("{s:?}: δ must be positive"));
        }
        Ok(if spread { Delta::Spread(d) } else { Delta::Points(d) })
    }
}

/// How a race is run and decided.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Rule {
    /// The confidence, `1 - α` (0.95).
    pub confidence: f64,
    /// The indifference zone.
    pub delta: Delta,
    /// Blocks of the first stage, whose variance sets the boundaries (`n0`, at least 2).
    pub first: u64,
    /// Blocks between two looks.
    pub batch: u64,
    /// The most blocks played: at this many the race ends, decided or not.
    pub max_blocks: u64,
    /// Games in one block (1, or the number of ordered pairs for two-seat games), for
    /// the verdict's words.
    pub games_per_block: u64,
}

/// Why a rule cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RuleError {
    /// The confidence is not strictly between 0 and 1.
    #[error("confidence {0}: give a number strictly between 0 and 1 (e.g. 0.95)")]
    Confidence(f64),
    /// The first stage is too short to estimate a variance.
    #[error("a first stage of {0} blocks: at least 2 are needed to estimate a spread")]
    First(u64),
    /// A batch of no blocks.
    #[error("a batch of 0 blocks: give at least 1")]
    Batch,
    /// The maximum is below the first stage.
    #[error("at most {max} blocks cannot hold the first stage of {first}")]
    Max {
        /// The maximum.
        max: u64,
        /// The first stage.
        first: u64,
    },
}

impl Rule {
    /// The rule with 95% confidence, δ a quarter of each pair's spread, a first stage of
    /// 10 blocks, a look every `batch` blocks and at most `max_blocks`.
    pub fn new(batch: u64, max_blocks: u64) -> Rule {
        Rule { confidence: 0.95, delta: Delta::default(), first: 10, batch, max_blocks, games_per_block: 1 }
    }

    /// Refuses a rule the procedure cannot run.
    pub fn check(&self) -> Result<(), RuleError> {
        if !(self.confidence > 0.0 && self.confidence < 1.0) {
            return Err(RuleError::Confidence(self.confidence));
        }
        if self.first < 2 {
            return Err(RuleError::First(self.first));
        }
        if self.batch == 0 {
            return Err(RuleError::Batch);
        }
        if self.max_blocks < self.first {
            return Err(RuleError::Max { max: self.max_blocks, first: self.first });
        }
        Ok(())
    }

    /// Kim & Nelson's `h²` for `k` entries (`c = 1`): `2η(n0 - 1)` with
    /// `η = ((2α / (k - 1))^(-2 / (n0 - 1)) - 1) / 2`.
    pub fn h_squared(&self, k: usize) -> f64 {
        self.h_squared_after(k, self.first)
    }

    /// `h²` for a first stage of `n0` blocks.
    fn h_squared_after(&self, k: usize, n0: u64) -> f64 {
        let alpha = 1.0 - self.confidence;
        let n0 = n0 as f64;
        let eta = 0.5 * ((2.0 * alpha / (k.max(2) - 1) as f64).powf(-2.0 / (n0 - 1.0)) - 1.0);
        2.0 * eta * (n0 - 1.0)
    }

    /// The blocks played after `played` when the race goes on: up to the next look.
    pub fn next_look(&self, played: u64) -> u64 {
        let next = if played < self.first { self.first } else { played + self.batch };
        next.min(self.max_blocks)
    }

    /// True when the procedure looks after `blocks` blocks: at the end of the first
    /// stage, every `batch` blocks after it, and at the maximum.
    fn looks_at(&self, blocks: u64) -> bool {
        blocks >= self.first && ((blocks - self.first) % self.batch == 0 || blocks == self.max_blocks)
    }
}

/// One block: for every ordered pair (i, l), i's advantage over l (`k * k`, row-major;
/// `None` where the pair has no result in this block).
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    k: usize,
    advantage: Vec<Option<f64>>,
}

impl Block {
    /// A block where every entry played the same game: i's advantage over l is its
    /// score less l's (`None`: the entry has no score in it).
    pub fn from_scores(scores: &[Option<f64>]) -> Block {
        let k = scores.len();
        let advantage = (0..k * k).map(|p| Some(scores[p / k]? - scores[p % k]?)).collect::<Vec<Option<f64>>>();
        Block { k, advantage }
    }

    /// A block of two-seat games: `first_seat(i, l)` is i's score in the first seat
    /// against l (`None`: not played); i's advantage over l is that less l's score in the
    /// first seat against i.
    pub fn from_pairs(k: usize, first_seat: impl Fn(usize, usize) -> Option<f64>) -> Block {
        let advantage =
            (0..k * k)
                .map(|p| {
                    if p / k == p % k { Some(0.0) } else { Some(first_seat(p / k, p % k)? - first_seat(p % k, p / k)?) }
                })
                .collect();
        Block { k, advantage }
    }

    /// i's advantage over l in this block.
    pub fn advantage(&self, i: usize, l: usize) -> Option<f64> {
        if i >= self.k || l >= self.k {
            return None;
        }
        self.advantage.get(i * self.k + l).copied().flatten()
    }

    /// The entries the block has.
    pub fn entries(&self) -> usize {
        self.k
    }
}

/// How a race ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// One entry beat every other.
    Clear,
    /// The entries left are all within δ of each other.
    Joint,
    /// The maximum came first: several entries left, not all within δ.
    Undecided,
    /// Not yet decided and the maximum not reached (more blocks are needed).
    Open,
}

/// How a pair stood at the last look.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PairState {
    /// The first entry beats the second.
    Beats,
    /// The second entry beats the first.
    Beaten,
    /// Within δ of each other.
    Within,
    /// Not yet decided.
    Open,
}

/// The numbers behind one pair's state.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Pair {
    /// The first entry.
    pub a: String,
    /// The second.
    pub b: String,
    /// Blocks compared (the last look's).
    pub blocks: u64,
    /// The mean advantage of `a` over `b` per block.
    pub mean_advantage: f64,
    /// The standard deviation of the advantage per block in the first stage.
    pub first_stage_sd: f64,
    /// δ for this pair, in points.
    pub delta: f64,
    /// `a` beats `b` once its summed advantage exceeds `a0 + δ r / 4` (`r` blocks), the
    /// two are within δ once its size is below `3 δ r / 4 - a0`; this is `a0 = h² S² / δ`.
    pub boundary: f64,
    /// Where the pair stood.
    pub state: PairState,
}

/// An entry out of the race.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Out {
    /// The entry.
    pub entry: String,
    /// The entry that beat it.
    pub by: String,
    /// After this many blocks.
    pub blocks: u64,
}

/// A race's verdict and the numbers behind it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Decision {
    /// How it ended.
    pub verdict: Verdict,
    /// The clear winner, the joint winners, or the entries left (best mean advantage
    /// first).
    pub winners: Vec<String>,
    /// Blocks the verdict is made on (the last look's).
    pub blocks: u64,
    /// Games in those blocks.
    pub games: u64,
    /// The rule.
    pub rule: Rule,
    /// Kim & Nelson's `h²` for these entries.
    pub h_squared: f64,
    /// Entries beaten, in the order they went out.
    pub out: Vec<Out>,
    /// Every pair of the entries that were left at the last look.
    pub pairs: Vec<Pair>,
}

impl Decision {
    /// The verdict in one line: `clear winner: X after 140 games (95%)`, `joint winners:
    /// X, Y (not separable after 1,000 games: within 0.3 points, 95%)`, or what it was
    /// not when the maximum came first.
    pub fn line(&self) -> String {
        let pct = percent(self.rule.confidence);
        let games = thousands(self.games);
        match self.verdict {
            Verdict::Clear => format!("clear winner: {} after {games} games ({pct})", self.winners.join(", ")),
            Verdict::Joint => {
                let widest = self.pairs.iter().map(|p| p.delta).fold(0.0, f64::max);
                let how = if widest > 0.0 {
                    format!("within {widest:.3} points a game, {pct}")
                } else {
                    "the same result in every game".to_owned()
                };
                format!("joint winners: {} (not separable after {games} games: {how})", self.winners.join(", "))
            }
            Verdict::Undecided => format!(
                "undecided after {games} games (the maximum): no clear winner ({} still in), and not shown to be joint winners ({pct})",
                self.winners.join(", ")
            ),
            Verdict::Open => format!("not decided yet after {games} games: {} still in", self.winners.join(", ")),
        }
    }
}

/// `95%`, `99.5%`.
fn percent(confidence: f64) -> String {
    let p = confidence * 100.0;
    if (p - p.round()).abs() < 1e-9 { format!("{}%", p.round()) } else { format!("{p:.1}%") }
}

/// `1,000`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Runs the procedure over `blocks` (in play order; each with `names.len()` entries),
/// looking where `rule` says, and returns where it stands after the last look: decided,
/// [`Verdict::Undecided`] at `rule.max_blocks`, or [`Verdict::Open`] (play up to
/// [`Rule::next_look`] and call again). The same blocks always give the same decision.
///
/// A block where a pair has no advantage (a game that failed) is left out of that pair's
/// sums; a pair is compared over the blocks both have.
pub fn decide(names: &[String], blocks: &[Block], rule: &Rule) -> Decision {
    let k = names.len();
    let h2 = rule.h_squared(k);
    let played = (blocks.len() as u64).min(rule.max_blocks);
    // One series per pair (i < l): an advantage of l over i is minus i's over l.
    let series: Vec<Vec<Series>> = (0..k)
        .map(|i| (i + 1..k).map(|l| Series::new(&blocks[..played as usize], i, l, rule.first)).collect())
        .collect();
    let mean = |i: usize, l: usize, r: u64| match i.cmp(&l) {
        std::cmp::Ordering::Less => series[i][l - i - 1].mean(r),
        std::cmp::Ordering::Greater => -series[l][i - l - 1].mean(r),
        std::cmp::Ordering::Equal => 0.0,
    };
    let mut alive = vec![true; k];
    let mut out = Vec::new();
    let mut verdict = Verdict::Open;
    let mut last = 0;
    let mut pairs = Vec::new();
    for r in (1..=played).filter(|&r| rule.looks_at(r)) {
        last = r;
        let mut states = Vec::new();
        for i in (0..k).filter(|&i| alive[i]) {
            for l in (i + 1..k).filter(|&l| alive[l]) {
                states.push((i, l, series[i][l - i - 1].at(r, names, rule, k, i, l)));
            }
        }
        // Everyone beaten by an entry that was in at this look goes out, together (but
        // for the last one standing, should the beatings go round in a circle).
        let mut beaten: Vec<(usize, usize)> = states
            .iter()
            .filter_map(|(i, l, p)| match p.state {
                PairState::Beats => Some((*l, *i)),
                PairState::Beaten => Some((*i, *l)),
                _ => None,
            })
            .collect();
        beaten.sort_unstable();
        for (loser, winner) in beaten {
            if alive[loser] && alive.iter().filter(|&&a| a).count() > 1 {
                alive[loser] = false;
                out.push(Out { entry: names[loser].clone(), by: names[winner].clone(), blocks: r });
            }
        }
        let within = states.iter().all(|(i, l, p)| !(alive[*i] && alive[*l]) || p.state == PairState::Within);
        pairs = states.into_iter().map(|(_, _, p)| p).collect();
        if alive.iter().filter(|&&a| a).count() <= 1 {
            verdict = Verdict::Clear;
            break;
        }
        if within {
            verdict = Verdict::Joint;
            break;
        }
        if r >= rule.max_blocks {
            verdict = Verdict::Undecided;
            break;
        }
    }
    // The entries left, best first: by their summed mean advantage over the others left.
    let mut left: Vec<(usize, f64)> = (0..k)
        .filter(|&i| alive[i])
        .map(|i| (i, (0..k).filter(|&l| l != i && alive[l]).map(|l| mean(i, l, last)).sum()))
        .collect();
    left.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| names[a.0].cmp(&names[b.0])));
    Decision {
        verdict,
        winners: left.iter().map(|&(i, _)| names[i].clone()).collect(),
        blocks: last,
        games: last * rule.games_per_block,
        rule: *rule,
        h_squared: h2,
        out,
        pairs,
    }
}

/// One ordered pair's advantages: its first stage (the first `n0` blocks, or if their
/// advantages were all the same, up to the first block that differs), the stage's
/// variance, and the count and sum of the advantages known up to each block.
struct Series {
    /// Blocks in the first stage (`usize::MAX` while every advantage has been the same).
    stage: u64,
    variance: f64,
    /// `(count, sum)` over the first `r` blocks, at index `r`.
    prefix: Vec<(u64, f64)>,
}

impl Series {
    fn new(blocks: &[Block], i: usize, l: usize, first: u64) -> Series {
        let mut prefix = Vec::with_capacity(blocks.len() + 1);
        prefix.push((0, 0.0));
        let (mut count, mut sum) = (0u64, 0.0);
        // Welford's running mean and sum of squared deviations, for the stage's variance.
        let (mut mean, mut squares) = (0.0, 0.0);
        let mut stage = (u64::MAX, 0.0);
        for b in blocks {
            if let Some(v) = b.advantage(i, l) {
                count += 1;
                sum += v;
                if stage.0 == u64::MAX {
                    let step = v - mean;
                    mean += step / count as f64;
                    squares += step * (v - mean);
                    let variance = if count >= 2 { squares / (count - 1) as f64 } else { 0.0 };
                    if count >= first && variance > 0.0 {
                        stage = (count, variance);
                    }
                }
            }
            prefix.push((count, sum));
        }
        Series { stage: stage.0, variance: stage.1, prefix }
    }

    /// The mean advantage over the first `r` blocks.
    fn mean(&self, r: u64) -> f64 {
        let (count, sum) = self.prefix.get(r as usize).copied().unwrap_or((0, 0.0));
        if count == 0 { 0.0 } else { sum / count as f64 }
    }

    /// The pair's state after the first `r` blocks.
    fn at(&self, r: u64, names: &[String], rule: &Rule, k: usize, i: usize, l: usize) -> Pair {
        let (count, sum) = self.prefix.get(r as usize).copied().unwrap_or((0, 0.0));
        let staged = self.stage <= count;
        let sd = if staged { self.variance.sqrt() } else { 0.0 };
        let delta = match rule.delta {
            Delta::Points(d) => d,
            Delta::Spread(f) => f * sd,
        };
        let mut pair = Pair {
            a: names[i].clone(),
            b: names[l].clone(),
            blocks: count,
            mean_advantage: self.mean(r),
            first_stage_sd: sd,
            delta,
            boundary: 0.0,
            state: PairState::Open,
        };
        if count < rule.first {
            return pair;
        }
        if !staged {
            // Every block so far gave the same advantage (bots that play the same game
            // whatever the seed): the pair is decided by it.
            pair.state = match sum.total_cmp(&0.0) {
                std::cmp::Ordering::Greater => PairState::Beats,
                std::cmp::Ordering::Less => PairState::Beaten,
                std::cmp::Ordering::Equal => PairState::Within,
            };
            return pair;
        }
        // Kim & Nelson's triangle for indifference zone δ/2 (c = 1), on the advantages
        // shifted by δ/2: intercept h² S² / (2 · δ/2), slope (δ/2) / 2.
        let n = count as f64;
        let a0 = rule.h_squared_after(k, self.stage) * self.variance / delta;
        pair.boundary = a0;
        pair.state = if sum > a0 + delta * n / 4.0 {
            PairState::Beats
        } else if sum < -(a0 + delta * n / 4.0) {
            PairState::Beaten
        } else if sum.abs() < 3.0 * delta * n / 4.0 - a0 {
            PairState::Within
        } else {
            PairState::Open
        };
        pair
    }
}

/// The fewest blocks after which every pair is decided, whatever the results: where
/// the triangle of a pair with first-stage variance `S²` closes, `4 h² S² / δ²` (with
/// `δ = f S` for [`Delta::Spread`]: `4 h² / f²`).
pub fn triangle_end(rule: &Rule, k: usize, variance: f64) -> f64 {
    let h2 = rule.h_squared(k);
    match rule.delta {
        Delta::Points(d) => 4.0 * h2 * variance / (d * d),
        Delta::Spread(f) => 4.0 * h2 / (f * f),
    }
}

#[cfg(test)]
mod tests {
    //! The procedure's guarantees checked by simulation: entries whose true strengths
    //! are known (normal scores around a set mean, with a shared game effect: common
    //! random numbers), hundreds of races from a fixed seed, each count held to the
    //! stated error plus a binomial margin of three standard deviations.

    use super::*;
    use rand::{RngExt, SeedableRng};

    type Rng = rand_pcg::Pcg64Mcg;

    /// Races per scenario.
    const RACES: u64 = 400;

    fn names(k: usize) -> Vec<String> {
        (0..k).map(|i| format!("E{i}")).collect()
    }

    /// A standard normal number (Box-Muller).
    fn normal(rng: &mut Rng) -> f64 {
        let u: f64 = 1.0 - rng.random::<f64>();
        let v: f64 = rng.random::<f64>();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    /// `n` games of entries with true mean scores `means`: each game's scores share one
    /// effect (the game's) and each entry adds its own noise of standard deviation 1.
    fn games(rng: &mut Rng, means: &[f64], n: u64) -> Vec<Block> {
        (0..n)
            .map(|_| {
                let shared = 3.0 * normal(rng);
                let scores: Vec<Option<f64>> = means.iter().map(|m| Some(m + shared + normal(rng))).collect();
                Block::from_scores(&scores)
            })
            .collect()
    }

    /// The rule of the simulations: the defaults (95%, δ a quarter of the spread, first
    /// stage 10), a look every 5 games, and a maximum the triangle never passes.
    fn rule() -> Rule {
        Rule::new(5, 2000)
    }

    /// The true δ of the simulations: a quarter of the true spread of a pair's
    /// difference (two independent noises of standard deviation 1).
    fn true_delta() -> f64 {
        0.25 * 2f64.sqrt()
    }

    /// The most of `n` races a rate `p` allows: its mean plus three binomial standard
    /// deviations.
    fn at_most(p: f64, n: u64) -> f64 {
        p * n as f64 + 3.0 * (n as f64 * p * (1.0 - p)).sqrt()
    }

    /// The standard normal distribution function (Abramowitz & Stegun 7.1.26).
    fn phi(x: f64) -> f64 {
        let z = x.abs() / 2f64.sqrt();
        let t = 1.0 / (1.0 + 0.327_591_1 * z);
        let poly =
            t * (0.254_829_592 + t * (-0.284_496_736 + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
        let erf = 1.0 - poly * (-z * z).exp();
        if x >= 0.0 { 0.5 * (1.0 + erf) } else { 0.5 * (1.0 - erf) }
    }

    /// The normal quantile of `p`, by bisection.
    fn quantile(p: f64) -> f64 {
        let (mut lo, mut hi) = (-10.0, 10.0);
        for _ in 0..100 {
            let mid = (lo + hi) / 2.0;
            if phi(mid) < p { lo = mid } else { hi = mid }
        }
        (lo + hi) / 2.0
    }

    /// Races `RACES` times from `seed`; returns the decisions.
    fn races(seed: u64, means: &[f64], rule: &Rule) -> Vec<Decision> {
        let mut rng = Rng::seed_from_u64(seed);
        let names = names(means.len());
        (0..RACES).map(|_| decide(&names, &games(&mut rng, means, rule.max_blocks), rule)).collect()
    }

    #[test]
    fn the_best_entry_delta_better_than_every_other_is_the_clear_winner_at_the_stated_confidence() {
        // The least favourable case of the guarantee: the best exactly δ ahead, the
        // others level.
        let rule = rule();
        let d = true_delta();
        let decisions = races(1, &[d, 0.0, 0.0, 0.0], &rule);
        let wrong = decisions.iter().filter(|d| !(d.verdict == Verdict::Clear && d.winners == ["E0"])).count();
        let mean_games = decisions.iter().map(|d| d.games as f64).sum::<f64>() / RACES as f64;
        eprintln!(
            "best δ ahead: {wrong} of {RACES} races without E0 as clear winner; {mean_games:.0} games on average"
        );
        assert!(decisions.iter().all(|d| d.verdict != Verdict::Open && d.verdict != Verdict::Undecided));
        assert!(
            wrong as f64 <= at_most(1.0 - rule.confidence, RACES),
            "{wrong} of {RACES} races did not name the best entry the clear winner"
        );
    }

    #[test]
    fn equal_leaders_end_as_joint_winners_and_are_rarely_named_clear_winner() {
        // Two equal entries ahead of two weaker ones: a clear winner would be wrong.
        let rule = rule();
        let decisions = races(2, &[1.0, 1.0, 0.0, 0.0], &rule);
        let clear = decisions.iter().filter(|d| d.verdict == Verdict::Clear).count();
        let joint = decisions
            .iter()
            .filter(|d| {
                d.verdict == Verdict::Joint && d.winners.len() == 2 && d.winners.iter().all(|w| w == "E0" || w == "E1")
            })
            .count();
        let mean_games = decisions.iter().map(|d| d.games as f64).sum::<f64>() / RACES as f64;
        eprintln!(
            "two equal leaders: {clear} of {RACES} races named a clear winner, {joint} ended as joint winners E0, E1; {mean_games:.0} games on average"
        );
        let alpha = 1.0 - rule.confidence;
        // Either of the two beating the other, each at most α / (k - 1).
        let either = 2.0 * alpha / 3.0;
        assert!(clear as f64 <= at_most(either, RACES), "{clear} of {RACES} races named a clear winner of two equals");
        assert!(
            (RACES - joint as u64) as f64 <= at_most(alpha, RACES),
            "only {joint} of {RACES} races ended with the two equals as joint winners"
        );
    }

    #[test]
    fn a_clearly_better_entry_is_named_in_under_half_the_games_a_fixed_count_needs_for_the_same_confidence() {
        let rule = rule();
        let k = 4;
        let decisions = races(3, &[1.0, 0.0, 0.0, 0.0], &rule);
        let right = decisions.iter().filter(|d| d.verdict == Verdict::Clear && d.winners == ["E0"]).count();
        let mean_games = decisions.iter().map(|d| d.games as f64).sum::<f64>() / RACES as f64;
        // A fixed count with the same two guarantees (a clear winner wrongly named with
        // probability at most α whatever the strengths; the best named when δ ahead with
        // probability at least 1 - α), known spread, each of the k - 1 comparisons at
        // α / (k - 1): n = ((z + z) / f)² for δ = f spreads.
        let z = quantile(1.0 - (1.0 - rule.confidence) / (k - 1) as f64);
        let fixed = ((2.0 * z) / 0.25f64).powi(2).ceil();
        eprintln!(
            "clearly better (2.8 δ ahead): {right} of {RACES} named E0; {mean_games:.0} games on average against a fixed {fixed}"
        );
        assert!(right as f64 >= RACES as f64 - at_most(1.0 - rule.confidence, RACES));
        assert!(mean_games <= 0.5 * fixed, "{mean_games:.0} games on average, the fixed count is {fixed}");
    }

    #[test]
    fn no_game_past_the_last_look_changes_the_verdict() {
        // Decisions are made on whole batches: the games after the last look (a batch
        // still being played) are not read.
        let rule = Rule::new(10, 200);
        let mut rng = Rng::seed_from_u64(4);
        // Three equal entries: far from decided after 40 games.
        let blocks = games(&mut rng, &[0.0, 0.0, 0.0], 200);
        let names = names(3);
        let at_40 = decide(&names, &blocks[..40], &rule);
        assert_eq!((at_40.verdict, at_40.blocks, at_40.games), (Verdict::Open, 40, 40));
        assert_eq!(decide(&names, &blocks[..47], &rule), at_40);
        assert_ne!(decide(&names, &blocks[..50], &rule).blocks, at_40.blocks);
        assert_eq!(rule.next_look(0), 10);
        assert_eq!(rule.next_look(40), 50);
        assert_eq!(rule.next_look(195), 200);
    }

    #[test]
    fn at_the_maximum_the_verdict_says_which_it_was_not() {
        // Far too few games for entries δ apart.
        let rule = Rule::new(5, 20);
        let mut rng = Rng::seed_from_u64(5);
        let blocks = games(&mut rng, &[true_delta(), 0.0], 20);
        let d = decide(&names(2), &blocks, &rule);
        assert_eq!(d.verdict, Verdict::Undecided, "{d:?}");
        assert!(d.line().starts_with("undecided after 20 games (the maximum): no clear winner"), "{}", d.line());
        assert!(d.line().contains("not shown to be joint winners"), "{}", d.line());
    }

    #[test]
    fn a_pair_whose_results_never_vary_is_decided_by_them_after_the_first_stage() {
        // Bots that play the same game whatever the seed: always a draw, or always the
        // same win.
        let rule = Rule::new(5, 100);
        let draws: Vec<Block> = (0..10).map(|_| Block::from_scores(&[Some(3.0), Some(3.0)])).collect();
        assert_eq!(decide(&names(2), &draws[..9], &rule).verdict, Verdict::Open);
        let d = decide(&names(2), &draws, &rule);
        assert_eq!((d.verdict, d.games), (Verdict::Joint, 10));
        assert_eq!(d.line(), "joint winners: E0, E1 (not separable after 10 games: the same result in every game)");
        let wins: Vec<Block> = (0..10).map(|_| Block::from_scores(&[Some(1.0), Some(4.0)])).collect();
        let d = decide(&names(2), &wins, &rule);
        assert_eq!((d.verdict, d.winners.as_slice()), (Verdict::Clear, &["E1".to_owned()][..]));
        // One result that differs in the first stage: its spread is estimated, and ten
        // blocks are too few to say more.
        let mut mixed = draws.clone();
        mixed[3] = Block::from_scores(&[Some(4.0), Some(3.0)]);
        let d = decide(&names(2), &mixed, &rule);
        assert_eq!(d.verdict, Verdict::Open, "{d:?}");
        assert!(d.pairs[0].first_stage_sd > 0.0);
    }

    #[test]
    fn beatings_in_a_circle_leave_one_entry_standing() {
        // A always beats B by 1, B always beats C, C always beats A: each pair is decided
        // at the first look, and someone must be left.
        let circle = Block::from_pairs(3, |i, l| Some(if (i + 1) % 3 == l { 1.0 } else { 0.0 }));
        let d = decide(&names(3), &vec![circle; 10], &Rule::new(5, 100));
        assert_eq!((d.verdict, d.winners.len(), d.out.len()), (Verdict::Clear, 1, 2), "{d:?}");
        // A block of fewer entries than named has no results for the others.
        assert_eq!(Block::from_scores(&[Some(1.0)]).advantage(0, 1), None);
    }

    #[test]
    fn two_seat_blocks_compare_each_pair_by_both_orders() {
        // i's score in the first seat against l, less l's against i.
        let first_seat = |i: usize, l: usize| Some([[0.0, 3.0, 5.0], [1.0, 0.0, 2.0], [4.0, 2.0, 0.0]][i][l]);
        let b = Block::from_pairs(3, first_seat);
        assert_eq!(b.advantage(0, 1), Some(2.0));
        assert_eq!(b.advantage(1, 0), Some(-2.0));
        assert_eq!(b.advantage(2, 0), Some(-1.0));
        let missing = Block::from_pairs(2, |i, _| if i == 0 { Some(1.0) } else { None });
        assert_eq!(missing.advantage(0, 1), None);
    }

    #[test]
    fn verdict_lines_name_the_winners_games_and_confidence() {
        let rule = Rule { games_per_block: 1, ..Rule::new(10, 1000) };
        let d = Decision {
            verdict: Verdict::Clear,
            winners: vec!["X".into()],
            blocks: 140,
            games: 140,
            rule,
            h_squared: rule.h_squared(3),
            out: Vec::new(),
            pairs: Vec::new(),
        };
        assert_eq!(d.line(), "clear winner: X after 140 games (95%)");
        let joint = Decision { verdict: Verdict::Joint, winners: vec!["X".into(), "Y".into()], games: 1000, ..d };
        assert!(joint.line().starts_with("joint winners: X, Y (not separable after 1,000 games"), "{}", joint.line());
    }

    #[test]
    fn delta_and_rule_refuse_what_the_procedure_cannot_use() {
        assert_eq!("0.25sd".parse::<Delta>(), Ok(Delta::Spread(0.25)));
        assert_eq!("2".parse::<Delta>(), Ok(Delta::Points(2.0)));
        assert!("0".parse::<Delta>().is_err() && "-1sd".parse::<Delta>().is_err() && "x".parse::<Delta>().is_err());
        assert!(Rule { confidence: 1.0, ..Rule::new(1, 100) }.check().is_err());
        assert!(Rule { first: 1, ..Rule::new(1, 100) }.check().is_err());
        assert!(Rule::new(0, 100).check().is_err());
        assert!(Rule::new(1, 5).check().is_err());
        assert!(Rule::new(1, 100).check().is_ok());
        // More entries, more comparisons: a wider triangle.
        assert!(Rule::new(1, 100).h_squared(10) > Rule::new(1, 100).h_squared(2));
    }
}
