//! Tournaments: many games with the same entries, each with a seed derived from the
//! tournament's seed and the game's index, played in parallel, ranked as the game says
//! (zombies by median score, eggs by mean). Written once for every [`Game`].
//!
//! This module plays games (each one through `crate::play`, in this process or in a
//! worker of `crate::isolate`), a fixed number of them or in batches until
//! `crate::decide` gives a verdict, and summarises and merges results; it does not load
//! entries, print, or write files (the CLI does), nor judge when a contest is decided
//! (`crate::decide` does, on the blocks made here).
//!
//! **Architecture Invariant:** game `i` of a tournament with seed `S` is exactly the
//! game `play --seed game_seed(S, i)` plays, whatever the thread count, the shard, or
//! the games around it; and the summary depends only on the set of finished games, so
//! a merge of shards equals a one-machine run.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, mpsc};

use rand::{RngExt, SeedableRng};

use crate::bot::{Bot, CallStats, Entry};
use crate::decide::{Block, Decision, Rule, Verdict, decide};
use crate::game::{Game, Outcome, Ranking};
use crate::isolate::{Isolation, Worker};
use crate::limits::{Guarded, TimeBank};
use crate::play::{play_game_with, play_recorded_with};
// Game `i` of a tournament seeded `S` is `play_game` with `game_seed(S, i)` (both live in `play`).
pub use crate::play::{game_seed, play_game};
use crate::replay::Replay;

/// The generator of the bootstrap (the games' own generator type).
type StatsRng = rand_pcg::Pcg64Mcg;

/// Which games of a tournament this run plays: shard `k` of `n` holds the games whose
/// index is `k - 1` modulo `n`. Shards count from 1, as Jest's and Playwright's
/// `--shard` do: `--shard 1/3`, `2/3` and `3/3` are the three shards of a split in three.
///
/// In results files a shard is written as the `--shard` argument, `"2/3"`; results
/// written when shards counted from 0 (`{"k": 1, "n": 3}`, the same shard) are read too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This shard's number, `1..=n`.
    pub k: u64,
    /// The number of shards.
    pub n: u64,
}

impl Shard {
    /// The whole tournament: shard 1 of 1.
    pub const ALL: Shard = Shard { k: 1, n: 1 };

    /// True when game `index` belongs to this shard.
    pub fn has(self, index: u64) -> bool {
        index % self.n == self.k - 1
    }
}

impl std::fmt::Display for Shard {
    /// `K/N`, as `--shard` takes it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

impl std::str::FromStr for Shard {
    type Err = String;
    /// `K/N` with `1 <= K <= N`; a refusal is one line naming the reason.
    fn from_str(s: &str) -> Result<Shard, String> {
        let (k, n) = s.split_once('/').ok_or_else(|| format!("shard {s:?}: give K/N, e.g. 1/4 (shard 1 of 4)"))?;
        let number = |what: &str, v: &str| {
            v.trim().parse::<u64>().map_err(|_| format!("shard {s:?}: {what} {v:?} is not a whole number"))
        };
        let (k, n) = (number("K", k)?, number("N", n)?);
        if n == 0 {
            return Err(format!("shard {k}/{n}: N, the number of shards, must be at least 1"));
        }
        if k == 0 {
            return Err(format!("shard {k}/{n}: shards count from 1: K is 1 to {n} (1/{n} is the first shard)"));
        }
        if k > n {
            return Err(format!("shard {k}/{n}: K is at most N: {n} shards are 1/{n} to {n}/{n}"));
        }
        Ok(Shard { k, n })
    }
}

impl serde::Serialize for Shard {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Shard {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Shard, D::Error> {
        /// `"K/N"`, or `{"k": K - 1, "n": N}` as results recorded it when shards counted from 0.
        #[derive(serde::Deserialize)]
        #[serde(untagged)]
        enum Written {
            Text(String),
            FromZero { k: u64, n: u64 },
        }
        match Written::deserialize(d)? {
            Written::Text(s) => s.parse().map_err(serde::de::Error::custom),
            Written::FromZero { k, n } if k < n => Ok(Shard { k: k + 1, n }),
            Written::FromZero { k, n } => Err(serde::de::Error::custom(format!("shard k {k} of n {n}: need k < n"))),
        }
    }
}

/// What to play.
#[derive(Debug, Clone)]
pub struct Plan<G: Game> {
    /// The tournament's seed.
    pub seed: u64,
    /// Games in the whole tournament (all shards).
    pub rounds: u64,
    /// The games this run plays.
    pub shard: Shard,
    /// Games played at once (threads).
    pub jobs: usize,
    /// Game options.
    pub config: G::Config,
    /// Record a replay of every game (handed to the `on_game` callback).
    pub record: bool,
    /// Each entry's time bank per game (`None`: unlimited).
    pub bank: Option<TimeBank>,
    /// The longest one bot call may take: with isolation, a call stuck past it (still
    /// computing, or blocked for long) is killed and its entry cut off.
    pub call_limit: Option<std::time::Duration>,
    /// Play each game in worker processes (native bots cannot crash the host).
    pub isolation: Option<Arc<Isolation>>,
    /// Play only the games whose lineup seats this entry (`check` of a two-seat game:
    /// the checked bot's pairs, not every ordered pair of the others).
    pub with_entry: Option<usize>,
}

impl<G: Game> Plan<G> {
    /// All `rounds` games of the tournament `seed` on one thread, in this process,
    /// without replays or time bank.
    pub fn new(seed: u64, rounds: u64) -> Plan<G> {
        Plan {
            seed,
            rounds,
            shard: Shard::ALL,
            jobs: 1,
            config: G::Config::default(),
            record: false,
            bank: None,
            call_limit: None,
            isolation: None,
            with_entry: None,
        }
    }

    /// The indices of the games this run plays, in order: the shard's, and with
    /// [`Plan::with_entry`] only those seating that entry.
    pub fn indices(&self, entries: usize) -> Vec<u64> {
        (0..self.rounds)
            .filter(|&i| self.shard.has(i))
            .filter(|&i| self.with_entry.is_none_or(|e| G::lineup(entries, i).contains(&e)))
            .collect()
    }
}

/// A game that could not be played, however often it was tried (its worker failed
/// outside any bot's call, or could not be started): lost, and reported as such.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FailedGame {
    /// Index of the game.
    pub index: u64,
    /// Its seed.
    pub seed: u64,
    /// What happened, in one line.
    pub reason: String,
    /// The entries that were to play it (empty in results written before this was
    /// recorded: then every entry counts it as lost).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entries: Vec<String>,
}

/// How often a game is tried before it counts as lost: a failure outside every bot's
/// call is the host's (or its worker's), so the game is played again from its seed in a
/// fresh worker, the same game.
pub const ATTEMPTS: u32 = 3;

/// One game as recorded in results.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GameRecord {
    /// Index of the game in its tournament.
    pub index: u64,
    /// The game's seed: `arena play --seed` plays it again.
    pub seed: u64,
    /// Turns played.
    pub turns: u32,
    /// Score of each entry.
    pub scores: BTreeMap<String, u32>,
    /// Bot call counters of each entry.
    #[serde(default)]
    pub stats: BTreeMap<String, CallStats>,
    /// The entries seated, in seat order, for games that seat only some of the
    /// tournament's entries ([`Game::lineup`]; hex: humans, then zombies); empty when
    /// every entry plays.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seats: Vec<String>,
    /// Each entry's tie-breaking measure, lower being better (target: its best copy's
    /// distance to the target at the end), for games that have one.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tiebreak: BTreeMap<String, f64>,
}

impl GameRecord {
    fn new(index: u64, names: &[String], outcome: Outcome) -> GameRecord {
        GameRecord {
            seats: Vec::new(),
            index,
            seed: outcome.seed,
            turns: outcome.turns,
            scores: names.iter().cloned().zip(outcome.scores).collect(),
            stats: names.iter().cloned().zip(outcome.stats).collect(),
            tiebreak: names.iter().cloned().zip(outcome.tiebreak).collect(),
        }
    }
}

/// One line of the leaderboard.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Standing {
    /// Entry name.
    pub name: String,
    /// Median score (the ranking key; the mean of the two middle scores for an even count).
    pub median: f64,
    /// Bootstrap 95% confidence interval of the median: lower bound.
    pub median_ci_low: f64,
    /// Bootstrap 95% confidence interval of the median: upper bound.
    pub median_ci_high: f64,
    /// Mean score.
    pub mean: f64,
    /// Lowest score.
    pub min: u32,
    /// Highest score.
    pub max: u32,
    /// Sum of the scores over the games.
    #[serde(default)]
    pub total: u64,
    /// The mean of the entry's tie-breaking measure over the games that have one
    /// (target: its best copy's distance to the target); lower is better, and it
    /// breaks ties of [`Ranking::Total`].
    #[serde(default)]
    pub tiebreak: f64,
    /// [`Ranking::Pairs`]: match points (per opponent: 1 for a win, 1/2 for a draw).
    #[serde(default)]
    pub points: f64,
    /// [`Ranking::Pairs`]: the survival margin, over opponents B, of the mean score in
    /// the first seat against B minus B's mean score in the first seat against it.
    #[serde(default)]
    pub margin: f64,
    /// [`Ranking::Pairs`]: the total, over opponents, of its mean score in the first seat
    /// (hex: survival as humans).
    #[serde(default)]
    pub survival: f64,
    /// Games the entry played (and which count in its scores).
    #[serde(default)]
    pub games: u64,
    /// Games the entry was to play that could not be played (see
    /// [`TournamentResult::failed`]): not in its scores.
    #[serde(default)]
    pub lost: u64,
    /// Mean duration of a bot call, in microseconds (sampled).
    pub mean_call_micros: f64,
    /// Bot call counters over all games.
    #[serde(flatten)]
    pub stats: CallStats,
}

/// The game of a file written before files named their game: the first.
fn first_game() -> String {
    zombies_plugin_abi::FIRST_GAME.to_owned()
}

/// A tournament's results (possibly of one shard, or interrupted).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TournamentResult {
    /// The game played (results written before games had names are zombies').
    #[serde(default = "first_game")]
    pub game: String,
    /// How the leaderboard is ranked.
    #[serde(default = "median_ranking")]
    pub ranking: Ranking,
    /// The tournament's seed.
    pub seed: u64,
    /// Games in the whole tournament.
    pub rounds: u64,
    /// Games finished and recorded here.
    pub played: u64,
    /// Every finished game, by index.
    pub games: Vec<GameRecord>,
    /// Entries ranked by the game's ranking (see [`rank`]).
    pub leaderboard: Vec<Standing>,
    /// Games that could not be played.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed: Vec<FailedGame>,
    /// The games these results are for ([`Shard::ALL`]: all of them, as one run or a
    /// merge gives); `None` in results written before shards were recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// The game's options the games were played with (`--set`, `--max-turns`), as a
    /// JSON map; `null` when not recorded.
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub options: serde_json::Value,
    /// The verdict of a tournament played until decided ([`run_until_decided`]), with
    /// the numbers behind it; `None` for a fixed number of games.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<Decision>,
    /// Entry against entry ([`CrossTable`]), from the games (recomputed by every
    /// summary, so merged results have it too).
    #[serde(default)]
    pub cross_table: CrossTable,
}

/// Entry against entry: for each ordered pair of entries (in leaderboard order), how
/// the row's entry did against the column's. In a game that seats every entry (or some),
/// by score in each game both played: wins, draws and losses, and the row's mean score
/// less the column's. In a two-seat game ranked by pairs (hex): the row's mean score in
/// the first seat against the column less the column's against the row, and the match
/// that decides (a win, a draw or a loss: one of the three is 1).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CrossTable {
    /// The entries, in leaderboard order: rows and columns.
    pub entries: Vec<String>,
    /// `cells[row][column]`; `None` on the diagonal and where the two never met.
    pub cells: Vec<Vec<Option<HeadToHead>>>,
}

/// One cell of a [`CrossTable`]: the row's entry against the column's.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HeadToHead {
    /// Games in which the two met.
    pub games: u64,
    /// Games (pairs: matches) the row's entry won against the column's.
    pub wins: u64,
    /// Games (matches) drawn.
    pub draws: u64,
    /// Games (matches) lost.
    pub losses: u64,
    /// The row's mean score less the column's, over the games they met in (pairs: the
    /// row's mean in the first seat against the column less the column's against it).
    pub margin: f64,
}

/// The [`CrossTable`] of `games`, for the entries `names` (leaderboard order).
pub fn cross_table(ranking: Ranking, names: &[String], games: &[GameRecord]) -> CrossTable {
    let cell = |a: &str, b: &str| -> Option<HeadToHead> {
        if a == b {
            return None;
        }
        if ranking == Ranking::Pairs {
            let first = |x: &str, y: &str| -> Vec<f64> {
                games
                    .iter()
                    .filter(|g| matches!(g.seats.as_slice(), [p, q] if p == x && q == y))
                    .filter_map(|g| g.scores.get(x).map(|&s| f64::from(s)))
                    .collect()
            };
            let (mine, theirs) = (first(a, b), first(b, a));
            if mine.is_empty() || theirs.is_empty() {
                return None;
            }
            let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
            let margin = mean(&mine) - mean(&theirs);
            let (wins, draws, losses) = match margin.total_cmp(&0.0) {
                std::cmp::Ordering::Greater => (1, 0, 0),
                std::cmp::Ordering::Equal => (0, 1, 0),
                std::cmp::Ordering::Less => (0, 0, 1),
            };
            return Some(HeadToHead { games: (mine.len() + theirs.len()) as u64, wins, draws, losses, margin });
        }
        let (mut h, mut sum) = (HeadToHead { games: 0, wins: 0, draws: 0, losses: 0, margin: 0.0 }, 0.0);
        for g in games {
            if let (Some(&x), Some(&y)) = (g.scores.get(a), g.scores.get(b)) {
                h.games += 1;
                sum += f64::from(x) - f64::from(y);
                match x.cmp(&y) {
                    std::cmp::Ordering::Greater => h.wins += 1,
                    std::cmp::Ordering::Equal => h.draws += 1,
                    std::cmp::Ordering::Less => h.losses += 1,
                }
            }
        }
        (h.games > 0).then(|| HeadToHead { margin: sum / h.games as f64, ..h })
    };
    let cells = names.iter().map(|a| names.iter().map(|b| cell(a, b)).collect()).collect();
    CrossTable { entries: names.to_vec(), cells }
}

impl TournamentResult {
    /// These results marked as those of `plan`: its shard and its game options (which
    /// `merge` checks).
    pub fn of_plan<G: Game>(self, plan: &Plan<G>) -> TournamentResult {
        let options = serde_json::to_value(&plan.config).unwrap_or_default();
        TournamentResult { shard: Some(plan.shard), options, ..self }
    }
}

fn median_ranking() -> Ranking {
    Ranking::Median
}

/// Plays one game of a plan with the entries `seats` (indices into `entries`, in seat
/// order): in the thread's worker process if the plan isolates, else here.
pub fn play_one<G: Game>(
    worker: Option<&mut Worker<G>>,
    entries: &[Entry<G>],
    seats: &[usize],
    plan: &Plan<G>,
    seed: u64,
) -> Result<(Outcome, Option<Replay<G>>), String> {
    match worker {
        Some(worker) => worker.play(seats, seed, &plan.config, plan.record),
        None => {
            let seated: Vec<Entry<G>> = seats.iter().map(|&i| entries[i].clone()).collect();
            crate::bot::take_host_fault();
            let played = play_here(&seated, plan, seed);
            // A bot's process killed from outside its box: not a game to count.
            match crate::bot::take_host_fault() {
                Some(reason) => Err(reason),
                None => Ok(played),
            }
        }
    }
}

/// Plays one game of a plan in this process, with the plan's time bank, call limit
/// and recording.
pub fn play_here<G: Game>(entries: &[Entry<G>], plan: &Plan<G>, seed: u64) -> (Outcome, Option<Replay<G>>) {
    let (bank, call_limit) = (plan.bank, plan.call_limit);
    let wrap = move |i, bot| Box::new(Guarded::new(bot, i, bank, None).with_call_limit(call_limit)) as Box<dyn Bot<G>>;
    if plan.record {
        let (outcome, replay) = play_recorded_with(entries, seed, &plan.config, wrap);
        (outcome, Some(replay))
    } else {
        (play_game_with(entries, seed, &plan.config, wrap), None)
    }
}

/// Plays the games of `plan` on `plan.jobs` threads, each game with fresh bots made in
/// the thread that plays it. `stop` is checked before each game starts: once it is set,
/// the games in flight finish and no new one starts. `on_game` sees each finished game
/// (in completion order) on the calling thread, with its replay when `plan.record` is
/// set. The result holds the finished games in index order, so it is the same for
/// every thread count.
pub fn run<G: Game>(
    entries: &[Entry<G>],
    plan: &Plan<G>,
    stop: &AtomicBool,
    on_game: impl FnMut(&GameRecord, Option<Replay<G>>),
) -> TournamentResult {
    let all = plan.indices(entries.len()).len();
    let (games, failed) = play_scheduled(entries, plan, stop, on_game, all, |_, _| all);
    finish(entries, plan, plan.rounds, games, failed)
}

/// Plays the games of `plan` (its `rounds` are the most it may play) in whole batches
/// until [`crate::decide`] gives a verdict under `rule` (whose blocks are rounds of the
/// game: [`Game::games_per_round`] games each), or the plan's games run out; the
/// verdict is in the result's `decision`, and the result's `rounds` are the games
/// scheduled. A batch is decided only once all its games are in, on the games in
/// index order, so the verdict, like the games, is the same for every thread count.
/// `stop` and `on_game` are as for [`run`]; a run stopped mid-batch keeps the last
/// look's decision ([`Verdict::Open`](crate::decide::Verdict::Open) if it was not
/// decided).
pub fn run_until_decided<G: Game>(
    entries: &[Entry<G>],
    plan: &Plan<G>,
    rule: &Rule,
    stop: &AtomicBool,
    on_game: impl FnMut(&GameRecord, Option<Replay<G>>),
) -> TournamentResult {
    let names: Vec<String> = entries.iter().map(|e| e.name.clone()).collect();
    let per_round = G::games_per_round(entries.len()).max(1);
    let rule = Rule { games_per_block: per_round, max_blocks: rule.max_blocks.min(plan.rounds / per_round), ..*rule };
    let mut decision = None;
    let first = (rule.next_look(0) * per_round) as usize;
    let (games, failed) = play_scheduled(entries, plan, stop, on_game, first, |games, scheduled| {
        let blocks = blocks(G::RANKING, &names, games, per_round, scheduled as u64 / per_round);
        let d = decide(&names, &blocks, &rule);
        let next = if d.verdict == Verdict::Open { rule.next_look(d.blocks) * per_round } else { scheduled as u64 };
        decision = Some(d);
        next as usize
    });
    let scheduled = decision.as_ref().map_or(0, |d| d.blocks) * per_round;
    let scheduled = scheduled.max((games.len() + failed.len()) as u64);
    TournamentResult { decision, ..finish(entries, plan, scheduled, games, failed) }
}

/// The results of the games played for `plan`, recorded as a tournament of `rounds`
/// games.
fn finish<G: Game>(
    entries: &[Entry<G>],
    plan: &Plan<G>,
    rounds: u64,
    games: Vec<GameRecord>,
    mut failed: Vec<FailedGame>,
) -> TournamentResult {
    let names: Vec<String> = entries.iter().map(|e| e.name.clone()).collect();
    failed.sort_by_key(|f| f.index);
    count_lost(TournamentResult { failed, ..summarise(G::NAME, G::RANKING, &names, plan.seed, rounds, games) })
        .of_plan(plan)
}

/// Which games the threads may start: the first `allowed` of the plan's indices.
struct Schedule {
    /// The position of the next game to start in the plan's indices.
    next: usize,
    /// Games that may be started.
    allowed: usize,
    /// No more games are to be started.
    done: bool,
}

/// Plays the first `allowed` games of the plan's indices; each time all the games
/// allowed are in (played or failed), `more(games, allowed)` says how many may be played
/// now (no more than before: the end). Returns the finished games and the failed ones.
fn play_scheduled<G: Game>(
    entries: &[Entry<G>],
    plan: &Plan<G>,
    stop: &AtomicBool,
    mut on_game: impl FnMut(&GameRecord, Option<Replay<G>>),
    allowed: usize,
    mut more: impl FnMut(&[GameRecord], usize) -> usize,
) -> (Vec<GameRecord>, Vec<FailedGame>) {
    let names: Vec<String> = entries.iter().map(|e| e.name.clone()).collect();
    let indices = plan.indices(entries.len());
    let schedule = Mutex::new(Schedule { next: 0, allowed: allowed.min(indices.len()), done: false });
    let wake = Condvar::new();
    let (send, receive) = mpsc::channel::<Result<(GameRecord, Option<Replay<G>>), FailedGame>>();
    let mut games = Vec::with_capacity(allowed);
    let mut failed = Vec::new();
    std::thread::scope(|scope| {
        for _ in 0..plan.jobs.max(1).min(indices.len().max(1)) {
            let send = send.clone();
            let (indices, names, schedule, wake) = (&indices, &names, &schedule, &wake);
            scope.spawn(move || {
                // One long-lived worker per thread (started at its first game).
                let mut worker = plan.isolation.as_ref().map(|iso| Worker::new(Arc::clone(iso), entries));
                let everyone: Vec<usize> = (0..entries.len()).collect();
                while let Some(index) = next_game(schedule, wake, indices, stop) {
                    let seed = game_seed(plan.seed, index);
                    // The game's lineup: every entry, or the game's choice (hex: a pair).
                    let seats = G::lineup(entries.len(), index);
                    let seated: Vec<String> = seats.iter().map(|&i| names[i].clone()).collect();
                    // Games ranked by pairs, or seating a subset, record who sat where.
                    let partial = seats != everyone || G::RANKING == Ranking::Pairs;
                    let mut attempt = 1;
                    let played = loop {
                        match play_one(worker.as_mut(), entries, &seats, plan, seed) {
                            Err(_) if attempt < ATTEMPTS && !stop.load(Ordering::SeqCst) => attempt += 1,
                            // A game that fails once the run is stopping (its workers
                            // signalled with the host, say) was interrupted, not lost:
                            // it is not played, like the games not started.
                            Err(_) if stop.load(Ordering::SeqCst) => break Err(None),
                            Err(reason) => break Err(Some(format!("{reason} (tried {attempt} times)"))),
                            Ok(played) => break Ok(played),
                        }
                    };
                    let played = match played {
                        Err(None) => continue,
                        Err(Some(reason)) => Err(reason),
                        Ok(played) => Ok(played),
                    };
                    let result = played
                        .map(|(outcome, replay)| {
                            let record = GameRecord::new(index, &seated, outcome);
                            (GameRecord { seats: if partial { seated.clone() } else { Vec::new() }, ..record }, replay)
                        })
                        .map_err(|reason| FailedGame { index, seed, reason, entries: seated.clone() });
                    if send.send(result).is_err() {
                        break;
                    }
                }
            });
        }
        drop(send);
        let mut received = 0;
        for result in receive {
            match result {
                Ok((record, replay)) => {
                    on_game(&record, replay);
                    games.push(record);
                }
                Err(failure) => failed.push(failure),
            }
            received += 1;
            let Ok(mut s) = schedule.lock() else { break };
            if received == s.allowed && !s.done {
                // A whole batch is in: the next one, if any, is decided on it.
                let now = more(&games, s.allowed).min(indices.len());
                if now > s.allowed {
                    s.allowed = now;
                } else {
                    s.done = true;
                }
                wake.notify_all();
            }
        }
    });
    (games, failed)
}

/// The next game a thread plays: the next index allowed, waiting while a batch is being
/// decided; `None` once stopped, done, or every index is taken.
fn next_game(schedule: &Mutex<Schedule>, wake: &Condvar, indices: &[u64], stop: &AtomicBool) -> Option<u64> {
    let mut s = schedule.lock().ok()?;
    loop {
        if stop.load(Ordering::SeqCst) || s.done || s.next >= indices.len() {
            return None;
        }
        if s.next < s.allowed {
            s.next += 1;
            return indices.get(s.next - 1).copied();
        }
        // Woken when the batch is decided; the timeout lets a stop be seen.
        s = wake.wait_timeout(s, std::time::Duration::from_millis(100)).ok()?.0;
    }
}

/// The blocks of [`crate::decide`] from a tournament's finished games (any order): one
/// per round of `per_round` games, `rounds` of them. A game that seats every entry is a
/// block of its scores ([`Ranking::Median`]: of each entry's rank in the game, the
/// entries it beat plus half those it tied, as the median is robust to the size of a
/// score; otherwise the scores themselves, whose mean or total ranks them); a round of
/// two-seat games ([`Ranking::Pairs`]) is a block of the ordered pairs' results (the
/// first seat's score). A game that failed leaves its block's results unknown.
pub fn blocks(ranking: Ranking, names: &[String], games: &[GameRecord], per_round: u64, rounds: u64) -> Vec<Block> {
    let k = names.len();
    let index_of = |name: &str| names.iter().position(|n| n == name);
    let per_round = per_round.max(1);
    let mut rounds_games: Vec<Vec<&GameRecord>> = vec![Vec::new(); rounds as usize];
    for g in games {
        if let Some(round) = rounds_games.get_mut((g.index / per_round) as usize) {
            round.push(g);
        }
    }
    rounds_games
        .into_iter()
        .map(|round| {
            if ranking == Ranking::Pairs {
                let mut first_seat = vec![None; k * k];
                for g in &round {
                    if let [a, b] = g.seats.as_slice() {
                        if let (Some(i), Some(l), Some(&s)) = (index_of(a), index_of(b), g.scores.get(a)) {
                            first_seat[i * k + l] = Some(f64::from(s));
                        }
                    }
                }
                return Block::from_pairs(k, |i, l| first_seat[i * k + l]);
            }
            let scores: Vec<Option<f64>> = match round.first() {
                None => vec![None; k],
                Some(g) => {
                    let score = |n: &String| g.scores.get(n).map(|&s| f64::from(s));
                    let of = |n: &String| match (ranking, score(n)) {
                        (Ranking::Median, Some(mine)) => {
                            let others = names.iter().filter(|o| *o != n).filter_map(score);
                            Some(
                                others
                                    .map(|s| {
                                        if s < mine {
                                            1.0
                                        } else if s == mine {
                                            0.5
                                        } else {
                                            0.0
                                        }
                                    })
                                    .sum(),
                            )
                        }
                        (_, mine) => mine,
                    };
                    names.iter().map(of).collect()
                }
            };
            Block::from_scores(&scores)
        })
        .collect()
}

/// Fills each standing's [`Standing::lost`] from the result's failed games.
pub fn count_lost(mut result: TournamentResult) -> TournamentResult {
    for s in &mut result.leaderboard {
        s.lost = result.failed.iter().filter(|f| f.entries.is_empty() || f.entries.contains(&s.name)).count() as u64;
    }
    result
}

/// Builds the results of a set of finished games (in any order; duplicates by index
/// are kept once). Entry names come from `names`, then from the games.
pub fn summarise(
    game: &str,
    ranking: Ranking,
    names: &[String],
    seed: u64,
    rounds: u64,
    mut games: Vec<GameRecord>,
) -> TournamentResult {
    games.sort_by_key(|g| g.index);
    games.dedup_by_key(|g| g.index);
    let mut all_names: Vec<String> = names.to_vec();
    for g in &games {
        for n in g.scores.keys() {
            if !all_names.contains(n) {
                all_names.push(n.clone());
            }
        }
    }
    let mut leaderboard: Vec<Standing> = all_names
        .iter()
        .map(|name| {
            let scores: Vec<u32> = games.iter().filter_map(|g| g.scores.get(name).copied()).collect();
            let mut stats = CallStats::default();
            for g in &games {
                if let Some(s) = g.stats.get(name) {
                    stats.merge(s);
                }
            }
            let (median_ci_low, median_ci_high) = bootstrap_median_ci(&scores, seed ^ hash_name(name));
            Standing {
                name: name.clone(),
                median: median(&scores),
                median_ci_low,
                median_ci_high,
                mean: mean(&scores),
                min: scores.iter().copied().min().unwrap_or(0),
                max: scores.iter().copied().max().unwrap_or(0),
                total: scores.iter().map(|&s| u64::from(s)).sum(),
                tiebreak: {
                    let measures: Vec<f64> = games.iter().filter_map(|g| g.tiebreak.get(name).copied()).collect();
                    if measures.is_empty() { 0.0 } else { measures.iter().sum::<f64>() / measures.len() as f64 }
                },
                points: 0.0,
                margin: 0.0,
                survival: 0.0,
                games: scores.len() as u64,
                lost: 0,
                mean_call_micros: stats.mean_micros(),
                stats,
            }
        })
        .collect();
    if ranking == Ranking::Pairs {
        pair_points(&mut leaderboard, &games);
    }
    rank(&mut leaderboard, ranking);
    let names: Vec<String> = leaderboard.iter().map(|s| s.name.clone()).collect();
    let cross_table = cross_table(ranking, &names, &games);
    TournamentResult {
        cross_table,
        game: game.to_owned(),
        ranking,
        seed,
        rounds,
        played: games.len() as u64,
        games,
        leaderboard,
        failed: Vec::new(),
        shard: None,
        options: serde_json::Value::Null,
        decision: None,
    }
}

/// Why results files cannot be merged. Each names the files (as given to
/// [`merge_named`]) and says what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    /// No results given.
    #[error("nothing to merge")]
    Empty,
    /// Files of different tournaments.
    #[error("{a_file} and {b_file}: {what} differ: {a} vs {b} (results of different tournaments)")]
    Mismatch {
        /// What differs.
        what: &'static str,
        /// The file of one value.
        a_file: String,
        /// One value.
        a: String,
        /// The file of the other.
        b_file: String,
        /// The other.
        b: String,
    },
    /// Shards of different splits of the tournament (`--shard K/N` with different N).
    #[error("{a_file} and {b_file}: shards of different splits ({a} vs {b}); merge the shards of one split")]
    Split {
        /// The file of one shard.
        a_file: String,
        /// Its shard, `K/N`.
        a: String,
        /// The file of the other.
        b_file: String,
        /// Its shard.
        b: String,
    },
    /// The same shard, or the same game, in two files.
    #[error("{a_file} and {b_file}: both hold {what}; give each shard once")]
    Twice {
        /// `shard K/N` or `game I`.
        what: String,
        /// The first file.
        a_file: String,
        /// The second.
        b_file: String,
    },
    /// Whole shards without results.
    #[error("shard{} {} of {n} missing: no results given for {}; play {} (or merge with --partial)",
        if missing.len() > 1 { "s" } else { "" }, list(missing), if missing.len() > 1 { "them" } else { "it" },
        if missing.len() > 1 { "them" } else { "it" })]
    MissingShards {
        /// The numbers `K` of the shards missing (from 1).
        missing: Vec<u64>,
        /// The number of shards.
        n: u64,
    },
    /// Games missing from results given (neither played nor failed): an interrupted run.
    #[error("{file}: {what} is incomplete: {held} of {expected} games{why}; play it again (or merge with --partial)")]
    Incomplete {
        /// The file.
        file: String,
        /// `shard K/N`, or `the tournament` (results that record no shard).
        what: String,
        /// Games it holds (played, or failed and recorded as such).
        held: u64,
        /// Games it should hold.
        expected: u64,
        /// Why, or which games are missing.
        why: String,
    },
}

/// `1, 3, 5` (at most 10 numbers, then `...`).
fn list(numbers: &[u64]) -> String {
    let mut shown: Vec<String> = numbers.iter().take(10).map(u64::to_string).collect();
    if numbers.len() > 10 {
        shown.push("...".to_owned());
    }
    shown.join(", ")
}

/// Merges the results of all the shards of one tournament into the results a single
/// run of all their games gives ([`merge_named`] with the files called `results 1`,
/// `results 2`, ..., and nothing missing).
pub fn merge(parts: Vec<TournamentResult>) -> Result<TournamentResult, MergeError> {
    merge_named(parts.into_iter().enumerate().map(|(i, p)| (format!("results {}", i + 1), p)).collect(), false)
}

/// Merges the results of the shards of one tournament (each with the name of its file)
/// into the results a single run of all their games gives.
///
/// Refused, in one line naming the files: results of different tournaments (game,
/// seed, rounds, game options or entry set differ), shards of different splits, a
/// shard or game given twice, and, unless `partial`, a shard missing or incomplete (an
/// interrupted run: games neither played nor recorded as failed). Games that failed
/// stay in the result's `failed`, as in a one-machine run. With `partial`, the result
/// holds the games given and says how many were played.
pub fn merge_named(parts: Vec<(String, TournamentResult)>, partial: bool) -> Result<TournamentResult, MergeError> {
    let (first_file, first) = parts.first().ok_or(MergeError::Empty)?;
    let first_file = first_file.clone();
    let (seed, rounds, game, ranking) = (first.seed, first.rounds, first.game.clone(), first.ranking);
    let options = first.options.clone();
    let names: Vec<String> = first.leaderboard.iter().map(|s| s.name.clone()).collect();
    let mut sorted_names = names.clone();
    sorted_names.sort();
    // Every part records its shard (else the check is by games only).
    let tagged = parts.iter().all(|(_, p)| p.shard.is_some());
    let mut shards: BTreeMap<u64, (Shard, String)> = BTreeMap::new();
    let mut games: BTreeMap<u64, (GameRecord, String)> = BTreeMap::new();
    let mut failed: BTreeMap<u64, FailedGame> = BTreeMap::new();
    let mut incomplete = None;
    for (file, part) in parts {
        let mismatch = |what, a: String, b: String| MergeError::Mismatch {
            what,
            a_file: first_file.clone(),
            a,
            b_file: file.clone(),
            b,
        };
        if part.game != game {
            return Err(mismatch("games", game.clone(), part.game.clone()));
        }
        if part.seed != seed {
            return Err(mismatch("seeds", seed.to_string(), part.seed.to_string()));
        }
        if part.rounds != rounds {
            return Err(mismatch("round counts", rounds.to_string(), part.rounds.to_string()));
        }
        if part.options != options {
            return Err(mismatch("game options", options.to_string(), part.options.to_string()));
        }
        let mut these: Vec<String> = part.leaderboard.iter().map(|s| s.name.clone()).collect();
        these.sort();
        if these != sorted_names {
            return Err(mismatch("entries", sorted_names.join(","), these.join(",")));
        }
        let shard = part.shard.unwrap_or(Shard::ALL);
        if let Some((other, other_file)) = shards.values().next().filter(|(s, _)| s.n != shard.n) {
            return Err(MergeError::Split {
                a_file: other_file.clone(),
                a: other.to_string(),
                b_file: file,
                b: shard.to_string(),
            });
        }
        if tagged {
            if let Some((_, other_file)) = shards.get(&shard.k) {
                let what = format!("shard {shard}");
                return Err(MergeError::Twice { what, a_file: other_file.clone(), b_file: file });
            }
            shards.insert(shard.k, (shard, file.clone()));
        }
        let expected = (0..rounds).filter(|&i| shard.has(i)).count() as u64;
        // Games that failed are accounted for (a one-machine run records them too);
        // games neither played nor failed were never reached (an interrupted run).
        let held = (part.games.len() + part.failed.len()) as u64;
        if part.shard.is_some() && held < expected && incomplete.is_none() {
            let why = " (an interrupted run)".to_owned();
            let what = format!("shard {shard}");
            incomplete = Some(MergeError::Incomplete { file: file.clone(), what, held, expected, why });
        }
        failed.extend(part.failed.into_iter().map(|f| (f.index, f)));
        for g in part.games {
            if let Some((_, other_file)) = games.get(&g.index) {
                let what = format!("game {}", g.index);
                return Err(MergeError::Twice { what, a_file: other_file.clone(), b_file: file });
            }
            games.insert(g.index, (g, file.clone()));
        }
    }
    if !partial {
        let n = shards.values().next().map_or(1, |(s, _)| s.n);
        let missing: Vec<u64> = (1..=n).filter(|k| !shards.contains_key(k)).collect();
        if tagged && !missing.is_empty() {
            return Err(MergeError::MissingShards { missing, n });
        }
        if let Some(e) = incomplete {
            return Err(e);
        }
        // Results that record no shard: say which games are missing.
        let absent: Vec<u64> = (0..rounds).filter(|i| !games.contains_key(i) && !failed.contains_key(i)).collect();
        if !absent.is_empty() {
            return Err(MergeError::Incomplete {
                file: first_file,
                what: "the tournament".to_owned(),
                held: rounds - absent.len() as u64,
                expected: rounds,
                why: format!(" (games {} missing)", list(&absent)),
            });
        }
    }
    failed.retain(|index, _| !games.contains_key(index));
    // The entry order of a run is its discovery order; ranking does not depend on it.
    let games = games.into_values().map(|(g, _)| g).collect();
    let result = summarise(&game, ranking, &names, seed, rounds, games);
    let shard = tagged.then_some(Shard::ALL);
    Ok(count_lost(TournamentResult { failed: failed.into_values().collect(), shard, options, ..result }))
}

/// [`Ranking::Pairs`]: fills each standing's match points, margin and survival from the
/// two-seat games (`seats`: first seat, second seat; the first seat's score is the
/// pair's measure, hex survival as humans). Per ordered pair (A, B), the mean of A's
/// scores against B over the rounds; A and B are compared only once both orders were
/// played (so the summary depends only on the set of games, and a merge of shards
/// equals a one-machine run).
fn pair_points(leaderboard: &mut [Standing], games: &[GameRecord]) {
    let mut sums: BTreeMap<(&str, &str), (f64, u32)> = BTreeMap::new();
    for g in games {
        if let [a, b] = g.seats.as_slice() {
            if let Some(&s) = g.scores.get(a) {
                let e = sums.entry((a.as_str(), b.as_str())).or_insert((0.0, 0));
                e.0 += f64::from(s);
                e.1 += 1;
            }
        }
    }
    let mean = |a: &str, b: &str| sums.get(&(a, b)).map(|&(sum, n)| sum / f64::from(n));
    // Opponents in name order, so that the sums do not depend on the entries' order.
    let mut names: Vec<String> = leaderboard.iter().map(|s| s.name.clone()).collect();
    names.sort();
    for s in leaderboard.iter_mut() {
        for other in names.iter().filter(|o| **o != s.name) {
            if let Some(mine) = mean(&s.name, other) {
                s.survival += mine;
                if let Some(theirs) = mean(other, &s.name) {
                    s.margin += mine - theirs;
                    s.points += match mine.total_cmp(&theirs) {
                        std::cmp::Ordering::Greater => 1.0,
                        std::cmp::Ordering::Equal => 0.5,
                        std::cmp::Ordering::Less => 0.0,
                    };
                }
            }
        }
    }
}

fn hash_name(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

/// Resamples drawn for the confidence interval of a median.
pub const BOOTSTRAP_RESAMPLES: usize = 1000;

/// A percentile bootstrap 95% confidence interval of the median of `values`, with a
/// generator seeded from `seed` (so the same scores always give the same interval).
pub fn bootstrap_median_ci(values: &[u32], seed: u64) -> (f64, f64) {
    bootstrap_ci(values, seed, median)
}

/// A percentile bootstrap 95% confidence interval of the mean of `values`: like every
/// percentile interval it stays within the scores' range (never below 0 for scores that
/// cannot be, as a normal approximation does for skewed scores such as 0, 0, 0, 3).
pub fn bootstrap_mean_ci(values: &[u32], seed: u64) -> (f64, f64) {
    bootstrap_ci(values, seed, mean)
}

/// A percentile bootstrap 95% confidence interval of `statistic` over `values`.
fn bootstrap_ci(values: &[u32], seed: u64, statistic: fn(&[u32]) -> f64) -> (f64, f64) {
    match values.len() {
        0 => return (0.0, 0.0),
        1 => return (f64::from(values[0]), f64::from(values[0])),
        _ => {}
    }
    let mut rng = StatsRng::seed_from_u64(seed);
    let mut sample = vec![0u32; values.len()];
    let mut medians: Vec<f64> = (0..BOOTSTRAP_RESAMPLES)
        .map(|_| {
            for s in sample.iter_mut() {
                *s = values[rng.random_range(0..values.len())];
            }
            statistic(&sample)
        })
        .collect();
    medians.sort_by(f64::total_cmp);
    let at = |q: f64| medians[((q * (medians.len() - 1) as f64).round() as usize).min(medians.len() - 1)];
    (at(0.025), at(0.975))
}

/// Sorts standings best first by the game's ranking (each key descending), then name:
/// median then mean, mean then median, total then mean, or match points then margin
/// then survival.
pub fn rank(standings: &mut [Standing], ranking: Ranking) {
    standings.sort_by(|a, b| {
        let keys = match ranking {
            Ranking::Median => b.median.total_cmp(&a.median).then(b.mean.total_cmp(&a.mean)),
            Ranking::Mean => b.mean.total_cmp(&a.mean).then(b.median.total_cmp(&a.median)),
            Ranking::Total => {
                b.total.cmp(&a.total).then(a.tiebreak.total_cmp(&b.tiebreak)).then(b.mean.total_cmp(&a.mean))
            }
            Ranking::Pairs => b
                .points
                .total_cmp(&a.points)
                .then(b.margin.total_cmp(&a.margin))
                .then(b.survival.total_cmp(&a.survival)),
        };
        keys.then_with(|| a.name.cmp(&b.name))
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

/// The leaderboard as CSV (a header line, then one line per entry, best first).
pub fn leaderboard_csv(result: &TournamentResult) -> String {
    let mut out = String::from(
        "rank,name,median,median_ci_low,median_ci_high,mean,min,max,calls,mean_call_micros,errors,overruns,disqualified",
    );
    let pairs = result.ranking == Ranking::Pairs;
    out.push_str(if pairs { ",points,margin,survival\n" } else { "\n" });
    for (i, s) in result.leaderboard.iter().enumerate() {
        let name = if s.name.contains([',', '"', '\n']) {
            format!("\"{}\"", s.name.replace('"', "\"\""))
        } else {
            s.name.clone()
        };
        out.push_str(&format!(
            "{},{},{},{},{},{:.3},{},{},{},{:.3},{},{},{}\n",
            i + 1,
            name,
            s.median,
            s.median_ci_low,
            s.median_ci_high,
            s.mean,
            s.min,
            s.max,
            s.stats.calls,
            s.mean_call_micros,
            s.stats.errors,
            s.stats.overruns,
            s.stats.disqualified
        ));
        if pairs {
            out.pop();
            out.push_str(&format!(",{},{:.3},{:.3}\n", s.points, s.margin, s.survival));
        }
    }
    out
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
    fn bootstrap_interval_contains_the_median_and_is_reproducible() {
        let scores = [289, 167, 215, 146, 237, 180, 199, 250, 120, 222];
        let (lo, hi) = bootstrap_median_ci(&scores, 9);
        let m = median(&scores);
        assert!(lo <= m && m <= hi, "{lo} <= {m} <= {hi}");
        assert!(lo >= 120.0 && hi <= 289.0);
        assert_eq!((lo, hi), bootstrap_median_ci(&scores, 9));
        assert_eq!(bootstrap_median_ci(&[5, 5, 5], 1), (5.0, 5.0));
    }

    fn record(index: u64, scores: &[(&str, u32)], seats: &[&str]) -> GameRecord {
        GameRecord {
            index,
            seed: index,
            turns: 1,
            scores: scores.iter().map(|&(n, s)| (n.to_owned(), s)).collect(),
            stats: BTreeMap::new(),
            seats: seats.iter().map(|s| (*s).to_owned()).collect(),
            tiebreak: BTreeMap::new(),
        }
    }

    #[test]
    fn blocks_compare_scores_ranks_or_ordered_pairs_as_the_ranking_does() {
        let names: Vec<String> = ["A", "B", "C"].iter().map(|s| (*s).to_owned()).collect();
        let games = [record(1, &[("A", 9), ("B", 1), ("C", 1)], &[]), record(0, &[("A", 2), ("B", 5), ("C", 0)], &[])];
        // Means and totals: the scores; in index order, whatever order the games came in.
        let b = blocks(Ranking::Total, &names, &games, 1, 2);
        assert_eq!((b[0].advantage(0, 1), b[1].advantage(0, 1)), (Some(-3.0), Some(8.0)));
        // Medians: the ranks in each game (entries beaten, half the ties).
        let b = blocks(Ranking::Median, &names, &games, 1, 2);
        assert_eq!((b[1].advantage(0, 1), b[1].advantage(1, 2)), (Some(1.5), Some(0.0)));
        // A game not in (failed, or not played yet) is a block of unknowns.
        assert_eq!(blocks(Ranking::Mean, &names, &games, 1, 3)[2].advantage(0, 1), None);
        // Pairs: a round of ordered pairs, each pair's first seats against each other.
        let pairs = [record(0, &[("A", 7), ("B", 0)], &["A", "B"]), record(1, &[("B", 4), ("A", 0)], &["B", "A"])];
        let b = blocks(Ranking::Pairs, &names[..2], &pairs, 2, 1);
        assert_eq!((b.len(), b[0].advantage(0, 1)), (1, Some(3.0)));
    }

    #[test]
    fn shards_count_from_1_parse_and_partition() {
        let s: Shard = "2/3".parse().unwrap();
        assert!(s.has(1) && s.has(4) && !s.has(2) && !s.has(0));
        let last: Shard = "3/3".parse().unwrap();
        assert!(last.has(2) && last.has(5) && !last.has(3));
        assert!("1/1".parse::<Shard>().unwrap().has(7));
        let refused = |s: &str| s.parse::<Shard>().unwrap_err();
        assert_eq!(refused("0/3"), "shard 0/3: shards count from 1: K is 1 to 3 (1/3 is the first shard)");
        assert_eq!(refused("4/3"), "shard 4/3: K is at most N: 3 shards are 1/3 to 3/3");
        assert_eq!(refused("1/0"), "shard 1/0: N, the number of shards, must be at least 1");
        assert_eq!(refused("x"), "shard \"x\": give K/N, e.g. 1/4 (shard 1 of 4)");
        assert_eq!(refused("a/2"), "shard \"a/2\": K \"a\" is not a whole number");
    }

    #[test]
    fn shards_are_written_as_k_of_n_and_read_as_written_before() {
        let s = Shard { k: 2, n: 3 };
        assert_eq!(serde_json::to_string(&s).unwrap(), "\"2/3\"");
        assert_eq!(serde_json::from_str::<Shard>("\"2/3\"").unwrap(), s);
        // Results written when shards counted from 0 recorded this shard as k 1 of n 3.
        assert_eq!(serde_json::from_str::<Shard>(r#"{"k": 1, "n": 3}"#).unwrap(), s);
        assert!(serde_json::from_str::<Shard>(r#"{"k": 3, "n": 3}"#).is_err());
        assert!(serde_json::from_str::<Shard>("\"0/3\"").is_err());
    }
}
