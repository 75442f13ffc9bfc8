//! The ladder running: batch after batch, scan the bot directories and record what they
//! hold (new entries, new versions, files that did not load), rate, schedule the batch
//! (`schedule`), play its games on `jobs` threads through the arena's tournament
//! machinery (`arena::tournament::play_one`: the plan's isolation, time bank, call limit
//! and verdicts; a game whose worker fails outside every bot is tried again, then stored
//! as lost with its reason), and commit each game as it finishes, in one transaction
//! with its result.
//!
//! Game `id` is played with the seed `arena::tournament::game_seed(S, id)` of the
//! ladder's seed `S`, and its id is given when it is scheduled, so a game is the same
//! whoever plays it and whenever it finishes. A batch is a function of the database
//! before it and of the entries found (never of the jobs), so the same ladder run with 1
//! or 2 jobs plays the same games and ends with the same ratings.
//!
//! What survives what: a game is in the database whole or not at all; a ladder killed
//! loses only its games in flight, and the next run starts after the largest stored id;
//! the ratings are brought up to date with the stored games at the start of every batch
//! and at the end (extended by the games committed since: `Store::update_ratings`), so a
//! kill between a commit and the ratings costs nothing.
//!
//! Not here: finding the bots (the caller's `scan`), the database's statements (`store`),
//! printing.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};

use arena::bot::Entry;
use arena::game::{Game, Ranking};
use arena::isolate::Worker;
use arena::loaders::Discovery;
use arena::tournament::{ATTEMPTS, Plan, game_seed, play_one};
use sha2::{Digest, Sha256};

use crate::LadderError;
use crate::schedule::schedule;
use crate::store::{Found, GameRow, LoadError, Rerated, Store, Synced};

/// Seats of a free-for-all game when not given: the game's usual lineup is every entry,
/// and a ladder seats at most this many of them.
pub const DEFAULT_SEATS: usize = 8;

/// Games scheduled at once when not given: the ladder rescans and rates between batches.
pub const DEFAULT_BATCH: usize = 16;

/// How the ladder plays.
#[derive(Debug, Clone)]
pub struct Settings<G: Game> {
    /// The ladder's seed (`plan.seed`), games at once (`plan.jobs`), the game's options,
    /// time bank, call limit, isolation, and whether replays are stored (`plan.record`).
    pub plan: Plan<G>,
    /// Games scheduled per batch (not a function of the jobs: the games are not either).
    pub batch: usize,
    /// Seats of a free-for-all game (at most the entries; games of pairs seat two).
    pub seats: usize,
    /// Games to play before stopping (`None`: until `stop`).
    pub games: Option<u64>,
}

/// What the ladder tells its caller as it goes.
#[derive(Debug)]
pub enum Event<'a> {
    /// A scan was recorded: what changed, and the files that did not load.
    Scanned(&'a Synced, &'a [LoadError]),
    /// A game was committed.
    Game(&'a GameRow),
    /// A worker scheduled the games `first` to `last` into the queue (`work`).
    Scheduled {
        /// The first game's id.
        first: i64,
        /// The last game's id.
        last: i64,
    },
    /// A worker played game `.0` but no longer held its lease (it expired, and another
    /// worker took the game over): not committed by this worker (`work`).
    Dropped(i64),
}

/// What a run did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Games committed as played.
    pub played: u64,
    /// Games committed as lost (not playable, with their reason).
    pub lost: u64,
    /// Batches scheduled.
    pub batches: u64,
}

/// The SHA-256 of a file's bytes, in hex, and its size.
pub fn file_hash(path: &std::path::Path) -> std::io::Result<(String, u64)> {
    let bytes = std::fs::read(path)?;
    let digest = Sha256::digest(&bytes);
    Ok((digest.iter().map(|b| format!("{b:02x}")).collect(), bytes.len() as u64))
}

/// Recomputes and stores the ratings of `G`'s versions from every played game, from
/// scratch.
pub fn rerate<G: Game>(store: &Store) -> Result<Rerated, LadderError> {
    store.update_ratings(G::NAME, G::RANKING, true)
}

/// Brings the stored ratings of `G`'s versions up to date with the played games,
/// extending them by the games committed since (`Store::update_ratings`).
pub fn update_ratings<G: Game>(store: &Store) -> Result<Rerated, LadderError> {
    store.update_ratings(G::NAME, G::RANKING, false)
}

/// Brings the stored ratings of `G`'s versions up to date when they lag behind the
/// played games and no ladder runs on the database (what the reading commands call
/// first). While one runs, the ratings are left as of its latest batch, which it rates
/// itself: with its games in flight, rating the committed ones would fold games that
/// finished early before those still playing, and oblige its next update to fold
/// every game from scratch.
pub fn ensure_rated<G: Game>(store: &Store) -> Result<(), LadderError> {
    if store.ratings_fresh(G::NAME)? {
        return Ok(());
    }
    match store.ladder_lock(false) {
        Err(LadderError::Busy { .. }) => Ok(()),
        _ => update_ratings::<G>(store).map(|_| ()),
    }
}

/// Runs the ladder until `settings.games` games are committed or `stop` is set (then
/// the games in flight finish and are committed). `scan` finds the entries; it is
/// called before every batch.
pub fn run<G: Game>(
    store: &Store,
    settings: &Settings<G>,
    scan: &mut dyn FnMut() -> Discovery<G>,
    stop: &AtomicBool,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<Summary, LadderError> {
    let mut summary = Summary::default();
    let done = |s: &Summary| settings.games.is_some_and(|n| s.played + s.lost >= n);
    while !stop.load(Ordering::SeqCst) && !done(&summary) {
        let left = settings.games.map_or(u64::MAX, |n| n - summary.played - summary.lost);
        let (entries, games) = plan_batch(store, settings.batch, settings.seats, scan(), left, on_event)?;
        let batch = play_batch(store, settings, &entries, &games, stop, on_event)?;
        summary.played += batch.played;
        summary.lost += batch.lost;
        summary.batches += 1;
    }
    update_ratings::<G>(store)?;
    Ok(summary)
}

/// Plans the next batch of `G`: records the scan `discovery` (told to `on_event`),
/// brings the ratings up to date, and schedules `batch` games (at most `left`; games of
/// pairs in whole matches) with the ids after the largest stored or queued. The entries
/// that play, and the games with their seats as indices into them. What `ladder run` does
/// before each batch and what the worker that tops up the queue does (`work`): the same
/// function of the database and the entries found.
pub(crate) fn plan_batch<G: Game>(
    store: &Store,
    batch: usize,
    seats: usize,
    discovery: Discovery<G>,
    left: u64,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<(Vec<Entry<G>>, Vec<Scheduled>), LadderError> {
    let pairs = G::RANKING == Ranking::Pairs;
    let (entries, synced, failed) = record_scan(store, discovery)?;
    on_event(Event::Scanned(&synced, &failed));
    if entries.len() < 2 {
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        return Err(LadderError::TooFew(format!(
            "a ladder game needs two {} entries at least; found {} ({})",
            G::NAME,
            entries.len(),
            if names.is_empty() { "none".to_owned() } else { names.join(", ") }
        )));
    }
    update_ratings::<G>(store)?;
    let (candidates, meetings) = store.candidates(G::NAME, &synced.versions)?;
    let count = (batch.max(1) as u64).min(left) as usize;
    let lineups = schedule(&candidates, &meetings, seats, pairs, count);
    let first = store.next_game_id()?;
    let games = lineups
        .into_iter()
        .enumerate()
        .map(|(i, versions)| {
            let id = first + i as i64;
            let seats = versions
                .iter()
                .map(|v| synced.versions.iter().position(|s| s == v).expect("scheduled among those found"))
                .collect();
            let pairing = pairs.then_some(if i % 2 == 0 { id } else { id - 1 });
            Scheduled { id, versions, seats, pairing }
        })
        .collect();
    Ok((entries, games))
}

/// A scan recorded: the entries that play (those whose file could be read), what
/// changed, and the files that did not load.
type Scan<G> = (Vec<Entry<G>>, Synced, Vec<LoadError>);

/// A scan's entries (those whose file could be read), recorded in the store.
fn record_scan<G: Game>(store: &Store, discovery: Discovery<G>) -> Result<Scan<G>, LadderError> {
    let mut failed: Vec<LoadError> = discovery
        .skipped
        .iter()
        .filter(|s| s.other_game().is_none())
        .map(|s| LoadError { path: s.path.display().to_string(), reason: s.reason.clone() })
        .collect();
    let mut entries = Vec::new();
    let mut found = Vec::new();
    for e in discovery.entries {
        match file_hash(&e.source) {
            Ok((sha256, size)) => {
                found.push(Found {
                    name: e.name.clone(),
                    kind: e.kind.to_string(),
                    path: e.source.clone(),
                    sha256,
                    size,
                });
                entries.push(e);
            }
            Err(why) => {
                failed.push(LoadError { path: e.source.display().to_string(), reason: format!("cannot read: {why}") })
            }
        }
    }
    let synced = store.sync(G::NAME, &found, &failed)?;
    Ok((entries, synced, failed))
}

/// A game of a batch: its id, the versions seated and their indices in the batch's
/// entries, in seat order.
#[derive(Debug, Clone)]
pub(crate) struct Scheduled {
    pub(crate) id: i64,
    pub(crate) versions: Vec<i64>,
    pub(crate) seats: Vec<usize>,
    pub(crate) pairing: Option<i64>,
}

/// Plays the scheduled `game` among `entries` with `plan` (in `worker` when isolated),
/// trying again a game whose worker failed outside every bot (`ATTEMPTS` in all), and
/// gives it as it is committed: played, or lost with why. Its seed is `game_seed(ladder_seed,
/// id)`; `options` is the plan's game options as JSON.
pub(crate) fn play_game<G: Game>(
    worker: Option<&mut Worker<G>>,
    entries: &[Entry<G>],
    game: &Scheduled,
    (plan, ladder_seed): (&Plan<G>, u64),
    options: &str,
    stop: &AtomicBool,
) -> GameRow {
    let mut worker = worker;
    let seed = game_seed(ladder_seed, game.id as u64);
    let mut attempt = 1;
    let played = loop {
        match play_one(worker.as_deref_mut(), entries, &game.seats, plan, seed) {
            Err(_) if attempt < ATTEMPTS && !stop.load(Ordering::SeqCst) => attempt += 1,
            Err(reason) => break Err(format!("{reason} (tried {attempt} times)")),
            Ok(played) => break Ok(played),
        }
    };
    let (result, replay) = match played {
        Ok((outcome, replay)) => {
            let seats = outcome
                .scores
                .iter()
                .zip(&outcome.stats)
                .map(|(&score, stats)| (score, serde_json::to_string(stats).unwrap_or_default()))
                .collect();
            (Ok((outcome.turns, seats)), replay.map(|r| r.to_bytes()))
        }
        Err(reason) => (Err(reason), None),
    };
    GameRow {
        id: game.id,
        game: G::NAME.to_owned(),
        seed,
        ladder_seed,
        rules_version: G::RULES_VERSION,
        options: options.to_owned(),
        pairing: game.pairing,
        lineup: game.versions.clone(),
        result,
        replay,
    }
}

/// Plays a batch on the plan's jobs, committing each game on this thread as it finishes.
fn play_batch<G: Game>(
    store: &Store,
    settings: &Settings<G>,
    entries: &[Entry<G>],
    games: &[Scheduled],
    stop: &AtomicBool,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<Summary, LadderError> {
    let plan = &settings.plan;
    let next = AtomicUsize::new(0);
    // Set when a commit fails: no new game starts.
    let failed_commit = AtomicBool::new(false);
    let options = serde_json::to_string(&plan.config).unwrap_or_else(|_| "null".to_owned());
    let mut summary = Summary::default();
    let mut error = None;
    let (send, receive) = mpsc::channel::<GameRow>();
    std::thread::scope(|scope| {
        for _ in 0..plan.jobs.max(1).min(games.len().max(1)) {
            let send = send.clone();
            let (next, failed_commit, options) = (&next, &failed_commit, &options);
            scope.spawn(move || {
                let mut worker = plan.isolation.as_ref().map(|iso| Worker::new(Arc::clone(iso), entries));
                while !stop.load(Ordering::SeqCst) && !failed_commit.load(Ordering::SeqCst) {
                    let Some(game) = games.get(next.fetch_add(1, Ordering::SeqCst)) else { break };
                    let row = play_game(worker.as_mut(), entries, game, (plan, plan.seed), options, stop);
                    if send.send(row).is_err() {
                        break;
                    }
                }
            });
        }
        drop(send);
        for row in receive {
            if error.is_some() {
                continue;
            }
            match store.commit_game(&row) {
                Ok(()) => {
                    if row.result.is_ok() {
                        summary.played += 1;
                    } else {
                        summary.lost += 1;
                    }
                    on_event(Event::Game(&row));
                }
                Err(e) => {
                    failed_commit.store(true, Ordering::SeqCst);
                    error = Some(e);
                }
            }
        }
    });
    match error {
        Some(e) => Err(e),
        None => Ok(summary),
    }
}
